"""The package as pip installed it (python/tests/pip_install.sh), started by the launcher: it is
that copy that is imported, the libraries it loads are the ones bundled with it (kishmem/_libs,
not a build tree's), and a ring of puts, a torch tensor over the symmetric heap and one
kishmem.ep round (CPU form) give the right values."""
import os
import sys

import torch

target = os.environ["KISHMEM_PIP_TARGET"]
import kishmem  # noqa: E402
import kishmem.ep  # noqa: E402


def fail(what):
    print(f"FAIL: PE {kishmem.my_pe() if kishmem.initialized() else '?'}: {what}", flush=True)
    sys.exit(1)


kishmem.init()
me, n = kishmem.my_pe(), kishmem.n_pes()
if not os.path.realpath(kishmem.__file__).startswith(os.path.realpath(target) + os.sep):
    fail(f"imported {kishmem.__file__}, not the copy in {target}")
libs = os.path.realpath(os.path.join(target, "kishmem", "_libs"))
with open("/proc/self/maps") as maps:
    loaded = {os.path.realpath(line.split()[-1]) for line in maps if "libkishmem" in line}
stray = [p for p in loaded if not p.startswith(libs + os.sep)]
if not loaded or stray:
    fail(f"libkishmem loaded from {sorted(loaded) or 'nowhere'}, expected {libs}")

x = kishmem.zeros((n,), dtype=torch.int64)
kishmem.barrier_all()  # (zeros fills this PE's part only: every PE's before a peer writes)
kishmem.put(x[me:me + 1], torch.tensor([100 + me]), (me + 1) % n)
kishmem.barrier_all()
left = (me - 1) % n
if int(x[left]) != 100 + left:
    fail(f"x[{left}] = {int(x[left])} after the ring of puts, expected {100 + left}")
kishmem.free(x)

# One kishmem.ep round: every token to experts (t + j) % E, weight 1 / K: combine gives back x.
T, H, K, E = 4, 128, 2, 2 * n
buf = kishmem.ep.Buffer(num_max_dispatch_tokens_per_rank=T, hidden=H, num_experts=E, num_topk=K, use_fp8=False)
xs = (torch.arange(T * H, dtype=torch.float32).reshape(T, H) / 64 + me).to(torch.bfloat16)
idx = torch.tensor([[(t + j) % E for j in range(K)] for t in range(T)], dtype=torch.int64)
w = torch.full((T, K), 1.0 / K, dtype=torch.float32)
recv_x, recv_count, handle, _, _ = buf.low_latency_dispatch(xs, idx, T, E, use_fp8=False)
out, _, _ = buf.low_latency_combine(recv_x, idx, w, handle)
if not torch.equal(out, xs):
    fail(f"combine gave back {out.float().sub(xs.float()).abs().max().item()} away from x")
buf.destroy()
kishmem.barrier_all()
print(f"PASS pip-installed kishmem on PE {me} of {n}", flush=True)
kishmem.finalize()
