#!/usr/bin/env bash
# tests/ep/expect_fail.sh REGEX COMMAND...: runs COMMAND, shows its output, and passes when it
# exits non-zero and its output matches the extended regular expression REGEX.
set -uo pipefail
re=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [[ $rc -eq 0 ]]; then echo "FAIL: exit status 0, expected non-zero"; exit 1; fi
if [[ $rc -eq 124 || $rc -eq 137 ]]; then echo "FAIL: timed out"; exit 1; fi
if ! grep -Eq -- "$re" <<<"$out"; then echo "FAIL: no line matches: $re"; exit 1; fi
echo "PASS expect_fail (exit status $rc)"
