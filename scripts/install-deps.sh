#!/usr/bin/env bash
# Installs the Debian 12 packages bnnbench needs to build, test and fetch data.
# Idempotent: packages already present are skipped. Run as root (or with sudo).
set -euo pipefail

packages=(
  build-essential cmake pkg-config git ca-certificates
  libeigen3-dev libopenblas0-pthread libopenblas-pthread-dev
  libboost-program-options-dev libboost-math-dev
  catch2 libbenchmark-dev
  libsqlite3-dev sqlite3 zlib1g-dev libtomlplusplus-dev liblbfgspp-dev
  libcurl4-openssl-dev libssl-dev libarchive-dev
  libopenmpi-dev openmpi-bin
  slurmctld slurmd slurm-client munge
  clang clang-format libclang-rt-14-dev ccache ninja-build
  python3 python3-numpy python3-pytest nlohmann-json3-dev chromium
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y --no-install-recommends "${missing[@]}"; then
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi
