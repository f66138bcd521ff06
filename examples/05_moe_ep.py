#!/usr/bin/env python3
"""One MoE layer over kishmem.ep, checked against a single-process reference.

    mpirun -np 4 python3 examples/05_moe_ep.py            (or srun --mpi=pmix -n 4 ...)
    torchrun --standalone --nproc_per_node 4 examples/05_moe_ep.py

Each PE holds `tokens` tokens and `experts_per_pe` experts (a two-layer MLP each). A router scores
the experts, node-limited top-k picks them (kishmem.ep.select_topk, a node = one PE's experts),
low_latency_dispatch sends every token to its experts' PEs, each PE runs its experts over the
rows it received (a grouped MLP), and low_latency_combine brings the weighted sum back. The
reference computes the same layer on this PE's tokens alone, with every expert's weights (each
PE can make them all: they come from one seed). Runs on the GPU heap (GPU form of kishmem::ep)
or on a host heap (CPU form; no GPU, or KISHMEM_HEAP=host).
"""
import argparse
import os
import sys

import torch

import kishmem


def expert_weights(e, hidden, ffn, device):
    g = torch.Generator().manual_seed(10_000 + e)
    w1 = torch.randn((hidden, ffn), generator=g) / hidden ** 0.5
    w2 = torch.randn((ffn, hidden), generator=g) / ffn ** 0.5
    return w1.to(device), w2.to(device)


def mlp(rows, w1, w2):
    """An expert: silu(rows @ w1) @ w2 in float32, out in bf16."""
    return (torch.nn.functional.silu(rows.float() @ w1) @ w2).to(torch.bfloat16)


def fp8_round_trip(x):
    """x [T, H] bf16 as FP8 dispatch delivers it: per 128 channels scale = amax / 448, values
    rounded to the nearest E4M3 (ties to even, at most 448), times the scale (float32)."""
    g = x.float().reshape(x.shape[0], -1, 128)
    amax = g.abs().amax(dim=2, keepdim=True).clamp_min(1e-4)
    v = g * (torch.full_like(amax, 448.0) / amax)  # (not 448.0 / amax: torch computes that as reciprocal * 448)
    a = v.abs()
    _, e = torch.frexp(a.clamp_min(2.0 ** -20))  # a = m * 2**e, 0.5 <= m < 1: exponent e - 1, exactly
    step = torch.pow(2.0, ((e - 1).clamp(-6, 8) - 3).float())
    q = torch.minimum(torch.round(a / step) * step, torch.tensor(448.0, device=x.device))
    return (torch.sign(v) * q * (amax / torch.full_like(amax, 448.0))).reshape(x.shape)


def positive(text):
    """An argparse type: an integer of at least 1 (0 hidden units would make the check empty)."""
    v = int(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"{v} is not at least 1")
    return v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tokens", type=positive, default=32)
    ap.add_argument("--hidden", type=positive, default=256)
    ap.add_argument("--ffn", type=positive, default=128)
    ap.add_argument("--topk", type=positive, default=4)
    ap.add_argument("--experts-per-pe", type=positive, default=4)
    ap.add_argument("--max-nodes", type=positive, default=2)
    ap.add_argument("--fp8", action="store_true", help="dispatch FP8 (checked with FP8's tolerance)")
    a = ap.parse_args()

    if "TORCHELASTIC_RUN_ID" in os.environ:  # torchrun: kishmem's PEs meet in torch.distributed's store
        torch.distributed.init_process_group("gloo")
    kishmem.init()
    me, n = kishmem.my_pe(), kishmem.n_pes()
    dev = kishmem.heap_device()
    T, H, K, L = a.tokens, a.hidden, a.topk, a.experts_per_pe
    E = L * n
    experts = [expert_weights(e, H, a.ffn, dev) for e in range(E)]
    g = torch.Generator().manual_seed(me)
    x = torch.randn((T, H), generator=g).to(torch.bfloat16).to(dev)
    router = torch.randn((H, E), generator=torch.Generator().manual_seed(7)).to(dev) / H ** 0.5

    # router: softmax scores, node-limited top-k (at most max_nodes PEs per token)
    scores = torch.softmax(x.float() @ router, dim=1).contiguous()
    topk_idx, topk_weights = kishmem.ep.select_topk(scores, K, min(a.max_nodes, n), L)

    buf = kishmem.ep.Buffer(kishmem.TEAM_WORLD, T, H, E, K, use_fp8=a.fp8)
    recv_x, recv_count, handle, _, _ = buf.low_latency_dispatch(x, topk_idx, T, E, use_fp8=a.fp8)
    rows = kishmem.ep.dequantize(recv_x) if a.fp8 else recv_x  # FP8: e4m3 value * scale per 128 channels
    # grouped expert MLP over the rows each local expert received, written where combine reads in place
    y = buf.get_next_low_latency_combine_buffer(handle)
    counts = recv_count.tolist()
    for le in range(L):
        c = counts[le]
        if c:
            y[le, :c] = mlp(rows[le, :c], *experts[me * L + le])
    out, _, _ = buf.low_latency_combine(y, topk_idx, topk_weights, handle, zero_copy=True)

    # the same layer in this process alone
    ref = torch.zeros((T, H), dtype=torch.float32, device=dev)
    xin = fp8_round_trip(x) if a.fp8 else x
    for t in range(T):
        for k in range(K):
            e = int(topk_idx[t, k])
            ref[t] += topk_weights[t, k] * mlp(xin[t:t + 1], *experts[e])[0].float()
    tol = 0.02
    err = ((out.float() - ref).abs() / (ref.abs() + 0.05)).max().item()
    ok = err <= tol and all(0 <= c <= n * T for c in counts)
    # every (token, expert) row sent by some PE was received by exactly one: the totals agree;
    # and PE 0 learns how many PEs failed their own check (its PASS line speaks for all)
    sums = kishmem.zeros((3,), dtype=torch.int64)
    kishmem.barrier_all()
    kishmem.atomic_fetch_add(sums[0:1], int((topk_idx >= 0).sum()), 0)
    kishmem.atomic_fetch_add(sums[1:2], sum(counts), 0)
    kishmem.atomic_fetch_add(sums[2:3], 0 if ok else 1, 0)
    kishmem.barrier_all()
    failed = int(sums[2]) if me == 0 else 0
    if me == 0 and int(sums[0]) != int(sums[1]):
        print(f"FAIL: PE 0: {int(sums[0])} (token, expert) rows sent but {int(sums[1])} received", flush=True)
        ok = False
    print(f"PE {me}: {T} tokens, {sum(counts)} rows for my {L} experts, largest relative error {err:.4f} "
          f"(tolerance {tol})", flush=True)
    if not ok:
        print(f"FAIL: PE {me}: the MoE layer differs from the single-process reference", flush=True)
    form = "GPU" if buf.on_gpu else "CPU"
    kishmem.barrier_all()
    buf.destroy()
    kishmem.free(sums)
    if me == 0 and ok and not failed:
        print(f"PASS 05_moe_ep on {n} PEs ({form} form, {'FP8' if a.fp8 else 'bf16'} dispatch)", flush=True)
    kishmem.finalize()
    if torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
