#!/usr/bin/env bash
# install-deps.sh - installs what xpubench needs on Debian/Ubuntu, only what is missing.
# The CUDA toolkit is not installed here (it comes from NVIDIA); when nvcc is present, the CUDA
# backend is built. Python packages for the reports go into .venv (scripts/report-env.sh).
set -euo pipefail
pkgs=(build-essential cmake git pkg-config libbenchmark-dev libcjson-dev libopenblas-dev
      libvulkan-dev glslc mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
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
  echo "install-deps: everything is installed"
  exit 0
fi
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
