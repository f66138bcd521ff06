#!/usr/bin/env python3
"""The C++ overloads of shmem.h / shmemx.h cover every type-generic routine of C11.

usage: generic_parity.py --cc CC --cxx CXX --include DIR...

From the headers as the compilers see them:
  - C11 (`cc -std=c11 -E -dM`): every `#define shmem_X(...)` / `shmemx_X(...)` that is a generic
    selection, the type list it selects over (KISHMEM_GEN*(LIST, ...)) and whether it has a
    context form (KISHMEM_GEN_CTX / KISHMEM_XGEN);
  - C++ (`c++ -E`): every `inline ... shmem_X(...)` overload, with or without a shmem_ctx_t first.
Each generic name must have as many C++ overloads as its list has types, and as many again taking
a context where C11 has the context form. Prints each difference; exit 1 if any.
"""
import argparse
import collections
import re
import subprocess
import sys

HEADERS = "#include <shmem.h>\n#include <shmemx.h>\n"


def run(cmd, text):
    return subprocess.run(cmd, input=text, capture_output=True, text=True, check=True).stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", required=True)
    ap.add_argument("--cxx", required=True)
    ap.add_argument("--include", action="append", default=[])
    a = ap.parse_args()
    inc = [f"-I{d}" for d in a.include]

    # C11: the generic names, their lists and context forms
    macros = run([a.cc, "-std=c11", "-E", "-dM", *inc, "-x", "c", "-"], HEADERS)
    generic = {}  # name -> (list macro or None, has ctx form)
    for m in re.finditer(r"^#define (shmemx?_\w+)\(\.\.\.\) (.*)$", macros, re.M):
        name, body = m.groups()
        if "_Generic" not in body and "KISHMEM_GEN" not in body and "KISHMEM_XGEN" not in body:
            continue
        g = re.match(r"KISHMEM_(GEN_CTX|GEN0Q?|GEN1|XGEN1?)\((\w+)", body)
        ctx = bool(g and g.group(1) in ("GEN_CTX", "XGEN")) or "shmem_ctx_t:" in body
        generic[name] = (g.group(2) if g else None, ctx)
    if len(generic) < 50:
        print(f"FAIL: only {len(generic)} generic selections found in C11; the parse is broken")
        return 1

    # how many types each list holds: expand LIST(PROBE, _) in C
    lists = sorted({lst for lst, _ in generic.values() if lst})
    probe = HEADERS + "#define KISHMEM_PARITY_PROBE(T, N, F) @\n" + "".join(
        f"KISHMEM_PARITY_{l} {l}(KISHMEM_PARITY_PROBE, _)\n" for l in lists)
    expanded = run([a.cc, "-std=c11", "-E", "-P", *inc, "-x", "c", "-"], probe)
    types = {}
    for m in re.finditer(r"KISHMEM_PARITY_(\w+) ([@ ]*)", expanded):
        types[m.group(1)] = m.group(2).count("@")

    # C++: the overloads
    cxx = run([a.cxx, "-E", "-P", *inc, "-x", "c++", "-"], HEADERS)
    plain, with_ctx = collections.Counter(), collections.Counter()
    for m in re.finditer(r"\binline\s+[\w\s\*]*?\b(shmemx?_\w+)\s*\(\s*([^,)]*)", cxx):
        name, first = m.groups()
        (with_ctx if first.strip().startswith("shmem_ctx_t") else plain)[name] += 1

    bad = 0
    for name, (lst, ctx) in sorted(generic.items()):
        want = types.get(lst) if lst else None
        if plain[name] == 0 and with_ctx[name] == 0:
            print(f"FAIL: {name}: a C11 generic selection, no C++ overload")
            bad += 1
            continue
        if want is not None and plain[name] != want:
            print(f"FAIL: {name}: {want} types in C11 ({lst}), {plain[name]} C++ overloads")
            bad += 1
        if ctx and want is not None and with_ctx[name] != want:
            print(f"FAIL: {name}: {want} context forms in C11, {with_ctx[name]} C++ overloads taking a shmem_ctx_t")
            bad += 1
        if ctx and want is None and with_ctx[name] == 0:
            print(f"FAIL: {name}: a context form in C11, no C++ overload taking a shmem_ctx_t")
            bad += 1
    if bad:
        print(f"{bad} difference(s) between the C11 generic selections and the C++ overloads")
        return 1
    print(f"PASS generic_parity: {len(generic)} generic names, C11 and C++ alike")
    return 0


if __name__ == "__main__":
    sys.exit(main())
