"""Independent references for kishmem.ep's tests: inputs every PE can recompute for any PE, FP8
E4M3 quantization (nearest even, saturating at 448, one float32 scale per 128 channels) and
node-limited top-k, written from their definitions with NumPy."""
import numpy as np
import torch


def inputs(pe, num_tokens, hidden, topk, num_experts, round_no, drop=True):
    """x [T, H] bf16, topk_idx [T, K] int64 (distinct experts, some -1), weights [T, K] float32."""
    g = torch.Generator().manual_seed(1000 * round_no + pe)
    x = (torch.randn((num_tokens, hidden), generator=g) * (1 + torch.arange(num_tokens)[:, None] % 5)).to(torch.bfloat16)
    idx = torch.stack([torch.randperm(num_experts, generator=g)[:topk] for _ in range(num_tokens)]) if num_tokens else \
        torch.zeros((0, topk), dtype=torch.int64)
    if drop and num_tokens:
        idx[torch.rand((num_tokens, topk), generator=g) < 0.15] = -1
    w = torch.rand((num_tokens, topk), generator=g, dtype=torch.float32)
    return x, idx.to(torch.int64), w


def _e4m3_table():
    t = np.zeros(256, dtype=np.float32)
    for c in range(256):
        e, m = (c >> 3) & 15, c & 7
        if (c & 0x7F) == 0x7F:
            v = np.nan
        elif e == 0:
            v = m / 512.0
        else:
            v = (1 + m / 8.0) * 2.0 ** (e - 7)
        t[c] = -v if c & 0x80 else v
    return t


E4M3 = _e4m3_table()


def e4m3_round(v):
    """float32 values -> the nearest E4M3 values (ties to even), saturating at +-448."""
    v = np.asarray(v, dtype=np.float64)
    a = np.abs(v)
    e = np.floor(np.log2(np.maximum(a, 2.0 ** -20)))
    e = np.clip(e, -6, 8)
    step = 2.0 ** (e - 3)
    q = np.round(a / step) * step  # np.round: half to even
    q = np.minimum(q, 448.0)
    return (np.sign(v) * q).astype(np.float32)


def quantize(x_bf16):
    """[T, H] bf16 -> (dequantized-before-scale E4M3 values [T, H] float32, scales [T, H/128] float32)."""
    x = x_bf16.float().numpy().astype(np.float32)
    T, H = x.shape
    g = x.reshape(T, H // 128, 128)
    amax = np.maximum(np.abs(g).max(axis=2), np.float32(1e-4)).astype(np.float32)
    inv = (np.float32(448.0) / amax).astype(np.float32)
    q = e4m3_round((g * inv[:, :, None]).astype(np.float32)).reshape(T, H)
    return q, (amax / np.float32(448.0)).astype(np.float32)


def decode_fp8(t):
    """A received FP8 tensor (float8_e4m3fn or uint8) -> float32 NumPy values."""
    return E4M3[t.contiguous().view(torch.uint8).numpy()]


def select_topk(scores, K, max_nodes, epn):
    """Node-limited top-k: node score = sum of its two best experts (its one when epn is 1);
    best max_nodes nodes (ties: lower node), then the K best experts there (ties: lower expert)."""
    s = scores.numpy()
    T, E = s.shape
    idx = np.zeros((T, K), dtype=np.int64)
    w = np.zeros((T, K), dtype=np.float32)
    for t in range(T):
        nodes = s[t].reshape(E // epn, epn)
        top2 = np.sort(nodes, axis=1)[:, ::-1][:, :min(2, epn)].sum(axis=1)
        order = sorted(range(E // epn), key=lambda n: (-top2[n], n))[:max_nodes]
        allowed = [e for n in order for e in range(n * epn, (n + 1) * epn)]
        best = sorted(allowed, key=lambda e: (-s[t, e], e))[:K]
        idx[t] = best
        w[t] = s[t, best]
    return idx, w
