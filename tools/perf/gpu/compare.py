#!/usr/bin/env python3
"""Pairs the RESULT lines of the kishmem and NVSHMEM runs of shmem_gpu_perf into one table."""
import sys

rows = {}
for path in sys.argv[1:]:
    for line in open(path):
        if not line.startswith("RESULT "):
            continue
        _, impl, test, size, value, unit = line.split()
        rows.setdefault((test, int(size), unit), {})[impl] = float(value)

print(f"| test | bytes | kishmem | NVSHMEM | unit | kishmem / NVSHMEM |")
print(f"| --- | ---: | ---: | ---: | --- | ---: |")
for (test, size, unit), v in sorted(rows.items(), key=lambda kv: (kv[0][0], kv[0][1])):
    k, n = v.get("kishmem"), v.get("nvshmem")
    ratio = f"{k / n:.2f}" if k is not None and n else "-"
    fmt = lambda x: "-" if x is None else (f"{x:.3f}" if unit == "us" else f"{x:.2f}")
    better = " (lower is better)" if unit == "us" else ""
    print(f"| {test} | {size} | {fmt(k)} | {fmt(n)} | {unit} | {ratio}{better} |")
