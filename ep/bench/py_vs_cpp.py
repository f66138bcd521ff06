#!/usr/bin/env python3
"""Python's DeepEP table (python/bench_ep.py) against the C++ flagship's (examples/04_moe_ep) in
one run of ep/bench/gpu_run.sh: each figure both give, as Python / C++.

    py_vs_cpp.py FLAGSHIP_LOG PYTHON_LOG
"""
import re
import sys


def results(path):
    """{section name ("== NAME" lines): {figure: value}} from a log's RESULT lines; a section run
    several times (gpu_run.sh python alternates the two programs) gives each figure's mean."""
    runs, cur = {}, None
    for line in open(path, errors="replace"):
        if line.startswith("== "):
            cur = {}
            runs.setdefault(line[3:].strip(), []).append(cur)
        m = re.match(r"RESULT \S+ (\S+) ([0-9.]+)", line)
        if m and cur is not None:
            cur[m.group(1)] = float(m.group(2))
    out = {}
    for name, rs in runs.items():
        keys = {k for r in rs for k in r}
        out[name] = {k: sum(r[k] for r in rs if k in r) / sum(1 for r in rs if k in r) for k in keys}
    return out


def compare(flagship, python):
    """Lines "python / C++, N PEs, FIGURE: P / C us = RATIO" for the logs' shared figures."""
    cpp, py = results(flagship), results(python)
    out = []
    for np in (2, 4):
        # Python on torch's current stream (as eager code runs) against the flagship on its
        # non-blocking stream; where the run has them, Python on a side stream (the flagship's
        # kind), both on the legacy default stream (torch's current one unless set), both with
        # int64 indices (Python's default type) and both with int32 (the flagship's default);
        # bench_ep.py without expert work and without the events of its clock pass (py_variants)
        for pys, cs, what in (("", "", "python / C++"), (" side", "", "python, side stream / C++"),
                              ("", " legacy", "python / C++, both on the legacy stream"),
                              ("", " int64", "python / C++, both with int64 indices"),
                              (" int32", "", "python / C++, both with int32 indices"),
                              (" experts none", "", "python without experts / C++"),
                              (" clock-events off", "", "python, no events in its clock pass / C++")):
            p, c = py.get(f"bench_ep.py np{np} fp8{pys}"), cpp.get(f"ldst np{np} fp8{cs}")
            if (p is None or c is None) and (pys or cs):
                continue
            p, c = p or {}, c or {}
            for k in ("dispatch_us", "combine_us", "dispatch_ahead_us", "combine_ahead_us", "dispatch_kernel_us",
                      "combine_kernel_us", "dispatch_host_us", "combine_host_us", "dispatch_start_spread_us",
                      "dispatch_from_last_start_us", "combine_start_spread_us", "combine_from_last_start_us"):
                if k in c and k in p:  # (a start spread may be 0: no ratio then)
                    ratio = f"{p[k] / c[k]:.2f}" if c[k] > 0 else "-"
                    out.append(f"{what}, {np} PEs, {k}: {p[k]:.1f} / {c[k]:.1f} us = {ratio}")
                else:
                    out.append(f"{what}, {np} PEs, {k}: not measured in both")
    return out


if __name__ == "__main__":
    print("\n".join(compare(*sys.argv[1:3])))
