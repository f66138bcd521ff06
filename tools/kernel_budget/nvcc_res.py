#!/usr/bin/env python3
"""nvcc_res.py COMMAND...: runs the CUDA compile COMMAND (nvcc, or a launcher such as ccache
followed by nvcc) with ptxas's resource report turned on (-Xptxas -v) and writes the
figures of every entry function (__global__ kernel) to OBJECT.res, OBJECT being the -o argument:

    ARCH REGISTERS SMEM_BYTES STACK_BYTES MANGLED_NAME        e.g. sm_90 32 0 160 _Z2stPi

The report's lines are taken out of the compiler's output, every other line passes through
unchanged (a clean build log stays clean); where the command asked for the report itself, all of
its output passes.  (-Xptxas -v, not --resource-usage: with -rdc nvcc answers the latter with a
warning and no report.)  A compile that fails leaves no .res.  The CMake build sets it as the CUDA
compiler launcher (cmake/kernel_budget.cmake); tools/kernel_budget/kernel_budget.py reads the
.res files.  Non-entry functions (-rdc: "Function properties for ...") are not recorded.
"""
import os
import re
import subprocess
import sys

ENTRY = re.compile(rb"^ptxas info\s*: Compiling entry function '([^']+)' for '([^']+)'")
PROPS = re.compile(rb"^ptxas info\s*: Function properties for (\S+)")
STACK = re.compile(rb"^\s+(\d+) bytes stack frame, \d+ bytes spill stores, \d+ bytes spill loads\s*$")
USED = re.compile(rb"^ptxas info\s*: Used (\d+) registers")
SMEM = re.compile(rb"(\d+) bytes smem")
REPORT = re.compile(rb"^ptxas info\s*:")


def parse(lines):
    """ptxas output lines (bytes) -> [(arch, registers, smem, stack, name)] of the entry functions.
    An entry whose report has no "Used N registers" line gets -1 registers (the checker says so)."""
    out, cur, props = [], None, None
    for line in lines:
        m = ENTRY.match(line)
        if m:
            cur = {"name": m.group(1).decode(), "arch": m.group(2).decode(), "regs": -1, "smem": 0, "stack": 0}
            out.append(cur)
            props = None
            continue
        m = PROPS.match(line)
        if m:
            props = m.group(1).decode()
            continue
        m = STACK.match(line)
        if m and cur is not None and props == cur["name"]:
            cur["stack"] = int(m.group(1))
            continue
        m = USED.match(line)
        if m and cur is not None:
            cur["regs"] = int(m.group(1))
            s = SMEM.search(line)
            cur["smem"] = int(s.group(1)) if s else 0
            cur = None
    return [(e["arch"], e["regs"], e["smem"], e["stack"], e["name"]) for e in out]


def is_report(line):
    return bool(REPORT.match(line) or STACK.match(line))


def output_file(args):
    for i, a in enumerate(args):
        if a in ("-o", "--output-file") and i + 1 < len(args):
            return args[i + 1]
        for p in ("-o=", "--output-file="):
            if a.startswith(p):
                return a[len(p):]
    return None


def asks_report(args):
    """Did the command ask for the report itself (--resource-usage, -Xptxas -v)?"""
    for i, a in enumerate(args):
        if a in ("--resource-usage", "-res-usage"):
            return True
        opt = None
        if a in ("-Xptxas", "--ptxas-options") and i + 1 < len(args):
            opt = args[i + 1]
        elif a.startswith(("-Xptxas=", "--ptxas-options=")):
            opt = a.split("=", 1)[1]
        if opt is not None and any(o in ("-v", "--verbose") for o in opt.split(",")):
            return True
    return False


def main():
    cmd = sys.argv[1:]
    if not cmd:
        print("usage: nvcc_res.py COMMAND...", file=sys.stderr)
        return 2
    obj = output_file(cmd)
    compiling = ("-c" in cmd or "--compile" in cmd) and obj is not None
    if not compiling or any(a in ("-M", "-MM", "-E", "--preprocess", "--generate-dependencies") for a in cmd):
        return subprocess.call(cmd)
    res = obj + ".res"
    if os.path.exists(res):
        os.remove(res)
    asked = asks_report(cmd)
    r = subprocess.run(cmd if asked else cmd + ["-Xptxas", "-v"], capture_output=True)
    lines = r.stdout.splitlines(True) + r.stderr.splitlines(True)
    for data, stream in ((r.stdout, sys.stdout.buffer), (r.stderr, sys.stderr.buffer)):
        stream.write(data if asked else b"".join(l for l in data.splitlines(True) if not is_report(l)))
        stream.flush()
    if r.returncode != 0:
        return r.returncode if r.returncode > 0 else 128 - r.returncode
    with open(res + ".tmp", "w", encoding="utf-8") as f:
        for e in parse(lines):
            f.write("%s %d %d %d %s\n" % e)
    os.replace(res + ".tmp", res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
