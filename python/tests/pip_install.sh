#!/usr/bin/env bash
# pip_install.sh PYTHON SOURCE WORK: `pip install --no-build-isolation ./python` as python/README.md
# gives it, into WORK/target (the CMake build in WORK/build, kept between runs), as a user installs
# the package, without the GPU parts (the CPU form is what the test runs; a build with them takes
# the cores several minutes longer). The test python.pip_installed.* then runs pip_smoke.py from
# that copy.
set -euo pipefail
py=$1 src=$2 work=$3
rm -rf "$work/target"
mkdir -p "$work"
KISHMEM_BUILD_DIR="$work/build" KISHMEM_CMAKE_ARGS=-DKISHMEM_ENABLE_CUDA=OFF "$py" -m pip install --no-build-isolation --no-deps --no-cache-dir --quiet \
  --disable-pip-version-check --target "$work/target" "$src/python"
for f in kishmem/__init__.py kishmem/ep.py kishmem/_libs/libkishmem.so.0 kishmem/_libs/libkishmem_ep.so.0; do
  [[ -e $work/target/$f ]] || { echo "FAIL: pip install left no $f in $work/target"; exit 1; }
done
ls "$work/target"/kishmem/_kishmem.*.so > /dev/null || { echo "FAIL: pip install left no extension module"; exit 1; }
echo "PASS pip install ./python"
