#!/usr/bin/env python3
"""Checks that every #include in the folders docs/layers.map names (runtime/, device/, shmem_api/,
mpi_ext/, ep/, tools/) goes down the layer map (the rules in words are in docs/layers.md).

usage: check_layers.py [--root DIR] [--map FILE]   check the tree (default: this repository)
       check_layers.py --self-test                  check the checker on a small made-up tree

Prints one line per include that goes the wrong way, naming the file, the line, both layers and
the included file, then "FAIL: ..." and exits 1; prints "PASS layers ..." and exits 0 when every
include is allowed.  A file no map line covers, or a quoted include found nowhere, is an error
too: the map must know every file's layer.
"""
import argparse
import fnmatch
import os
import re
import sys
import tempfile

SOURCE_EXT = (".h", ".hpp", ".cuh", ".inc", ".def", ".c", ".cc", ".cpp", ".cu")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')

# Known wrong-way includes, each (including file, included file): none are left (the transports
# take AmoOp and Waiter from the base layer).  Nothing may be added here.
ALLOWED = set()


class MapError(Exception):
    pass


def read_map(path):
    ranks, files, generated, search, checked = {}, [], {}, [], []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            kind, args = words[0], words[1:]
            if kind == "level" and len(args) == 2 and args[1].isdigit():
                ranks[args[0]] = int(args[1])
            elif kind == "files" and len(args) == 2:
                files.append((args[0], args[1], n))
            elif kind == "generated" and len(args) == 2:
                generated[args[0]] = args[1]
            elif kind == "search" and len(args) == 1:
                search.append(args[0])
            elif kind == "check" and len(args) == 1:
                checked.append(args[0])
            else:
                raise MapError(f"{path}:{n}: cannot read '{line.strip()}'")
    for pattern, layer, n in files:
        if layer not in ranks:
            raise MapError(f"{path}:{n}: '{pattern}' names layer '{layer}', which no 'level' line defines")
    for header, layer in generated.items():
        if layer not in ranks:
            raise MapError(f"{path}: generated header '{header}' names unknown layer '{layer}'")
    if not checked:
        raise MapError(f"{path}: no 'check' line: nothing to check")
    return ranks, files, generated, search, checked


def layer_of(rel, files):
    for pattern, layer, _ in files:
        if fnmatch.fnmatchcase(rel, pattern):
            return layer
    return None


def sources(root, checked):
    for top in checked:
        for d, subdirs, names in os.walk(os.path.join(root, top)):
            subdirs.sort()
            for name in sorted(names):
                if name.endswith(SOURCE_EXT):
                    yield os.path.relpath(os.path.join(d, name), root).replace(os.sep, "/")


def resolve(root, rel, quote, target, search):
    """The repository path `#include` finds, or None (a system or third-party header)."""
    dirs = [os.path.dirname(rel)] if quote == '"' else []
    for d in dirs + search:
        p = os.path.normpath(os.path.join(d, target)).replace(os.sep, "/")
        if not p.startswith("../") and os.path.isfile(os.path.join(root, p)):
            return p
    return None


def allowed(layer, other, ranks):
    return other == layer or ranks[other] < ranks[layer]


def check(root, map_path, allow, out):
    ranks, files, generated, search, checked = read_map(map_path)
    problems, used, count = [], set(), 0
    for rel in sources(root, checked):
        layer = layer_of(rel, files)
        if layer is None:
            problems.append(f"{rel}: no layer: add a 'files' line for it to {os.path.relpath(map_path, root)}")
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                quote, target = m.groups()
                spelled = "#include " + quote + target + (">" if quote == "<" else '"')
                count += 1
                found = resolve(root, rel, quote, target, search)
                if found is not None:
                    other, what = layer_of(found, files), found
                elif target in generated:
                    other, what = generated[target], f"{target} (generated)"
                elif quote == '"':
                    problems.append(f"{rel}:{n}: {spelled} is found nowhere: a generated header needs a "
                                    f"'generated' line, a third-party one <...>")
                    continue
                else:
                    continue  # system or third-party header
                if other is None:
                    problems.append(f"{rel}:{n}: {spelled} -> {what}: that file has no layer in the map")
                    continue
                if allowed(layer, other, ranks):
                    continue
                if (rel, found) in allow:
                    used.add((rel, found))
                    continue
                lower = sorted((l for l in ranks if allowed(layer, l, ranks)), key=lambda l: (-ranks[l], l))
                problems.append(f"{rel}:{n}: layer {layer} includes layer {other}: {spelled} -> {what} "
                                f"({layer} may include {', '.join(lower)})")
    for rel, found in sorted(allow - used):
        print(f"note: allow-list entry ({rel}, {found}) matches no include any more: remove it", file=out)
    return problems, count, len(used)


def main_check(root, map_path):
    try:
        problems, count, excused = check(root, map_path, ALLOWED, sys.stdout)
    except (MapError, OSError) as e:
        print(f"FAIL: {e}")
        return 1
    for p in problems:
        print(p)
    if problems:
        print(f"FAIL: {len(problems)} include(s) against the layer map (docs/layers.md says why)")
        return 1
    print(f"PASS layers: {count} includes follow the layer map ({excused} allow-listed, to be removed)")
    return 0


def self_test():
    """A made-up tree with one include of each kind: the checker must flag exactly the wrong ones."""
    tree = {
        "map": "level low 0\nlevel mid 1\nlevel peer 1\nlevel high 2\n"
               "files runtime/low/* low\nfiles runtime/peer/* peer\nfiles runtime/* mid\n"
               "files tools/* high\ngenerated gen.h low\nsearch runtime\n"
               "check runtime\ncheck tools\ncheck device\n",
        "runtime/low/a.h": '#include "b.h"\n#include <stdio.h>\n',        # same layer, system: fine
        "runtime/low/b.h": "\n\n#include \"../m.h\"\n",                   # low -> mid: wrong
        "runtime/m.h": '#include "low/a.h"\n#include "gen.h"\n',          # mid -> low, generated: fine
        "runtime/m.cpp": '#include "peer/p.h"\n#include "tools/t.h"\n',   # same rank, missing: wrong
        "runtime/peer/p.h": '#include "../low/a.h"\n',
        "tools/t.cpp": '  #  include "m.h"\n#include "peer/p.h"\n',      # high -> lower: fine
        "device/x.h": "",                                                 # no layer: wrong
    }
    expect = [
        "runtime/low/b.h:3: layer low includes layer mid: #include \"../m.h\" -> runtime/m.h",
        "runtime/m.cpp:1: layer mid includes layer peer",
        "runtime/m.cpp:2: #include \"tools/t.h\" is found nowhere",
        "device/x.h: no layer",
    ]
    with tempfile.TemporaryDirectory() as root:
        for rel, text in tree.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)) or root, exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write(text)
        notes = open(os.devnull, "w")
        problems, count, _ = check(root, os.path.join(root, "map"), set(), notes)
        excused = check(root, os.path.join(root, "map"), {("runtime/low/b.h", "runtime/m.h")}, notes)[0]
        notes.close()
    bad = []
    for e in expect:
        if not any(p.startswith(e) for p in problems):
            bad.append(f"not reported: {e}")
    if len(problems) != len(expect):
        bad.append(f"{len(problems)} problems reported, {len(expect)} expected: {problems}")
    if count != 10:
        bad.append(f"{count} includes read, 10 expected")
    if any(p.startswith("runtime/low/b.h:3") for p in excused) or len(excused) != len(expect) - 1:
        bad.append(f"the allow-list did not excuse exactly its entry: {excused}")
    for b in bad:
        print(f"FAIL: self-test: {b}")
    if bad:
        return 1
    print("PASS layers self-test: wrong-way, same-rank, unmapped and unresolved includes are caught")
    return 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.normpath(os.path.join(here, "..", "..")))
    ap.add_argument("--map", help="default: ROOT/docs/layers.map")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    return main_check(a.root, a.map or os.path.join(a.root, "docs", "layers.map"))


if __name__ == "__main__":
    sys.exit(main())
