"""The package on a GPU heap: symmetric tensors on the GPU, RMA and signals from the host and on
a torch.cuda.Stream, and kishmem.ep's GPU form checked against the CPU-side references (the same
checks as test_ep.py, on GPU tensors), also a round captured into a CUDA graph and replayed.
Exits 77 (CTest's skip) where no GPU is usable."""
import os

import pytest
import torch

if not torch.cuda.is_available():  # before kishmem.init: a GPU heap cannot be made here
    print("SKIP: no usable GPU", flush=True)
    os._exit(77)

import ep_reference as ref  # noqa: E402
import kishmem  # noqa: E402
import test_ep  # noqa: E402

from conftest import world_size  # noqa: E402


@pytest.fixture(scope="module")
def gpu_shmem(shmem):
    if shmem.heap_device().type != "cuda":
        pytest.fail(f"the symmetric heap is on {shmem.heap_device()}, not a GPU (KISHMEM_HEAP=device expected)")
    return shmem


def test_tensors(gpu_shmem):
    s = gpu_shmem
    me, n = s.my_pe(), s.n_pes()
    assert n == world_size()
    x = s.zeros((n, 256), dtype=torch.float32)
    assert x.device == s.heap_device()
    s.barrier_all()
    for p in range(n):
        s.put(x[me], torch.full((256,), me + 0.5, device=x.device), p)
    s.barrier_all()
    for p in range(n):
        assert torch.equal(x[p].cpu(), torch.full((256,), p + 0.5))
    got = torch.zeros(256, device=x.device)
    s.get(got, x[(me + 1) % n], (me + 1) % n)
    assert torch.equal(got.cpu(), torch.full((256,), (me + 1) % n + 0.5))
    with pytest.raises(s.ArgumentError, match="src is on cpu but the symmetric heap is in GPU"):
        s.put(x[me], torch.zeros(256), me)
    with pytest.raises(s.ArgumentError, match="NumPy arrays need a host heap"):
        s.array((4,))
    s.barrier_all()
    s.free(x)


def test_on_stream(gpu_shmem):
    s = gpu_shmem
    me, n = s.my_pe(), s.n_pes()
    data = s.zeros((1024,), dtype=torch.int32)
    sig = s.zeros((1,), dtype=torch.int64)
    s.barrier_all()
    stream = torch.cuda.Stream(device=data.device)
    src = torch.arange(1024, dtype=torch.int32, device=data.device) + 1000 * me
    torch.cuda.synchronize()
    s.put_signal_on_stream(data, src, sig, 1, (me + 1) % n, op=s.SIGNAL_ADD, stream=stream)
    s.signal_wait_until_on_stream(sig, s.CMP_GE, 1, stream=stream)
    s.quiet_on_stream(stream)
    s.barrier_all_on_stream(stream)
    stream.synchronize()
    assert torch.equal(data.cpu(), torch.arange(1024, dtype=torch.int32) + 1000 * ((me - 1) % n))
    s.barrier_all()
    s.put_on_stream(data, src, me)  # the current stream
    torch.cuda.current_stream().synchronize()
    assert torch.equal(data.cpu(), src.cpu())
    s.barrier_all()
    s.free(sig)
    s.free(data)


@pytest.mark.parametrize("use_fp8", [True, False])
@pytest.mark.parametrize("hook", [False, True])
def test_ep_rounds(gpu_shmem, use_fp8, hook):
    """test_ep's rounds on the GPU form: inputs made on the CPU, sent from the GPU, every row and
    output checked on the CPU against ep_reference."""
    s = gpu_shmem
    n = s.n_pes()
    buf = s.ep.Buffer(s.TEAM_WORLD, test_ep.T_MAX, test_ep.HIDDEN, test_ep.PER_PE * n, test_ep.TOPK, use_fp8=use_fp8)
    assert buf.on_gpu and buf.device == s.heap_device()
    for r, (idx_dtype, zero_copy) in enumerate([(torch.int64, False), (torch.int32, True)]):
        test_ep.check_round(s, buf, s.TEAM_WORLD, 50 + 10 * r + (2 if use_fp8 else 1) + (4 if hook else 0), use_fp8,
                            idx_dtype, hook, zero_copy, device=s.heap_device())
    buf.check()
    buf.destroy()


@pytest.mark.parametrize("use_fp8", [True, False])
def test_ep_graph(gpu_shmem, use_fp8):
    """A round (dispatch, the experts as torch ops, zero-copy combine) captured into a CUDA graph
    with torch.cuda.graph, as a decode step is, and replayed 3 times: each replay's output, NaN
    before it, checked against the reference (the same inputs every time)."""
    s = gpu_shmem
    n, me, dev = s.n_pes(), s.my_pe(), s.heap_device()
    E, L = test_ep.PER_PE * n, test_ep.PER_PE
    buf = s.ep.Buffer(s.TEAM_WORLD, test_ep.T_MAX, test_ep.HIDDEN, E, test_ep.TOPK, use_fp8=use_fp8)
    x, idx, w = ref.inputs(me, test_ep.tokens_of(me), test_ep.HIDDEN, test_ep.TOPK, E, 70)
    xd, idxd, wd = x.to(dev), idx.to(dev), w.to(dev)
    out = torch.empty((len(x), test_ep.HIDDEN), dtype=torch.bfloat16, device=dev)
    scale = ((me * L + torch.arange(L, device=dev) + 1) / 4.0).view(L, 1, 1)  # test_ep.expert_fn per local expert

    def step():
        recv_x, _, handle, _, _ = buf.low_latency_dispatch(xd, idxd, test_ep.T_MAX, E, use_fp8=use_fp8)
        rows = s.ep.dequantize(recv_x) if use_fp8 else recv_x.float()
        y = buf.get_next_low_latency_combine_buffer(handle)
        y.copy_((rows * scale).to(torch.bfloat16))
        buf.low_latency_combine(y, idxd, wd, handle, zero_copy=True, out=out)

    step()  # eager first (the warm-up torch.cuda.graph asks for), checked as the replays are
    buf.check()
    test_ep.check_combined(out.cpu(), x, idx, w, use_fp8)
    s.barrier_all()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        step()
    for r in range(3):
        out.fill_(float("nan"))
        g.replay()
        buf.check()  # (synchronizes)
        test_ep.check_combined(out.cpu(), x, idx, w, use_fp8)
        s.barrier_all()  # no PE replays before every PE has read this replay's rows
    del g
    buf.destroy()


def test_ep_bad_device(gpu_shmem):
    s = gpu_shmem
    n, me = s.n_pes(), s.my_pe()
    buf = s.ep.Buffer(None, 8, 256, 2 * n, 2, use_fp8=False)
    x = torch.zeros((8, 256), dtype=torch.bfloat16)  # host memory for a GPU buffer
    idx = torch.zeros((8, 2), dtype=torch.int64, device=s.heap_device())
    idx[:, 1] = 1
    if me == n - 1:
        with pytest.raises(s.ArgumentError, match=r"x is on cpu but the buffer is on cuda"):
            buf.low_latency_dispatch(x, idx, 8, 2 * n, use_fp8=False)
    else:
        with pytest.raises(s.Error, match=rf"PE {n - 1} reported bad input in round 1"):
            buf.low_latency_dispatch(x.to(s.heap_device()), idx, 8, 2 * n, use_fp8=False)
            buf.check()
    s.barrier_all()
    buf.destroy()


def test_select_topk_gpu(gpu_shmem):
    s = gpu_shmem
    scores = torch.rand((64, 128), generator=torch.Generator().manual_seed(3))
    i_cpu, w_cpu = s.ep.select_topk(scores, 8, 4, 16)
    i_gpu, w_gpu = s.ep.select_topk(scores.to(s.heap_device()), 8, 4, 16)
    torch.cuda.synchronize()
    assert torch.equal(i_gpu.cpu(), i_cpu) and torch.equal(w_gpu.cpu(), w_cpu)
