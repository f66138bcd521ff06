#!/usr/bin/env python3
"""Where kishmem.ep's Python calls spend the host's time: each PE's median host time per call of
low_latency_dispatch / low_latency_combine as a whole (the binding checks the tensors), of the
binding's call from addresses alone (the library's checks and the launch, no tensor looked at),
and of each step of the wrapper's checked path (a call the binding did not take) alone.

    mpirun -np 2 python3 ep/bench/py_host.py [--tokens 128 --hidden 7168 --topk 8 --rounds 60]

The GPU is kept ahead of the host (a GPU wait queued before each round's barrier), so a launch
never waits for the GPU; one line per PE (the PEs share one host: the 4-PE figures show what
the others' processes cost it).
"""
import gc
import importlib.util
import os
import statistics
import sys
import time

import torch

if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    sys.path.pop(0)
import kishmem  # noqa: E402

# python/bench_ep.py's options and setup (loaded by path: python/ also holds the package's
# sources, which must not shadow the built package).
_spec = importlib.util.spec_from_file_location(
    "bench_ep", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "bench_ep.py"))
bench_ep = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_ep)

AHEAD_CYCLES = 400000  # about 200 us of GPU time per round, more than the host takes to queue it


def med_us(samples):
    return statistics.median(samples) / 1e3


def steps(buf, x, idx, w, y, out, T):
    """Each Python step of the wrapper alone, ns per step (median of 2000)."""
    probes = {
        "stream": lambda: buf._stream(),
        "check x": lambda: buf._tensor(x, "x", buf._bf16, (T, buf.hidden)),
        "check idx": lambda: buf._tensor(idx, "topk_idx", buf._idx, (T, buf.num_topk)),
        "check y": lambda: buf._tensor(y, "x", buf._bf16, buf._x_shape),
        "check w": lambda: buf._tensor(w, "topk_weights", buf._f32, (T, buf.num_topk)),
        "data_ptr x4": lambda: (x.data_ptr(), idx.data_ptr(), w.data_ptr(), out.data_ptr()),
        "event": lambda: buf._event(False),
        "perf_counter": time.perf_counter_ns,
    }
    res = {}
    for name, fn in probes.items():
        s = []
        for _ in range(2000):
            t0 = time.perf_counter_ns()
            fn()
            s.append(time.perf_counter_ns() - t0)
        res[name] = statistics.median(s)
    return res


def main():
    a = bench_ep.shape_args(__doc__.split("\n")[0], 60).parse_args()
    me, n, dev, x, idx, w, buf = bench_ep.setup(a)
    gpu = dev.type == "cuda"
    T, H, E, fp8 = a.tokens, a.hidden, buf.num_experts, not a.bf16
    out = torch.empty((T, H), dtype=torch.bfloat16, device=dev)
    barrier = kishmem.barrier_all_on_stream if gpu else kishmem.barrier_all
    xp, ip, wp, op = x.data_ptr(), idx.data_ptr(), w.data_ptr(), out.data_ptr()
    i64 = idx.dtype is torch.int64

    def rounds(kind, gc_on):
        """Median host ns per call of (dispatch, combine) over the rounds, `kind` 'wrapper' or 'binding'."""
        (gc.enable if gc_on else gc.disable)()
        d, c = [], []
        for r in range(a.rounds + 2):
            if gpu:
                torch.cuda._sleep(AHEAD_CYCLES)
            barrier()
            t0 = time.perf_counter_ns()
            if kind == "wrapper":
                _, _, hd, _, _ = buf.low_latency_dispatch(x, idx, T, E, use_fp8=fp8)
            else:
                hc = buf._b.dispatch(buf, buf._stream(), xp, ip, i64, T, idx.shape, False)[-1]
            t1 = time.perf_counter_ns()
            y = buf.get_next_low_latency_combine_buffer(None)
            barrier()
            t2 = time.perf_counter_ns()
            if kind == "wrapper":
                buf.low_latency_combine(y, idx, w, hd, zero_copy=True, out=out)
            else:
                buf._b.combine(buf._stream(), buf._combine_ptr, wp, op, hc, False)
            t3 = time.perf_counter_ns()
            if r % 10 == 9 and gpu:
                torch.cuda.synchronize()
            if r >= 2:
                d.append(t1 - t0)
                c.append(t3 - t2)
        if gpu:
            torch.cuda.synchronize()
        gc.enable()
        return med_us(d), med_us(c)

    res = {}
    for gc_on in (True, False):
        for kind in ("wrapper", "binding"):
            res[f"{kind}{'' if gc_on else ' (gc off)'}"] = rounds(kind, gc_on)
    y = buf.get_next_low_latency_combine_buffer(None)
    st = steps(buf, x, idx, w, y, out, T)
    cpus = sorted(os.sched_getaffinity(0))
    line = "; ".join(f"{k} {v[0]:.1f} / {v[1]:.1f}" for k, v in res.items())
    step = ", ".join(f"{k} {v / 1e3:.2f}" for k, v in st.items())
    kishmem.barrier_all()
    for p in range(n):
        if p == me:
            print(f"PE {me}/{n} (CPUs {cpus[0]}-{cpus[-1]}, {len(cpus)}): host us per call, dispatch / combine: {line}\n"
                  f"PE {me}/{n} steps (us): {step}", flush=True)
        kishmem.barrier_all()
    buf.destroy()
    kishmem.finalize()


if __name__ == "__main__":
    main()
