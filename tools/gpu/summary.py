#!/usr/bin/env python3
"""tools/gpu/summary.py PASS_DIR: the GPU pass's summary (markdown) from the stages' files under
PASS_DIR (tools/gpu/all.sh writes them): one line per stage (result, seconds, what failed), then
the headline figures.  docs/gpu-status.md is this output of the latest pass."""
import os
import re
import subprocess
import sys


def read(*parts):
    try:
        with open(os.path.join(*parts), errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def lines(text, pattern):
    return [l for l in text.splitlines() if re.search(pattern, l)]


def ctest_detail(text):
    got = lines(text, r"tests passed")
    failed = [re.sub(r"^\s*\d+ - ", "", l).strip() for l in lines(text, r"^\s+\d+ - .*\((Failed|Timeout|Not Run)")]
    d = got[0].strip() if got else "no ctest summary"
    return d + ("; failed: " + ", ".join(failed) if failed else "")


def detail(stage, d):
    if stage == "build":
        errs = lines(read(d, "console.txt"), r"error|FAIL|note:")
        return "; ".join(errs[:3])
    if stage == "tests":
        return ctest_detail(read(d, "ctest.txt")) + " (traps: " + ctest_detail(read(d, "ctest_nic_error.txt")) + ")"
    if stage in ("progress", "sanitize"):
        runs = read(d, "runs.txt").splitlines()
        bad = [l for l in runs if l.startswith("FAIL")]
        ok = sum(l.startswith("PASS") for l in runs)
        return f"{ok} of {ok + len(bad)} runs pass" + ("; " + "; ".join(bad) if bad else "")
    if stage in ("ep", "eppy"):  # (eppy: gpu_run.sh python, no tests of its own)
        fails = lines(read(d, "console.txt"), r"^FAIL|failed")
        what = ctest_detail(read(d, "ctest.txt")) if stage == "ep" else "Python's table beside the flagship's"
        return what + ("; " + "; ".join(fails) if fails else "")
    if stage == "hosts":
        s = lines(read(d, "console.txt"), r"^(PASS|FAIL) run_hosts")
        return s[0] if s else "no summary"
    if stage == "bench":
        fails = lines(read(d, "console.txt"), r"failed|not built")
        return "; ".join(fails) if fails else "kishmem and NVSHMEM both ran"
    return ""


def commit(pass_dir):
    """KISHMEM_COMMIT, else the checkout's HEAD, said to be not the tree that ran where tracked
    files differ from it (a tree copied over an older checkout)."""
    c = os.environ.get("KISHMEM_COMMIT", "")
    if c:
        return c
    git = ["git", "-C", os.path.dirname(os.path.abspath(pass_dir))]
    try:
        c = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        changed = subprocess.run(git + ["status", "--porcelain", "--untracked-files=no"], capture_output=True,
                                 text=True).stdout.splitlines()
    except OSError:
        return "unknown"
    if c and changed:
        c += f" with {len(changed)} tracked files changed (not that commit's tree: set KISHMEM_COMMIT)"
    return c or "unknown"


def main():
    d = sys.argv[1]
    status = [l.split("|") for l in read(d, "status.txt").splitlines() if l.count("|") == 2]
    env = read(d, "build", "env.txt").splitlines()
    total = sum(int(s[2]) for s in status)
    ok = all(s[1] == "PASS" for s in status)
    print("# GPU pass")
    print()
    print(f"commit: {commit(d)}")
    print(f"date: {env[0] if env else 'unknown'}")
    print(f"machine: {env[1] if len(env) > 1 else 'unknown'}; {env[2] if len(env) > 2 else ''}; "
          f"{env[3] if len(env) > 3 else ''}")
    print(f"result: {'every stage PASS' if ok else 'FAIL: ' + ', '.join(s[0] for s in status if s[1] != 'PASS')}"
          f" ({total} s)")
    print()
    print("| stage | result | seconds | detail |")
    print("| --- | --- | ---: | --- |")
    for name, verdict, secs in status:
        text = detail(name, os.path.join(d, name)).replace("|", "/")
        print(f"| {name} | {verdict} | {secs} | {text[:600]} |")

    tests = lines(read(d, "tests", "ctest.txt"), r"Test +#")
    if tests:
        print("\n## GPU tests\n```")
        print("\n".join(re.sub(r"^\s*\d+/\d+ ", "", t).strip() for t in tests))
        print("```")
    runs = read(d, "progress", "runs.txt").strip()
    if runs:
        print("\n## Forward progress\n```\n" + runs + "\n```")
    for st in ("ep", "eppy"):
        flag = read(d, st, "flagship.txt")
        if not flag:
            continue
        print(f"\n## kishmem::ep flagship (04_moe_ep){' and Python (stage eppy)' if st == 'eppy' else ''}\n```")
        print("\n".join(lines(flag, r"^== |^\| [0-9]|^the PEs' kernels|PASS|FAIL")))
        nv = lines(read(d, st, "nvshmem.txt"), r"RESULT")
        if nv:
            print("NVSHMEM alltoallmem, same bytes:\n" + "\n".join(nv))
        if read(d, st, "python.txt"):  # Python's table against the flagship's (ep/bench/py_vs_cpp.py)
            sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "ep", "bench"))
            import py_vs_cpp
            print("\n".join(py_vs_cpp.compare(os.path.join(d, st, "flagship.txt"), os.path.join(d, st, "python.txt"))))
        print("```")
    launch = lines(read(d, "ep", "launch_cost.txt"), r"^\||^\(|error|failed")
    if launch:  # ep/bench/launch_cost.cu
        print("\n## Outside a kernel of the dispatch's shape (ep/bench/launch_cost.cu, one process)\n")
        print("\n".join(launch))
    hosts = read(d, "hosts", "summary.txt").strip()
    if hosts:
        print("\n## Two simulated hosts x 2 PEs\n```\n" + hosts + "\n```")
    perf = read(d, "bench", "gpu_perf.md").strip()
    if perf:
        print("\n## Device benchmark against NVSHMEM (same source, 2 PEs, one GPU under MPS)\n")
        print(perf)
    san = read(d, "sanitize", "runs.txt").strip()
    if san:
        print("\n## compute-sanitizer, 1 PE\n```\n" + san + "\n```")


if __name__ == "__main__":
    main()
