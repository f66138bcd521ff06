#!/usr/bin/env python3
"""Kernel resource budget: every __global__ function of the build against budget.txt.

usage: kernel_budget.py --build DIR --table FILE [--arch sm_90] [--cxxfilt PATH]
                        [--nvcc-version V] [--update]
       kernel_budget.py --no-cuda          (a build without CUDA: prints SKIP, exits 77)
       kernel_budget.py --self-test        (the checker on made-up reports and tables)

Reads the ptxas reports that tools/kernel_budget/nvcc_res.py (the CUDA compiler launcher) left
next to every CUDA object of DIR (OBJECT.res), keeps ARCH's entry functions, keyed by CMake target
(the CMakeFiles/TARGET.dir the object is in) and demangled name, taking the largest figure where
a kernel is in several objects of one target.  Fails (exit 1) on a kernel whose registers, static
shared memory or stack frame exceed its row, a kernel with no row, a row whose kernel is gone from
a target that was built, or no report at all; rows of targets this build does not have are only
noted.  --update writes the build's figures as the table instead (rows of targets not built are
kept).  Prints "PASS kernel_budget ..." or the offending kernels and "FAIL: ...".
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvcc_res  # noqa: E402

TARGET = re.compile(r"(?:^|/)CMakeFiles/([^/]+)\.dir/")
NV_STATIC = re.compile(r"^__nv_static_(\d+)_")
HEADER = """\
# Kernel budget for {arch}: registers per thread, static shared memory (bytes) and stack frame
# (bytes per thread) of every __global__ function the build compiles, per CMake target, as ptxas
# reports them (nvcc {nvcc}).  The test kernel_budget.all fails on a kernel above its row, a
# kernel without a row, and a row whose kernel is gone (tools/kernel_budget/README.md).
# Regenerate from a full build:
#   cmake --build build && cmake --build build --target kernel_budget_update
# Raise a budget only after the GPU pass (tools/gpu/all.sh) ran the change.
# target                 registers   smem  stack  kernel
"""
FIGURES = ("registers", "smem", "stack")


class Fail(Exception):
    pass


def unstatic(name):
    """-rdc names a TU-local kernel __nv_static_N_<N characters>_<mangled name>."""
    m = NV_STATIC.match(name)
    return name[m.end() + int(m.group(1)) + 1:] if m else name


def demangle(names, cxxfilt):
    names = sorted(names)
    if not names:
        return {}
    try:
        r = subprocess.run([cxxfilt], input="\n".join(unstatic(n) for n in names) + "\n",
                           capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise Fail(f"cannot demangle with {cxxfilt}: {e}")
    out = r.stdout.splitlines()
    if len(out) != len(names):
        raise Fail(f"{cxxfilt} gave {len(out)} names for {len(names)}")
    return dict(zip(names, out))


def collect(build, arch, cxxfilt):
    """-> ({(target, kernel): [regs, smem, stack, objects]}, targets with a report, reports, other arches, problems)"""
    reports, problems, kernels, targets, arches = 0, [], {}, set(), set()
    raw = []
    for root, dirs, files in os.walk(build):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith(".o.res"):
                continue
            res = os.path.join(root, f)
            obj, rel = res[:-4], os.path.relpath(res[:-4], build)
            m = TARGET.search(rel)
            if not m or not os.path.exists(obj):
                continue  # not an object of this build's targets, or cleaned away
            if os.path.getmtime(res) < os.path.getmtime(obj):
                problems.append(f"STALE {rel}: compiled after its report (not through nvcc_res.py?)")
                continue
            reports += 1
            targets.add(m.group(1))
            with open(res, encoding="utf-8") as fh:
                for n, line in enumerate(fh, 1):
                    w = line.split()
                    if len(w) != 5 or not all(x.lstrip("-").isdigit() for x in w[1:4]):
                        raise Fail(f"{res}:{n}: not 'ARCH REGISTERS SMEM STACK NAME': {line.strip()}")
                    if w[0] != arch:
                        arches.add(w[0])
                        continue
                    if int(w[1]) < 0:
                        problems.append(f"BROKEN {rel}: ptxas gave no register count for {w[4]}")
                    raw.append((m.group(1), w[4], [int(x) for x in w[1:4]], rel))
    names = demangle({r[1] for r in raw}, cxxfilt)
    for target, name, figs, rel in raw:
        k = kernels.setdefault((target, names[name]), [0, 0, 0, set()])
        for i in range(3):
            k[i] = max(k[i], figs[i])
        k[3].add(rel)
    return kernels, targets, reports, arches, problems


def read_table(path):
    rows, nvcc = {}, None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                m = re.search(r"\(nvcc (\S+)\)", line)
                nvcc = m.group(1) if m and nvcc is None else nvcc
                continue
            w = line.split(None, 4)
            if len(w) != 5 or not all(x.isdigit() for x in w[1:4]):
                raise Fail(f"{path}:{n}: not 'TARGET REGISTERS SMEM STACK KERNEL': {line.strip()}")
            rows[(w[0], w[4].strip())] = tuple(int(x) for x in w[1:4])
    return rows, nvcc


def figures(v):
    return ", ".join(f"{f} {x}" for f, x in zip(FIGURES, v))


def check(kernels, targets, rows, table):
    """-> (failure lines, note lines)"""
    bad, notes, below = [], [], []
    for (t, k), v in sorted(kernels.items()):
        obj = sorted(v[3])[0]
        if (t, k) not in rows:
            bad.append(f"NEW   {t}: {k}: {figures(v[:3])}: no row in {table} [{obj}]")
            continue
        b = rows[(t, k)]
        if any(x > y for x, y in zip(v, b)):
            parts = [f"{f} {x} {'>' if x > y else '<='} budget {y}" for f, x, y in zip(FIGURES, v, b)]
            bad.append(f"OVER  {t}: {k}: {', '.join(parts)} [{obj}]")
        elif tuple(v[:3]) != b:
            below.append(f"{t}: {k}")
    for (t, k), b in sorted(rows.items()):
        if t in targets and (t, k) not in kernels:
            bad.append(f"GONE  {t}: {k}: a row ({figures(b)}), but target {t} no longer compiles it")
    absent = sorted({t for t, _ in rows} - targets)
    if absent:
        notes.append(f"note: rows of targets not in this build, not checked: {' '.join(absent)}")
    for b in below:
        notes.append(f"note: below its budget (the update tightens it): {b}")
    return bad, notes


def write_table(path, kernels, targets, rows, arch, nvcc):
    out = {k: tuple(v[:3]) for k, v in kernels.items()}
    out.update({k: b for k, b in rows.items() if k[0] not in targets})
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(HEADER.format(arch=arch, nvcc=nvcc or "?"))
        for (t, k), v in sorted(out.items()):
            f.write("%-24s %9d %6d %6d  %s\n" % (t, v[0], v[1], v[2], k))
    os.replace(path + ".tmp", path)
    changed = sum(1 for k, v in out.items() if rows.get(k) != v) + sum(1 for k in rows if k not in out)
    return len(out), changed


def run(a):
    kernels, targets, reports, arches, problems = collect(a.build, a.arch, a.cxxfilt)
    where = f"{a.arch}, {len(kernels)} kernels in {len(targets)} targets, {reports} objects"
    if reports == 0:
        raise Fail(f"no ptxas report (OBJECT.res) under {a.build}: CUDA is enabled but its objects were "
                   "not compiled through tools/kernel_budget/nvcc_res.py (CMAKE_CUDA_COMPILER_LAUNCHER), "
                   "or the build has not run")
    if not kernels:
        if arches:
            print(f"SKIP kernel_budget: this build compiles no {a.arch} code (only {' '.join(sorted(arches))})")
            return 77
        raise Fail(f"{reports} ptxas reports under {a.build} and not one kernel in them")
    for p in problems:
        print(p)
    rows, nvcc = read_table(a.table) if os.path.exists(a.table) else ({}, None)
    if a.update:
        if problems:
            raise Fail(f"{len(problems)} reports are unusable: rebuild, then update again")
        n, changed = write_table(a.table, kernels, targets, rows, a.arch, a.nvcc_version)
        print(f"kernel_budget: wrote {a.table}: {n} rows, {changed} changed ({where})")
        return 0
    bad, notes = check(kernels, targets, rows, a.table)
    for line in bad + notes:
        print(line)
    if nvcc and a.nvcc_version and nvcc != a.nvcc_version and bad:
        print(f"note: the table holds nvcc {nvcc}'s figures, this build uses nvcc {a.nvcc_version}")
    if bad or problems:
        print(f"FAIL: kernel_budget: {len(bad) + len(problems)} problems ({where}); raise a budget only after "
              f"the GPU pass (tools/gpu/all.sh) ran the change, then: cmake --build {a.build} --target kernel_budget_update")
        return 1
    print(f"PASS kernel_budget: every kernel within its budget ({where})")
    return 0


def self_test(cxxfilt):
    ptxas = b"""ptxas info    : 4 bytes gmem
ptxas info    : Compiling entry function '__nv_static_22__9c4a7015_4_t_cu__Z1fi__Z2stPi' for 'sm_90'
ptxas info    : Function properties for __nv_static_22__9c4a7015_4_t_cu__Z1fi__Z2stPi
    160 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers, 160 bytes cumulative stack size
ptxas info    : Compiling entry function '_Z1kIiEvPT_' for 'sm_90'
ptxas info    : Function properties for _Z1kIiEvPT_
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Function properties for _Z1fi
    48 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 1 barriers, 256 bytes smem
t.cu(3): warning: something the user must see
"""
    lines = ptxas.splitlines(True)
    got = nvcc_res.parse(lines)
    want = [("sm_90", 32, 0, 160, "__nv_static_22__9c4a7015_4_t_cu__Z1fi__Z2stPi"), ("sm_90", 10, 256, 0, "_Z1kIiEvPT_")]
    kept = [l for l in lines if not nvcc_res.is_report(l)]
    errors = []
    if got != want:
        errors.append(f"parse: {got} != {want}")
    if kept != [lines[-1]]:
        errors.append(f"the filter kept {kept}")
    if unstatic(want[0][4]) != "_Z2stPi":
        errors.append(f"unstatic gave {unstatic(want[0][4])}")
    with tempfile.TemporaryDirectory() as d:
        objdir = os.path.join(d, "tests", "CMakeFiles", "t1.dir")
        os.makedirs(objdir)
        obj = os.path.join(objdir, "t.cu.o")
        open(obj, "w").close()
        with open(obj + ".res", "w") as f:
            f.write("".join("%s %d %d %d %s\n" % e for e in want))
        table = os.path.join(d, "budget.txt")
        base = {("t1", "st(int*)"): (32, 0, 160), ("t1", "void k<int>(int*)"): (10, 256, 0)}
        cases = [  # (name, rows, substrings every one of which the failure lines must hold: [] = pass)
            ("equal", base, []),
            ("above", {**base, ("t1", "st(int*)"): (31, 0, 160)}, ["OVER  t1: st(int*): registers 32 > budget 31"]),
            ("smem", {**base, ("t1", "void k<int>(int*)"): (10, 128, 0)}, ["smem 256 > budget 128"]),
            ("stack", {**base, ("t1", "st(int*)"): (32, 0, 0)}, ["stack 160 > budget 0"]),
            ("new", {("t1", "st(int*)"): (32, 0, 160)}, ["NEW   t1: void k<int>(int*): registers 10, smem 256"]),
            ("gone", {**base, ("t1", "old(int)"): (8, 0, 0)}, ["GONE  t1: old(int)"]),
            ("other target", {**base, ("t2", "x()"): (8, 0, 0)}, []),
        ]
        kernels, targets, _, _, _ = collect(d, "sm_90", cxxfilt)
        for name, rows, expect in cases:
            bad, _ = check(kernels, targets, rows, table)
            if (not expect and bad) or not all(any(e in b for b in bad) for e in expect) or len(bad) != len(expect):
                errors.append(f"case {name}: {bad}")
        write_table(table, kernels, targets, {("t2", "x()"): (8, 0, 0), ("t1", "old(int)"): (1, 0, 0)}, "sm_90", "13.0")
        rows, nvcc = read_table(table)
        if rows != {**base, ("t2", "x()"): (8, 0, 0)} or nvcc != "13.0":
            errors.append(f"update wrote {rows} (nvcc {nvcc})")
        if collect(d, "sm_100", cxxfilt)[0] or collect(d, "sm_100", cxxfilt)[3] != {"sm_90"}:
            errors.append("another arch's reports were not set apart")
    for e in errors:
        print(e)
    if errors:
        print(f"FAIL: kernel_budget self-test: {len(errors)} errors")
        return 1
    print("PASS kernel_budget self-test")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build")
    p.add_argument("--table")
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--cxxfilt", default="c++filt")
    p.add_argument("--nvcc-version")
    p.add_argument("--update", action="store_true")
    p.add_argument("--no-cuda", action="store_true")
    p.add_argument("--self-test", action="store_true")
    a = p.parse_args()
    try:
        if a.self_test:
            return self_test(a.cxxfilt)
        if a.no_cuda:
            print("SKIP kernel_budget: this build has no CUDA (no kernels to check)")
            return 77
        if not a.build or not a.table:
            p.error("--build and --table are required")
        return run(a)
    except Fail as e:
        print(f"FAIL: kernel_budget: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
