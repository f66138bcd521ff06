#!/usr/bin/env python3
"""The flagship's low-latency table (examples/04_moe_ep) from Python, through kishmem.ep.

    mpirun -np 4 python3 python/bench_ep.py [--tokens 128 --hidden 7168 --topk 8 --experts-per-pe 32 --bf16]
                                            [--stream current|side]

Latency as the C++ flagship (examples/04_moe_ep) takes it, so that the two tables compare: from
the call until the data is usable, in the flagship's rounds (dispatch, identity experts,
combine; one synchronization per round, 2 warm-up rounds). GPU: a barrier on the current stream
(kishmem.barrier_all_on_stream) before each call, then CUDA events on that stream around it;
the host queues the call while the barrier and the work before it run, as a training step
queues its work ahead of the GPU. CPU form: a barrier, then the call's wall time. Median over the rounds per PE, the slowest PE's
median. Bandwidth = tokens x topk x hidden x bytes / time (1 byte FP8, 2 bf16), ideal = the same
bytes over a link (no latency term), as kishmem/ep/plan.h. The host's own time per call
(Python, the checks, the launch: the host clock around the call) has a column of its own; the
kernel time (as DeepEP's and the flagship's tables give it: the call's kernels from their first
block's start to their last block's end, Buffer.kernel_times, in a pass of its own with the host ahead) too, and the
latency with the host ahead of the GPU (a GPU wait queued before each barrier, in a pass of its
own: the GPU's time alone, as in a pipelined step or a graph replay, whatever Python costs).
--check compares the first and last round's output with a torch reference (identity experts:
out = sum_k w * dequantized token). The experts (--experts): `received` (the default) the
received rows in bf16 by Buffer.received_bf16, one kernel over rows [0, count) of each expert
as the flagship's experts; `rows` the same in torch ops over the rows any expert received
([L, max count, H]: two kernels, ~3.6x the flagship's bytes); `none` no expert work.
"""
import argparse
import os
import statistics
import sys
import time
import zlib

import torch

# This file sits beside the package's sources (python/kishmem, no extension built there): import
# the built (PYTHONPATH=build/python) or installed package instead.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    sys.path.pop(0)
import kishmem  # noqa: E402

DISP, COMB, DSEND, DHOOK, CSEND, CHOOK, KDISP, KCOMB, HDISP, HCOMB, DAHEAD, CAHEAD = range(12)
# The host ahead of the GPU (a pass of its own, GPU form): torch.cuda._sleep of this many GPU
# cycles (about 100 us at the H200's clock; the flagship waits 100 us by the GPU's timer) before
# each barrier, longer than the host takes to queue the call.
AHEAD_CYCLES = 200000


def shape_args(description, rounds):
    """The flagship's shape options (also ep/bench/py_host.py's) and --rounds."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--hidden", type=int, default=7168)
    ap.add_argument("--topk", type=int, default=8)
    ap.add_argument("--experts-per-pe", type=int, default=32)
    ap.add_argument("--max-nodes", type=int, default=4)
    ap.add_argument("--bf16", action="store_true", help="dispatch bf16 instead of FP8")
    ap.add_argument("--index", choices=("int64", "int32"), default="int64",
                    help="topk_idx's type (int64: DeepEP's; the C++ flagship's default is int32, its --index int64 "
                         "is this default)")
    ap.add_argument("--rounds", type=int, default=rounds)
    ap.add_argument("--stream", choices=("current", "side"), default="current",
                    help="GPU: run on torch's current stream as it is (the legacy default stream unless the caller "
                         "set one, as eager PyTorch code runs) or on a side stream made here (non-blocking, as the "
                         "C++ flagship's)")
    return ap


def _mix(v):
    """examples/04_moe_ep's 32-bit hash of each element of v (int64 holding uint32 values), exact:
    each product is split so that it stays within int64."""
    m = 0xFFFFFFFF

    def mul(v, c):
        return (v * (c & 0xFFFF) + (((v * (c >> 16)) & 0xFFFF) << 16)) & m

    v = v ^ (v >> 16)
    v = mul(v, 0x7FEB352D)
    v = v ^ (v >> 15)
    v = mul(v, 0x846CA68B)
    return v ^ (v >> 16)


def flagship_inputs(pe, T, H, E):
    """PE pe's tokens x [T, H] bf16 and router scores [T, E] float32 exactly as examples/04_moe_ep
    makes them (token_value, score), on the CPU: the two programs route the same tokens to the same
    experts, so their tables compare the same work."""
    t = torch.arange(T, dtype=torch.int64).unsqueeze(1)
    h = torch.arange(H, dtype=torch.int64).unsqueeze(0)
    e = torch.arange(E, dtype=torch.int64).unsqueeze(0)
    x = ((_mix(pe * 7919 + t * 65537 + h * 3) % 2001) - 1000).to(torch.float32) / 500.0
    scores = (_mix(pe * 1000003 + t * 7717 + e * 131) % 100000).to(torch.float32) / 100000.0
    return x.to(torch.bfloat16), scores


def setup(a):
    """kishmem started, this PE's tokens and routing (the flagship's: flagship_inputs), the buffer:
    (me, n, dev, x, idx, w, buf)."""
    kishmem.init()
    me, n = kishmem.my_pe(), kishmem.n_pes()
    dev = kishmem.heap_device()
    if a.stream == "side" and dev.type == "cuda":
        torch.cuda.set_stream(torch.cuda.Stream(dev))
    L = a.experts_per_pe
    x, scores = flagship_inputs(me, a.tokens, a.hidden, L * n)
    x, scores = x.to(dev), scores.to(dev)
    idx, w = kishmem.ep.select_topk(scores, a.topk, min(a.max_nodes, n), L, idx_dtype=getattr(torch, a.index))
    buf = kishmem.ep.Buffer(kishmem.TEAM_WORLD, a.tokens, a.hidden, L * n, a.topk, use_fp8=not a.bf16)
    return me, n, dev, x, idx, w, buf


def experts(how, buf, h, rx, y, rows, fp8):
    """Identity experts written to y ([L, R, H] bf16), as --experts `how` says: `received` rows
    [0, count) of each expert by buf.received_bf16 (one kernel, as the flagship's experts);
    `rows` rows [0, rows) of every expert of recv_x `rx` in torch ops; `none` nothing. FP8 in
    torch: the values converted into y, then scaled there (two kernels and no float32 temporary,
    as near as torch comes to the flagship's one kernel: [L, rows, H] float32
    temporaries would also push the combine's data out of the GPU's L2, which the flagship's
    experts do not)."""
    if how == "received":
        buf.received_bf16(h, out=y)
        return
    if how == "none":
        return
    torch = sys.modules["torch"]
    yr = y[:, :rows]
    if not fp8:
        yr.copy_(rx[:, :rows])
    elif rx[0].dtype == torch.uint8:  # (torch without float8: the codes through a table)
        yr.copy_(kishmem.ep.dequantize((rx[0][:, :rows], rx[1][:, :rows])))
    else:
        L, _, H = y.shape
        yr.copy_(rx[0][:, :rows])
        yr.view(L, rows, H // 128, 128).mul_(rx[1][:, :rows].unsqueeze(-1))


def upper_median(v):
    """The flagship's median of a 1-D tensor: the upper middle."""
    return sorted(v.tolist())[len(v) // 2]


def launch_lag(lt):
    """lt [PEs, 2, rounds] float64: each plain round's host clock at the dispatch's barrier launch
    (ns) and dispatch latency (us). Medians over the rounds of how much later the last PE's host
    launched than the first's (us), of the last one's dispatch latency, and of the others'."""
    t, lat = lt[:, 0], lt[:, 1]
    last = t.argmax(0)
    lag = (t.max(0).values - t.min(0).values) * 1e-3
    mine = lat.gather(0, last.unsqueeze(0)).squeeze(0)
    others = (lat.sum(0) - mine) / max(1, lt.shape[0] - 1)
    return upper_median(lag), upper_median(mine), upper_median(others)


def start_spread(st):
    """st [PEs, 4 x rounds] int64 (each round's dispatch start, end, combine start, end; one GPU's
    global timer): medians over the rounds of how much later the last PE's first block started
    than the first PE's, and of the time from that start to the last PE's end; dispatch, then
    combine (us), as the flagship's start_spread."""
    r = st.reshape(st.shape[0], -1, 2, 2)  # [PE, round, call, start/end]
    start, end = r[..., 0], r[..., 1]
    last = start.max(0).values
    spread = (last - start.min(0).values).double() * 1e-3
    from_last = (end.max(0).values - last).double() * 1e-3
    return [upper_median(spread[:, 0]), upper_median(from_last[:, 0]), upper_median(spread[:, 1]),
            upper_median(from_last[:, 1])]


def main():
    ap = shape_args(__doc__.split("\n")[0], 50)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--clock-events", choices=("on", "off"), default="on",
                    help="the kernel clock's pass: CUDA events recorded around each call as in the flagship's (on), "
                         "or none (off: each call follows its barrier on the stream with nothing between)")
    ap.add_argument("--experts", choices=("received", "rows", "none"), default="received",
                    help="received: identity experts by Buffer.received_bf16 over each expert's received rows (the "
                         "flagship's traffic); rows: the same in torch ops over the rows any expert received; none: no "
                         "expert work between the calls (the combine sends what the buffer holds: what the experts' "
                         "traffic costs the calls around it; no --check)")
    a = ap.parse_args()
    if a.check and a.experts == "none":
        ap.error("--check needs expert work (--experts received or rows)")
    me, n, dev, x, idx, w, buf = setup(a)
    gpu = dev.type == "cuda"
    T, H, K, L = a.tokens, a.hidden, a.topk, a.experts_per_pe
    E, fp8 = L * n, not a.bf16

    # As the flagship: on the GPU the barrier is on the stream, so the PEs' kernels start together.
    sync = kishmem.barrier_all_on_stream if gpu else kishmem.barrier_all

    def barrier(ahead=False):
        """The barrier before a timed call; with the host ahead (GPU), a GPU wait queued before it."""
        if ahead and gpu:
            torch.cuda._sleep(AHEAD_CYCLES)
        sync()

    # Marks as the flagship's: CUDA events on the stream (GPU), the host clock (CPU form).
    if gpu:
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(8)]
        # record(stream): without it each record looks the current stream up (4-6 us of host
        # time on the H200's host, between the barrier and the call: the flagship's costs ~1 us)
        stream = torch.cuda.current_stream()
        mark = lambda i: ev[i].record(stream)  # noqa: E731
        span = lambda i, j: ev[i].elapsed_time(ev[j]) * 1e3  # noqa: E731
    else:
        ct = [0.0] * 8
        mark = lambda i: ct.__setitem__(i, time.perf_counter())  # noqa: E731
        span = lambda i, j: (ct[j] - ct[i]) * 1e6  # noqa: E731

    def call(i, fn):
        """mark i, fn(), mark i + 1; fn's result and the host's own time in it (us)."""
        mark(i)
        t0 = time.perf_counter()
        r = fn()
        host = (time.perf_counter() - t0) * 1e6
        mark(i + 1)
        return r, host

    # combine writes into one output tensor made here, as the flagship's into its own buffer
    # (without out=, each call also allocates it through torch's caching allocator)
    out_buf = torch.empty((T, H), dtype=torch.bfloat16, device=dev)
    rows = buf.num_recv_rows  # the first round's experts see every row; after it, the most any expert received
    times = [[] for _ in range(12)]
    stamps = []  # the kernel clock's pass: each round's dispatch start, end, combine start, end (ns)
    ok = True
    # The flagship's rounds (examples/04_moe_ep): 2 warm-up rounds, then per round a barrier
    # before each call, marks around it, and one synchronization at the round's end, so the host
    # queues the experts' work and the combine while the GPU still runs the dispatch. A pass
    # with the receive hook (send-only calls, then the hooks) follows the plain one.
    # The host clock (one for every PE on this host) as each plain round's barrier before the
    # dispatch is launched: which PE's host came last to it, beside each PE's dispatch latency.
    launched = []
    for hooked, ahead in ((False, False), (True, False)) + (((False, True),) if gpu else ()):
        for r in range(a.rounds + 2):
            if not hooked and not ahead and r >= 2:
                launched.append(time.perf_counter_ns())
            barrier(ahead)
            (rx, cnt, h, _, dhook), hd = call(
                0, lambda: buf.low_latency_dispatch(x, idx, T, E, use_fp8=fp8, return_recv_hook=hooked))
            if hooked:
                barrier()
                call(2, dhook)
            # identity experts, over the rows any expert received (as the flagship's experts, which
            # write rows [0, count) only: all R rows of every expert would be [L, R, H] bf16 written
            # each round, 117 MB at 2 PEs, and on one GPU the combine's reads would then miss its L2)
            y = buf.get_next_low_latency_combine_buffer(h)
            experts(a.experts, buf, h, rx, y, rows, fp8)
            barrier(ahead)
            (out, _, chook), hc = call(
                4, lambda: buf.low_latency_combine(y, idx, w, h, zero_copy=True, return_recv_hook=hooked, out=out_buf))
            if hooked:
                barrier()
                call(6, chook)
            if gpu:
                torch.cuda.synchronize()
            if r == 0 and not hooked and not ahead:  # the routing is the same every round
                rows = max(int(cnt.max()), 1)
            if a.check and not hooked and r in (0, a.rounds + 1):
                ref = torch.zeros((T, H), device=dev)
                for k in range(K):
                    ref += torch.where((idx[:, k] >= 0).unsqueeze(1), w[:, k:k + 1] * x.float(),
                                       torch.zeros_like(ref))
                # FP8 keeps 3 mantissa bits: at most 1/16 of each value, plus bf16 rounding
                bound = ((w.abs().sum(1, keepdim=True) * x.float().abs()) * (1 / 16 if fp8 else 0) + ref.abs() * 0.016
                         + 1e-3)
                if not bool(((out.float() - ref).abs() <= bound).all()):
                    print(f"FAIL: PE {me}: round {r}: combine output differs from the reference beyond FP8/bf16 "
                          "rounding", flush=True)
                    ok = False
            if r < 2:
                continue
            if ahead:
                times[DAHEAD].append(span(0, 1))
                times[CAHEAD].append(span(4, 5))
            elif hooked:
                for slot, (i, j) in ((DSEND, (0, 1)), (DHOOK, (2, 3)), (CSEND, (4, 5)), (CHOOK, (6, 7))):
                    times[slot].append(span(i, j))
            else:
                times[DISP].append(span(0, 1))
                times[COMB].append(span(4, 5))
                times[HDISP].append(hd)
                times[HCOMB].append(hc)
    # The kernels' own time, in a pass of its own (the clock's stamps stay out of the rounds above),
    # with the host ahead as the flagship's (the PEs' kernels start as their barrier ends).
    # As the flagship's pass: 2 warm-up rounds, the marks around each call (--clock-events off
    # leaves them out: the calls then follow their barrier on the stream with nothing between).
    clocked_call = call if a.clock_events == "on" else (lambda i, fn: (fn(), 0.0))
    buf.set_kernel_clock(True)
    for r in range(a.rounds + 2):
        barrier(ahead=True)
        (rx, cnt, h, _, _), _ = clocked_call(0, lambda: buf.low_latency_dispatch(x, idx, T, E, use_fp8=fp8))
        y = buf.get_next_low_latency_combine_buffer(h)
        experts(a.experts, buf, h, rx, y, rows, fp8)  # (as the flagship's pass: the combine then finds the rows where the experts left them)
        barrier(ahead=True)
        clocked_call(4, lambda: buf.low_latency_combine(y, idx, w, h, zero_copy=True))
        if gpu:
            torch.cuda.synchronize()
        if r < 2:
            continue
        k = buf.kernel_times()
        times[KDISP].append(k["dispatch_us"])
        times[KCOMB].append(k["combine_us"])
        stamps += [k["dispatch_start_ns"], k["dispatch_end_ns"], k["combine_start_ns"], k["combine_end_ns"]]
    buf.set_kernel_clock(False)
    # Every PE's stamps and its GPU (one global timer only where all are on one GPU): start_spread.
    gpu_id = zlib.crc32(str(getattr(torch.cuda.get_device_properties(dev), "uuid", "")).encode()) if gpu else 0
    # (zeros fills on the GPU's stream and the host's barrier does not wait for it: the stream is
    # synchronized first, so no peer's put lands before the zeros; likewise the .to(dev) copies
    # before the host's puts read them)
    allst = kishmem.zeros((n, len(stamps) + 1), dtype=torch.int64)
    med = torch.tensor([statistics.median(v) if v else 0.0 for v in times], dtype=torch.float64)
    allmed = kishmem.zeros((n, len(times)), dtype=torch.float64)
    # each plain round's launch time and dispatch latency (rounds in the same order on every PE)
    alllate = kishmem.zeros((n, 2, len(launched)), dtype=torch.float64)
    mine_st, mine_med = torch.tensor(stamps + [gpu_id], dtype=torch.int64).to(dev), med.to(dev)
    mine_late = torch.tensor([[float(t) for t in launched], times[DISP]], dtype=torch.float64).to(dev)
    if gpu:
        torch.cuda.synchronize()
    kishmem.barrier_all()
    kishmem.put(allst[me], mine_st, 0)
    kishmem.put(allmed[me], mine_med, 0)
    kishmem.put(alllate[me], mine_late, 0)
    kishmem.barrier_all()
    if me == 0:
        worst = allmed.cpu().max(0).values.tolist()
        xb = 1 if fp8 else 2
        bw = lambda b, us: T * K * H * b / (us * 1e-6) / 1e9  # noqa: E731
        ideal = lambda b, gbps: T * K * H * b / (gbps * 1e9) * 1e6  # noqa: E731
        print(f"kishmem.ep from Python: {'GPU' if buf.on_gpu else 'CPU'} form, {n} PEs, {T} tokens/PE, hidden {H}, "
              f"top-{K} of {E} experts ({L} per PE, at most {min(a.max_nodes, n)} nodes), {'FP8' if fp8 else 'BF16'} "
              f"dispatch, bf16 combine; {a.rounds} rounds, slowest PE's median"
              + (f"; on {'a side stream' if a.stream == 'side' else 'the current stream'} (handle {stream.cuda_stream:#x})"
                 if gpu else "") + "\n")
        print("| EP size | dispatch latency | dispatch kernel | dispatch bandwidth | combine latency | combine kernel | "
              "combine bandwidth | ideal @ CX7 50 GB/s (dispatch / combine) |\n"
              "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        print(f"| {n} | {worst[DISP]:.1f} us | {worst[KDISP]:.1f} us | {bw(xb, worst[DISP]):.2f} GB/s | {worst[COMB]:.1f} us | "
              f"{worst[KCOMB]:.1f} us | {bw(2, worst[COMB]):.2f} GB/s | {ideal(xb, 50):.1f} / {ideal(2, 50):.1f} us |")
        print(f"RESULT ep_python dispatch_us {worst[DISP]:.2f}\nRESULT ep_python combine_us {worst[COMB]:.2f}\n"
              f"RESULT ep_python dispatch_kernel_us {worst[KDISP]:.2f}\nRESULT ep_python combine_kernel_us {worst[KCOMB]:.2f}\n"
              f"RESULT ep_python dispatch_host_us {worst[HDISP]:.2f}\nRESULT ep_python combine_host_us {worst[HCOMB]:.2f}")
        if gpu:  # (the CPU form's latency is the host's time)
            print(f"\nthe host's own time per call (Python, the checks, the launch): dispatch {worst[HDISP]:.1f} us, "
                  f"combine {worst[HCOMB]:.1f} us")
            print(f"latency with the host ahead (torch.cuda._sleep({AHEAD_CYCLES}) queued before each barrier: the GPU's "
                  f"time alone, as in a pipelined step): dispatch {worst[DAHEAD]:.1f} us, combine {worst[CAHEAD]:.1f} us")
            print(f"RESULT ep_python dispatch_ahead_us {worst[DAHEAD]:.2f}\nRESULT ep_python combine_ahead_us {worst[CAHEAD]:.2f}")
        # each PE's own medians beside the slowest (as the flagship prints them)
        per = allmed.cpu().tolist()
        print(f"each PE's median, kernel (dispatch / combine)"
              f"{', latency, latency with the host ahead, host time per call' if gpu else ''}: "
              + "; ".join(f"PE {p} {v[KDISP]:.1f} / {v[KCOMB]:.1f}"
                          + (f", {v[DISP]:.1f} / {v[COMB]:.1f}, {v[DAHEAD]:.1f} / {v[CAHEAD]:.1f}, {v[HDISP]:.1f} / {v[HCOMB]:.1f}"
                             if gpu else "") + " us" for p, v in enumerate(per)))
        if gpu and n > 1 and len(launched):
            lag, last_lat, other_lat = launch_lag(alllate.cpu())
            print(f"the plain rounds' barriers before the dispatch (medians over the rounds): the last PE's host launched its "
                  f"barrier {lag:.1f} us after the first PE's; that PE's dispatch latency {last_lat:.1f} us, the other PEs' "
                  f"{other_lat:.1f} us")
        st = allst.cpu()
        if gpu and n > 1 and len(stamps) and bool((st[:, -1] == st[0, -1]).all()) and int(st[0, -1]) != 0:
            sp = start_spread(st[:, :-1])
            print(f"the PEs' kernels in the kernel clock's pass (medians over its rounds): the last PE's first block started "
                  f"{sp[0]:.1f} / {sp[2]:.1f} us after the first PE's (dispatch / combine); from that start to the last PE's "
                  f"end {sp[1]:.1f} / {sp[3]:.1f} us")
            print(f"RESULT ep_python dispatch_start_spread_us {sp[0]:.2f}\nRESULT ep_python dispatch_from_last_start_us "
                  f"{sp[1]:.2f}\nRESULT ep_python combine_start_spread_us {sp[2]:.2f}\n"
                  f"RESULT ep_python combine_from_last_start_us {sp[3]:.2f}")
        print("\nwith the receive hook (send-only call, then the hook):")
        print("| EP size | dispatch send | dispatch hook | combine send | combine hook |\n| ---: | ---: | ---: | ---: | ---: |")
        print(f"| {n} | {worst[DSEND]:.1f} us | {worst[DHOOK]:.1f} us | {worst[CSEND]:.1f} us | {worst[CHOOK]:.1f} us |")
    buf.destroy()  # (collective, as the free and the finalize)
    kishmem.free(allmed)
    kishmem.free(allst)
    kishmem.finalize()
    if me == 0 and ok:
        print(f"PASS bench_ep on {n} PEs", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
