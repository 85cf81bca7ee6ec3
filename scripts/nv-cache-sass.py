#!/usr/bin/env python3
"""nv-cache-sass.py CACHE_DIR OUT_DIR - what the NVIDIA driver compiled Vulkan pipelines into.

The NVIDIA driver keeps each compiled pipeline in its shader disk cache
(__GL_SHADER_DISK_CACHE_PATH; scripts/device-run.sh's sass phase points it at a fresh folder for
one xpubench process). Driver 580 stores entries as zstd frames; a compiled program is an
"NVDANVVMNVuc" block whose raw SASS starts at 0x178, its size at 0x4c (the size equals the "Binary
Size" that XPB_VULKAN_PIPELINE_STATS prints, which is how the offsets were read off). This writes
each program's code to OUT_DIR/programNNN.raw, disassembles it with the CUDA toolkit's
`nvdisasm -b SM90` into programNNN.raw.sass, and prints an opcode count per program: which
tensor-core instruction (HMMA, or the warpgroup HGMMA), which copies (LDG + STS, LDGSTS, UTMALDG)
and which stores the driver chose. Needs the zstd command. A diagnostic for tuning sessions: the
format is the driver's, undocumented, and may change; it prints what it could not find.
"""
import collections
import os
import re
import shutil
import struct
import subprocess
import sys


def zstd_frames(blob):
    """The decompressed zstd frames of a cache file (the driver compresses its entries)."""
    at = [i for i in range(len(blob)) if blob.startswith(ZSTD, i)] + [len(blob)]
    for a, b in zip(at, at[1:]):
        r = subprocess.run(["zstd", "-d", "-c"], input=blob[a:b], capture_output=True)
        if r.stdout:  # a frame followed by the cache's own bytes decodes, then complains
            yield r.stdout


def programs(blob):
    """(name, code) of each compiled program: an "NVDANVVMNVuc" entry whose header gives the
    SASS size at 0x4c; the code starts at 0x178 (read off driver 580's entries, where the size
    matches the "Binary Size" that VK_KHR_pipeline_executable_properties reports)."""
    at = blob.find(NVUC)
    while at >= 0:
        size = struct.unpack_from("<I", blob, at + 0x4C)[0]
        name = re.search(rb"main_[0-9]+", blob[at + 0x178 + size:at + 0x178 + size + 4096])
        yield (name.group().decode() if name else "?"), blob, at + 0x178, size
        at = blob.find(NVUC, at + 0x178 + size)


ZSTD = b"\x28\xb5\x2f\xfd"
NVUC = b"NVDANVVMNVuc"


def disassemble(path, quiet=False):
    """nvdisasm's listing of the raw SM90 code in path. A program's block may end in bytes that are
    not instructions (nvdisasm then stops at "Illegal instruction ... at address A"): the code
    before A is disassembled instead, and stderr says where it stopped. quiet: "" without a word
    where the first instruction, or the first half, is not code (main tries the next start)."""
    exe = shutil.which("nvdisasm") or "/usr/local/cuda/bin/nvdisasm"
    if not os.path.exists(exe):
        sys.stderr.write("nvdisasm: not found (the CUDA toolkit's bin folder)\n")
        return ""
    code, cut = open(path, "rb").read(), path + ".code"
    while code:
        r = subprocess.run([exe, "-b", "SM90", path], capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip():
            return r.stdout
        bad = re.search(r"at address 0x([0-9a-fA-F]+)", r.stderr)
        if not bad or int(bad.group(1), 16) >= len(code) or int(bad.group(1), 16) == 0:
            if quiet:
                return ""
            sys.stderr.write("nvdisasm %s: %s\n" % (path, (r.stderr or "no output").strip()[:300]))
            return ""
        end = int(bad.group(1), 16) & ~15
        if quiet and end < len(code) // 2:  # most of it not code: a wrong start, not a tail
            return ""
        code = code[:end]
        path = cut
        open(path, "wb").write(code)
        sys.stderr.write("%s: disassembled up to 0x%x (what follows is not code)\n" % (path, end))
    return ""


def opcode_counts(sass):
    """How often each opcode (without its modifiers) occurs in an nvdisasm listing."""
    ops = collections.Counter()
    for line in sass.splitlines():
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", line)
        if m:
            ops[m.group(1)] += 1
    return ops


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: nv-cache-sass.py CACHE_DIR OUT_DIR")
    if not shutil.which("zstd"):
        sys.exit("nv-cache-sass.py: no zstd command to read the driver's cache (../shared/device-kit/fetch zstd)")
    cache, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    files = [os.path.join(d, f) for d, _, fs in os.walk(cache) for f in fs]
    print("cache: %d files, %d bytes" % (len(files), sum(os.path.getsize(f) for f in files)))
    found = [p for f in files for frame in zstd_frames(open(f, "rb").read()) for p in programs(frame)]
    for n, (name, blob, start, size) in enumerate(found, 1):
        path = os.path.join(out, "program%03d.raw" % n)
        # Some entries put a header of their own before the code (the H200's tagged row
        # pipelines: 64 bytes, 2026-11-29): starts 16 bytes apart are tried until one disassembles
        # (the header's last words may then read as an instruction or two before the code).
        sass = ""
        for skip in range(0, 0x110, 0x10):
            code = blob[start + skip:start + skip + size]
            open(path, "wb").write(code)
            sass = disassemble(path, quiet=True)
            if sass:
                break
        if not sass:  # none did: say why, from the entry's first byte
            skip, code = 0, blob[start:start + size]
            open(path, "wb").write(code)
            disassemble(path)
        elif skip:
            sys.stderr.write("%s: the code starts 0x%x bytes further into its entry\n" % (path, skip))
        open(path + ".sass", "w").write(sass)
        ops = opcode_counts(sass)
        print("program%03d: %s, %d bytes, %d instructions: %s" % (
            n, name, len(code), sum(ops.values()), " ".join("%s=%d" % kv for kv in ops.most_common(40))))
    if not found:
        print("no compiled program found in the cache files")


if __name__ == "__main__":
    main()
