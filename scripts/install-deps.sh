#!/usr/bin/env bash
# install-deps.sh - installs what xpubench needs on Debian/Ubuntu, only what is missing.
# The CUDA toolkit is not installed here (it comes from NVIDIA); when nvcc is present, the CUDA
# backend is built. Python packages for the reports go into .venv (scripts/report-env.sh).
set -euo pipefail
pkgs=(build-essential cmake git pkg-config libbenchmark-dev libcjson-dev libopenblas-dev
      libvulkan-dev glslc mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
      gnuplot-nox python3-venv python3-pip)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: everything is installed"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
