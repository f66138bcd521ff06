#!/usr/bin/env bash
# tools/gpu/carry_ucx.sh [DEST]: copy this machine's UCX (Debian's libucx-dev: headers, libraries,
# transport modules, pkg-config files made relocatable) into DEST (default .gpu-deps/ucx), for a
# GPU machine that has no UCX: tools/gpu/run_hosts.sh builds and runs against DEST when
# `pkg-config ucx` finds nothing there. Debian 12's build runs on newer glibc systems.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DEST=${1:-$ROOT/.gpu-deps/ucx}
pkg-config --exists ucx || { echo "carry_ucx: no UCX here (Debian: libucx-dev)" >&2; exit 1; }
inc=$(pkg-config --variable=includedir ucx) lib=$(pkg-config --variable=libdir ucx)
rm -rf "$DEST" && mkdir -p "$DEST/include" "$DEST/lib/pkgconfig"
cp -a "$inc"/uc[mpst] "$DEST/include/"
cp -a "$lib"/libuc[mpst]*.so* "$DEST/lib/"
[[ -d $lib/ucx ]] && cp -a "$lib/ucx" "$DEST/lib/"
for pc in "$lib"/pkgconfig/ucx*.pc; do
  sed -e 's|^prefix *=.*|prefix=${pcfiledir}/../..|' -e 's|^libdir *=.*|libdir=${prefix}/lib|' \
      -e 's|^includedir *=.*|includedir=${prefix}/include|' "$pc" > "$DEST/lib/pkgconfig/$(basename "$pc")"
done
PKG_CONFIG_PATH=$DEST/lib/pkgconfig pkg-config --modversion ucx >/dev/null
echo "carry_ucx: UCX $(pkg-config --modversion ucx) in $DEST ($(du -sh "$DEST" | cut -f1))"
