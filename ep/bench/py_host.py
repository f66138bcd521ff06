#!/usr/bin/env python3
"""Where kishmem.ep's Python calls spend the host's time: each PE's median host time per call of
low_latency_dispatch / low_latency_combine as a whole ("wrapper"), of the binding's call from
the tensors ("fast": its checks through Python's C API and the launch), of the binding's call
from addresses ("binding": the library's checks and the launch, no tensor looked at), and of each
step of the wrapper's checked path (a call the binding did not take) alone.

    mpirun -np 2 python3 ep/bench/py_host.py [--tokens 128 --hidden 7168 --topk 8 --rounds 60 --stream side]

Each three times: with the GPU kept ahead of the host (a GPU wait queued before each round's
barrier, so a launch never waits for the GPU) and nothing between the calls; "sync" (a
synchronization each round and nothing else: the host waited for an idle GPU before the
calls); and "as bench_ep" (its plain rounds: the experts' torch work between the calls, a
synchronization each round), where the interpreter's, torch's and the driver's code and data are
colder. The two tell the idle GPU's part from the torch work's. `--stream side` runs on a side
stream instead of the current one (bench_ep's option). One line per PE (the PEs share one host:
the 4-PE figures show what the others' processes cost it).
"""
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

    # The rows the experts see (bench_ep's: the most any expert received in a first round).
    _, cnt, h0, _, _ = buf.low_latency_dispatch(x, idx, T, E, use_fp8=fp8)
    rows = max(int(cnt.max()), 1)
    y = buf.get_next_low_latency_combine_buffer(h0)
    barrier()
    buf.low_latency_combine(y, idx, w, h0, zero_copy=True, out=out)

    def rounds(kind, mode):
        """Median host ns per call of (dispatch, combine) over the rounds. kind: 'wrapper' (the
        package's calls), 'fast' (the binding from the tensors: its checks and the launch) or
        'binding' (from addresses: the library's checks and the launch). mode: 'ahead' (the GPU
        ahead of the host, nothing between the calls), 'sync' (a synchronization each round, the
        GPU not ahead) or 'bench_ep' (as its plain rounds: 'sync' and the experts' torch work
        between the calls)."""
        cold = mode != "ahead"
        d, c = [], []
        for r in range(a.rounds + 2):
            if gpu and not cold:
                torch.cuda._sleep(AHEAD_CYCLES)
            barrier()
            t0 = time.perf_counter_ns()
            if kind == "wrapper":
                res = buf.low_latency_dispatch(x, idx, T, E, use_fp8=fp8)
            elif kind == "fast":
                res = buf._b.dispatch_fast(buf, x, idx, False)
            else:
                res = buf._b.dispatch(buf, buf._stream(), xp, ip, i64, T, idx.shape, False)
            t1 = time.perf_counter_ns()
            hd = res[2]
            if mode == "bench_ep":
                bench_ep.experts("received", buf, hd, res[0], y, rows, fp8)
            barrier()
            t2 = time.perf_counter_ns()
            if kind == "wrapper":
                buf.low_latency_combine(y, idx, w, hd, zero_copy=True, out=out)
            elif kind == "fast":
                buf._b.combine_fast(y, idx, w, hd, out, True, False)
            else:
                buf._b.combine(buf._stream(), buf._combine_ptr, wp, op, hd, False)
            t3 = time.perf_counter_ns()
            if gpu and (cold or r % 10 == 9):
                torch.cuda.synchronize()
            if r >= 2:
                d.append(t1 - t0)
                c.append(t3 - t2)
        if gpu:
            torch.cuda.synchronize()
        return med_us(d), med_us(c)

    res = {}
    for mode, label in (("ahead", ""), ("sync", ", sync"), ("bench_ep", ", as bench_ep")):
        for kind in ("wrapper", "fast", "binding"):
            res[kind + label] = rounds(kind, mode)
    y = buf.get_next_low_latency_combine_buffer(None)
    st = steps(buf, x, idx, w, y, out, T)
    cpus = sorted(os.sched_getaffinity(0))
    line = "; ".join(f"{k} {v[0]:.1f} / {v[1]:.1f}" for k, v in res.items())
    step = ", ".join(f"{k} {v / 1e3:.2f}" for k, v in st.items())
    kishmem.barrier_all()
    for p in range(n):
        if p == me:
            print(f"PE {me}/{n} (CPUs {cpus[0]}-{cpus[-1]}, {len(cpus)}; stream {a.stream}): host us per call, dispatch / combine: {line}\n"
                  f"PE {me}/{n} steps (us): {step}", flush=True)
        kishmem.barrier_all()
    buf.destroy()
    kishmem.finalize()


if __name__ == "__main__":
    main()
