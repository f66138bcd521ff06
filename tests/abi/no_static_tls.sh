#!/bin/sh
# no_static_tls.sh READELF LIB...: none of the libraries needs the static TLS block (DF_STATIC_TLS,
# initial-exec thread-locals). Such a library cannot be dlopen'ed into a process whose static TLS
# surplus is spent (Python after torch: "cannot allocate memory in static TLS block"), and
# libkishmem carries cudart_static's 4 KiB-aligned thread-local block.
readelf=$1
shift
rc=0
for lib in "$@"; do
    if "$readelf" -dW "$lib" | grep -q STATIC_TLS; then
        echo "FAIL: $lib needs static TLS (a thread-local of the initial-exec model: $("$readelf" -rW "$lib" | grep -c TPOFF) TPOFF relocations)"
        rc=1
    else
        echo "ok: $lib: no static TLS"
    fi
done
exit $rc
