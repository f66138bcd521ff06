#!/usr/bin/env python3
"""check_exports.py NM LIB [options]: the exported surface of a shared library.

Lists LIB's exported dynamic symbols (NM -D --defined-only) and fails when
  - one matches none of the --allow patterns (shell globs): an internal symbol leaked;
  - a --require name is missing;
  - a routine that --aliases (pshmem_aliases.ld: "pshmem_NAME = shmem_NAME;") names is missing,
    under either name;
  - a name that the --header files declare (preprocessed by --cc with --include directories,
    as C99: functions and extern objects) is missing: the headers promise it to user code.
Prints the counts and "PASS ..." or the offending names and "FAIL: ...".
"""
import argparse
import fnmatch
import os
import re
import subprocess
import sys
import tempfile

# Identifiers followed by '(' that are not declared functions.
NOT_FUNCTIONS = {"sizeof", "__attribute__", "__typeof__", "__extension__", "__asm__", "_Alignas", "_Static_assert"}


def exported(nm, lib):
    r = subprocess.run([nm, "-D", "--defined-only", lib], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{nm} -D --defined-only {lib}: {r.stderr.strip()}")
    names = set()
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3:
            names.add(parts[2].split("@")[0])
    return names


def declared(cc, includes, headers):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "decl.c")
        with open(src, "w") as f:
            for h in headers:
                f.write(f"#include <{h}>\n")
        cmd = [cc, "-E", "-P", "-std=c99"] + [f"-I{i}" for i in includes] + [src]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip()}")
    text = "\n".join(l for l in r.stdout.splitlines() if not l.lstrip().startswith("#"))  # pragmas
    names = {n for n in re.findall(r"\b([A-Za-z_]\w*)\s*\(", text) if n not in NOT_FUNCTIONS and not n.startswith("__")}
    names |= set(re.findall(r"\bextern\s+struct\s+\w+\s+([A-Za-z_]\w*)\s*;", text))
    # Types of the standard headers in parentheses (casts) are not functions; keep only names
    # that are not types the preprocessed text defines.
    types = set(re.findall(r"\btypedef\b[^;]*?\b([A-Za-z_]\w*)\s*;", text))
    return names - types


def main():
    p = argparse.ArgumentParser()
    p.add_argument("nm")
    p.add_argument("lib")
    p.add_argument("--allow", action="append", default=[])
    p.add_argument("--require", action="append", default=[])
    p.add_argument("--aliases")
    p.add_argument("--cc")
    p.add_argument("--include", action="append", default=[])
    p.add_argument("--header", action="append", default=[])
    a = p.parse_args()

    try:
        names = exported(a.nm, a.lib)
        required = set(a.require)
        if a.aliases:
            with open(a.aliases) as f:
                pairs = re.findall(r"^(pshmem_\w+)\s*=\s*(shmem_\w+)\s*;", f.read(), re.M)
            if len(pairs) < 100:
                print(f"FAIL: only {len(pairs)} routines in {a.aliases}")
                return 1
            for pn, sn in pairs:
                required |= {pn, sn}
        n_declared = 0
        if a.header:
            decl = declared(a.cc, a.include, a.header)
            n_declared = len(decl)
            required |= decl
    except (OSError, RuntimeError) as e:
        print(f"FAIL: {e}")
        return 1

    lib = os.path.basename(a.lib)
    leaked = sorted(n for n in names if not any(fnmatch.fnmatchcase(n, g) for g in a.allow))
    missing = sorted(required - names)
    for n in leaked[:40]:
        print(f"{lib}: exported, but no rule allows it: {n}")
    if len(leaked) > 40:
        print(f"{lib}: ... and {len(leaked) - 40} more exported names that no rule allows")
    for n in missing[:40]:
        print(f"{lib}: required, but not exported: {n}")
    if len(missing) > 40:
        print(f"{lib}: ... and {len(missing) - 40} more required names missing")
    if leaked or missing:
        print(f"FAIL: {lib}: {len(names)} exported names, {len(leaked)} not allowed, {len(missing)} of "
              f"{len(required)} required missing")
        return 1
    print(f"PASS {lib}: {len(names)} exported names, all allowed by {' '.join(a.allow)}; {len(required)} required "
          f"names present ({n_declared} declared by {' '.join(a.header) or 'no header'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
