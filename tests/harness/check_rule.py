#!/usr/bin/env python3
"""check_rule.py CTEST BUILD_DIR: the rule of tests/README.md over every test registered in
BUILD_DIR (read with `ctest --show-only=json-v1`):
  - no test passes on PASS_REGULAR_EXPRESSION: CTest then ignores the exit status, so a program
    that crashes after printing its pass line would pass (tests/launch.sh --pass checks both);
  - WILL_FAIL only on the harness's own self-tests (harness.*): WILL_FAIL passes on any failure,
    a crash or a hang included (a run that must fail is --status nonzero plus its message);
  - a test that starts tests/launch.sh gives it --pass (else nobody reads the output), and no
    test starts mpirun or srun itself.
Prints the offending tests and "FAIL: ...", or "PASS harness.rule ...".
"""
import json
import os
import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        print("usage: check_rule.py CTEST BUILD_DIR", file=sys.stderr)
        return 2
    ctest, build = sys.argv[1:]
    r = subprocess.run([ctest, "--test-dir", build, "--show-only=json-v1"], capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout + r.stderr)
        print(f"FAIL: {ctest} --show-only=json-v1 exited with status {r.returncode}")
        return 1
    tests = json.loads(r.stdout).get("tests", [])
    bad = []
    for t in tests:
        name = t["name"]
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        cmd = t.get("command", [])
        if "PASS_REGULAR_EXPRESSION" in props:
            bad.append(f"{name}: PASS_REGULAR_EXPRESSION ignores the exit status: use kishmem_checked_test")
        if props.get("WILL_FAIL") and not name.startswith("harness."):
            bad.append(f"{name}: WILL_FAIL passes on any failure: use kishmem_checked_test STATUS nonzero PASS message")
        if cmd:
            exe = os.path.basename(cmd[0])
            if cmd[0].endswith("tests/launch.sh") and "--pass" not in cmd:
                bad.append(f"{name}: tests/launch.sh without --pass: use kishmem_checked_test")
            if exe in ("mpirun", "mpiexec", "srun"):
                bad.append(f"{name}: starts {exe} itself: use kishmem_checked_test LAUNCHER {exe}")
    for b in bad:
        print(b)
    if bad:
        print(f"FAIL: {len(bad)} of {len(tests)} tests break the rule of tests/README.md")
        return 1
    if len(tests) < 10:
        print(f"FAIL: only {len(tests)} tests registered in {build}: is it the right build directory?")
        return 1
    print(f"PASS harness.rule: {len(tests)} tests, none passes on PASS_REGULAR_EXPRESSION alone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
