"""Bad input raises ArgumentError (a ValueError) with a message naming the call and the value,
before anything is sent; the process goes on (no crash, no job abort). Each case is checked on
every PE at once; the ep cases where only the last PE is wrong check that the others are told."""
import ctypes
import os
import subprocess
import sys

import numpy as np
import pytest
import torch


def test_not_initialized():
    r = subprocess.run([sys.executable, "-c", "import kishmem; kishmem.my_pe()"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 1 and "kishmem.my_pe: kishmem is not initialized" in r.stderr


def test_init_after_finalize():
    """A second init raises (the C library would end the process): OpenSHMEM has one per program."""
    code = ("import kishmem\nkishmem.init(); kishmem.finalize()\ntry:\n    kishmem.init()\nexcept kishmem.Error as e:\n"
            "    print('raised', e)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       env={k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "SLURM_", "TORCHELASTIC_"))})
    assert r.returncode == 0 and "raised kishmem.init: kishmem was finalized" in r.stdout, r.stdout + r.stderr


@pytest.fixture
def x(shmem):
    t = shmem.zeros((4, 8), dtype=torch.float32)
    yield t
    shmem.barrier_all()
    shmem.free(t)


def raises(shmem, pattern, fn, *args, **kw):
    with pytest.raises(shmem.ArgumentError, match=pattern):
        fn(*args, **kw)


def test_rma(shmem, x):
    n = shmem.n_pes()
    raises(shmem, r"shmem_putmem: dest \(address 0x[0-9a-f]+, 128 bytes, cpu\) is not in the symmetric heap",
           shmem.put, torch.zeros((4, 8)), torch.ones((4, 8)), 0)
    raises(shmem, "shmem_putmem: dest has dtype float32 but src has dtype float64", shmem.put, x, torch.ones((4, 8), dtype=torch.float64), 0)
    raises(shmem, r"shmem_putmem: dest has 128 bytes \(shape \[4, 8\]\) but src has 32 \(shape \[8\]\)", shmem.put, x, torch.ones(8), 0)
    raises(shmem, r"shmem_getmem: dest is not contiguous", shmem.get, torch.zeros((8, 4)).t(), x, 0)
    raises(shmem, rf"shmem_putmem: PE {n} is out of range: this job has PEs 0..{n - 1}", shmem.put, x, torch.ones((4, 8)), n)
    raises(shmem, r"shmem_putmem_nbi: PE -1 is out of range", shmem.put, x, torch.ones((4, 8)), -1, nbi=True)
    raises(shmem, r"shmem_getmem: pe = 0.5 is not an integer", shmem.get, torch.ones((4, 8)), x, 0.5)
    raises(shmem, r"shmem_getmem: dest is a read-only NumPy array", shmem.get, np.frombuffer(bytes(128), np.float32), x, 0)
    raises(shmem, r"shmem_putmem: src is a list, not a torch tensor or NumPy array", shmem.put, x, [1.0] * 32, 0)
    raises(shmem, r"shmem_putmem: src is on meta but the symmetric heap is in host memory", shmem.put, x,
           torch.ones((4, 8), device="meta"), 0)
    raises(shmem, r"shmem_putmem: dest \(.*\) is not in the symmetric heap", shmem.put, np.zeros((4, 8), np.float32),
           np.ones((4, 8), np.float32), 0)
    raises(shmem, r"shmem_ptr: PE -3 is out of range", shmem.ptr, x, -3)
    assert torch.equal(x, torch.zeros((4, 8)))  # nothing was written


def test_signals(shmem, x):
    sig = shmem.zeros((1,), dtype=torch.int64)
    raises(shmem, r"shmem_putmem_signal: signal must be one int64 or uint64 element .* got dtype float32 shape \[4, 8\]",
           shmem.put_signal, x, torch.ones((4, 8)), x, 1, 0)
    raises(shmem, r"shmem_putmem_signal: value = -1 is not an integer", shmem.put_signal, x, torch.ones((4, 8)), sig, -1, 0)
    raises(shmem, r"shmem_putmem_signal: sig_op = 7 is neither", shmem.put_signal, x, torch.ones((4, 8)), sig, 1, 0, op=7)
    raises(shmem, r"shmem_signal_wait_until: cmp = 99 is not one of kishmem.CMP_", shmem.signal_wait_until, sig, 99, 0)
    raises(shmem, r"shmem_int64_atomic_fetch_add: dest must be one int64 element", shmem.atomic_fetch_add, x, 1, 0)
    raises(shmem, r"shmem_int64_atomic_fetch_add: value = 1e\+20 is not an int64", shmem.atomic_fetch_add, sig, 1e20, 0)
    raises(shmem, r"shmem_signal_wait_until: cmp = 0.0 is not one of kishmem.CMP_", shmem.signal_wait_until, sig, 0.0, 0)
    raises(shmem, r"shmem_putmem_signal: sig_op = 1.0 is neither", shmem.put_signal, x, torch.ones((4, 8)), sig, 1, 0, op=1.0)
    raw = shmem.zeros((24,), dtype=torch.uint8)  # an 8-byte word at an odd address
    mis = np.frombuffer((ctypes.c_char * 8).from_address(raw.data_ptr() + 1), np.int64)
    raises(shmem, r"shmem_int64_atomic_fetch_add: dest \(address 0x[0-9a-f]+\) is not aligned to 8 bytes",
           shmem.atomic_fetch_add, mis, 1, 0)
    raises(shmem, r"shmem_signal_fetch: signal \(address 0x[0-9a-f]+\) is not aligned to 8 bytes", shmem.signal_fetch, mis)
    assert int(raw.sum()) == 0  # nothing was written
    with pytest.raises(shmem.Error, match=r"shmemx_quiet_on_stream: (the symmetric heap is in host memory: on-stream calls "
                                          r"need a GPU heap|this kishmem was built without CUDA)"):
        shmem.quiet_on_stream()
    shmem.barrier_all()
    shmem.free(sig)


def test_alloc_and_free(shmem, x):
    raises(shmem, r"kishmem.empty: shape \[-1, 2\] has a negative size", shmem.empty, (-1, 2))
    raises(shmem, r"shmem_free: x \(address 0x[0-9a-f]+\) is not a block made by kishmem.empty", shmem.free, x[1])
    raises(shmem, r"shmem_free: x \(address 0x[0-9a-f]+\) is not a block", shmem.free, torch.zeros(3))
    with pytest.raises(shmem.Error, match=r"kishmem.empty: no symmetric heap left for .* raise SHMEM_SYMMETRIC_SIZE"):
        shmem.empty((1 << 40,), dtype=torch.uint8)
    y = shmem.empty((3,))
    shmem.free(y)
    raises(shmem, r"shmem_free: .* \(or it was freed already\)", shmem.free, y)
    raises(shmem, r"shmem_free: x \(32 bytes at 0x[0-9a-f]+\) is a view of a block of 128 bytes", shmem.free, x[0])
    raises(shmem, r"kishmem.empty: a size of shape = 2.7 is not an integer", shmem.empty, (2.7,))
    raises(shmem, r"kishmem.empty: dtype 'nosuch' is not supported", shmem.empty, 4, "nosuch")
    blocks = shmem._kishmem.heap_size()
    raises(shmem, r"kishmem.array: dtype <class 'object'> is not a fixed-size NumPy dtype", shmem.array, 4, object)
    assert shmem._kishmem.heap_size() == blocks  # nothing allocated


def test_teams(shmem):
    n = shmem.n_pes()
    raises(shmem, r"shmem_team_translate_pe: dest_team is a NoneType, not a kishmem.Team", shmem.TEAM_WORLD.translate_pe, 0,
           None)
    raises(shmem, r"shmem_team_ptr: team is a NoneType, not a kishmem.Team", shmem.team_ptr, None, torch.zeros(1), 0)
    raises(shmem, rf"shmem_team_split_strided: start = 0, stride = 1, size = {n + 1} does not name", shmem.TEAM_WORLD.split_strided, 0, 1, n + 1)
    raises(shmem, r"shmem_team_destroy: team TEAM_WORLD is predefined", shmem.TEAM_WORLD.destroy)
    t = shmem.TEAM_WORLD.split_strided(0, 1, n)
    t.destroy()
    raises(shmem, r"shmem_team_my_pe: team split\(TEAM_WORLD, 0, 1, \d+\) was destroyed", t.my_pe)
    raises(shmem, rf"shmem_team_translate_pe: PE {n} is out of range: team TEAM_WORLD has PEs", shmem.TEAM_WORLD.translate_pe, n, shmem.TEAM_WORLD)


T, H, K = 8, 256, 2


def ep_inputs(n, me):
    x = torch.ones((T, H), dtype=torch.bfloat16) * (me + 1)
    idx = torch.stack([torch.tensor([(t + me) % (2 * n), (t + me + 1) % (2 * n)]) for t in range(T)]).to(torch.int64)
    return x, idx


# (name, what the PE at fault passes instead of (x, idx, extra keyword arguments), message)
DISPATCH_CASES = [
    ("dtype", lambda x, i: (x.float(), i, {}), r"x has dtype torch.float32, expected torch.bfloat16"),
    ("hidden", lambda x, i: (x[:, :128].contiguous(), i, {}), r"x has shape \[8, 128\], expected \[8, 256\]"),
    ("tokens", lambda x, i: (torch.cat([x, x]), torch.cat([i, i]), {}), r"x has 16 tokens but the buffer holds at most 8"),
    ("idx_dtype", lambda x, i: (x, i.float(), {}), r"topk_idx has dtype torch.float32, expected torch.int64 or torch.int32"),
    ("idx_shape", lambda x, i: (x, i[:, :1].contiguous(), {}), r"topk_idx has shape \[8, 1\], expected \[8, 2\]"),
    ("device", lambda x, i: (x.to("meta"), i, {}), r"x is on meta but the buffer is on cpu"),
    ("strided", lambda x, i: (x, torch.cat([i, i], 1)[:, ::2], {}), r"topk_idx is not contiguous"),
    ("fp8", lambda x, i: (x, i, {"use_fp8": False}), r"use_fp8 = False but the buffer was made with use_fp8 = True"),
    ("ue8m0", lambda x, i: (x, i, {"use_ue8m0": True}), r"round_scale and use_ue8m0 are not supported"),
    ("stats", lambda x, i: (x, i, {"cumulative_local_expert_recv_stats": 0}),
     r"cumulative_local_expert_recv_stats is a int, not a torch tensor"),
    ("round_huge", lambda x, i: (x, i, {"round_scale": 2 ** 70}), r"round_scale and use_ue8m0 are not supported"),
    # DeepEP's later options, taken at their defaults only
    ("wait_stats", lambda x, i: (x, i, {"dispatch_wait_recv_cost_stats": torch.zeros(4, dtype=torch.int64)}),
     r"dispatch_wait_recv_cost_stats is not supported"),
    ("per_tensor", lambda x, i: (x, i, {"use_per_tensor_quantization": True}),
     r"use_per_tensor_quantization and static_scale are not supported"),
    ("static_scale", lambda x, i: (x, i, {"static_scale": torch.ones(1)}),
     r"use_per_tensor_quantization and static_scale are not supported"),
]


def refused_on_last(shmem, call, msg, bad_call, good_call):
    """The last PE makes bad_call (refused: ArgumentError naming call and msg), the others
    good_call; their receive must report the last PE's bad input (an Error, not a wait)."""
    me, last = shmem.my_pe(), shmem.n_pes() - 1
    if me == last:
        raises(shmem, rf"kishmem::ep::{call}: PE {me}: " + msg, bad_call)
    else:
        with pytest.raises(shmem.Error, match=rf"kishmem::ep::{call}_recv: PE {me}: PE {last} reported bad input in round 1"):
            good_call()
    shmem.barrier_all()


def ep_case(shmem, use_fp8):
    """A fresh buffer (a refused call ends its use) and this PE's inputs."""
    n = shmem.n_pes()
    x, idx = ep_inputs(n, shmem.my_pe())
    return n, shmem.ep.Buffer(None, T, H, 2 * n, K, use_fp8=use_fp8), x, idx


@pytest.mark.parametrize("case", DISPATCH_CASES, ids=[c[0] for c in DISPATCH_CASES])
def test_ep_dispatch(shmem, case):
    _, bad, msg = case
    n, buf, x, idx = ep_case(shmem, True)
    bx, bi, kw = bad(x, idx)
    refused_on_last(shmem, "dispatch", msg, lambda: buf.low_latency_dispatch(bx, bi, T, 2 * n, **kw),
                    lambda: buf.low_latency_dispatch(x, idx, T, 2 * n))
    buf.destroy()


def test_ep_dispatch_default_format(shmem):
    """use_fp8 left at its default (True) on a bf16 buffer is refused, as DeepEP's default asks
    for FP8."""
    n, buf, x, idx = ep_case(shmem, False)
    refused_on_last(shmem, "dispatch", r"use_fp8 = True but the buffer was made with use_fp8 = False",
                    lambda: buf.low_latency_dispatch(x, idx, T, 2 * n), lambda: buf.low_latency_dispatch(x, idx, T, 2 * n, use_fp8=False))
    buf.destroy()


COMBINE_CASES = [
    ("x_shape", lambda y, i, w, h, b: ((y[:1].contiguous(), i, w, h), {}), r"x has shape \[1, \d+, 256\], expected"),
    ("weights_dtype", lambda y, i, w, h, b: ((y, i, w.double(), h), {}), r"topk_weights has dtype torch.float64, expected torch.float32"),
    ("out_shape", lambda y, i, w, h, b: ((y, i, w, h), {"out": torch.empty((3, H), dtype=torch.bfloat16)}),
     r"out has shape \[3, 256\], expected \[8, 256\]"),
    ("handle", lambda y, i, w, h, b: ((y, i, w, object()), {}), r"handle is not one that this buffer's low_latency_dispatch returned"),
    ("zero_copy", lambda y, i, w, h, b: ((y, i, w, h), {"zero_copy": True}), r"zero_copy=True but x is not get_next_low_latency_combine_buffer"),
    ("logfmt", lambda y, i, w, h, b: ((y, i, w, h), {"use_logfmt": True}), r"use_logfmt is not supported"),
    ("wait_stats", lambda y, i, w, h, b: ((y, i, w, h), {"combine_wait_recv_cost_stats": torch.zeros(4, dtype=torch.int64)}),
     r"combine_wait_recv_cost_stats is not supported"),
]


@pytest.mark.parametrize("case", COMBINE_CASES, ids=[c[0] for c in COMBINE_CASES])
def test_ep_combine(shmem, case):
    _, bad, msg = case
    n, buf, x, idx = ep_case(shmem, False)
    _, _, handle, _, _ = buf.low_latency_dispatch(x, idx, T, 2 * n, use_fp8=False)
    y = torch.zeros((2, n * T, H), dtype=torch.bfloat16)
    w = torch.ones((T, K))
    args, kw = bad(y, idx, w, handle, buf)
    refused_on_last(shmem, "combine", msg, lambda: buf.low_latency_combine(*args, **kw),
                    lambda: buf.low_latency_combine(y, idx, w, handle))
    buf.destroy()


def test_ep_hook_twice(shmem):
    me = shmem.my_pe()
    n, buf, x, idx = ep_case(shmem, False)
    _, _, handle, _, hook = buf.low_latency_dispatch(x, idx, T, 2 * n, use_fp8=False, return_recv_hook=True)
    hook()
    with pytest.raises(shmem.Error, match=rf"kishmem::ep::dispatch_recv: PE {me}: no dispatch of this handle waits"):
        hook()
    shmem.barrier_all()
    buf.destroy()


def test_ep_received_bf16(shmem):
    """received_bf16: a bad out or handle raises ArgumentError naming it; before the dispatch's
    hook it raises the library's order error. Nothing is sent: the round goes on as it would."""
    me = shmem.my_pe()
    n, buf, x, idx = ep_case(shmem, True)
    _, _, handle, _, hook = buf.low_latency_dispatch(x, idx, T, 2 * n, return_recv_hook=True)
    with pytest.raises(shmem.Error, match=rf"kishmem::ep::received_bf16: PE {me}: the handle \(round 1\) is not that "
                                          r"of this buffer's last received dispatch \(round 1, its dispatch_recv not yet called\)"):
        buf.received_bf16(handle)
    hook()
    shape = (2, n * T, H)
    for out, msg in ((torch.zeros(shape), r"out has dtype torch.float32, expected torch.bfloat16"),
                     (torch.zeros((2, n * T, H + 8), dtype=torch.bfloat16), rf"out has shape \[2, {n * T}, {H + 8}\], expected"),
                     (torch.zeros((2, n * T, 2 * H), dtype=torch.bfloat16)[:, :, :H], r"out is not contiguous")):
        raises(shmem, rf"kishmem::ep::received_bf16: PE {me}: {msg}", buf.received_bf16, handle, out=out)
    raises(shmem, r"handle is not one that this buffer's low_latency_dispatch returned", buf.received_bf16, object())
    assert buf.received_bf16(handle).shape == shape  # the round is as good as before
    buf.low_latency_combine(torch.zeros(shape, dtype=torch.bfloat16), idx, torch.ones((T, K)), handle)
    shmem.barrier_all()
    buf.destroy()


def test_ep_destroyed(shmem):
    """A destroyed buffer's calls raise (the binding looks the buffer up before it lets the GIL
    go: a crash before), the synchronizing ones and a combine the Python checks refuse among them."""
    n, buf, x, idx = ep_case(shmem, False)
    _, _, handle, _, _ = buf.low_latency_dispatch(x, idx, T, 2 * n, use_fp8=False)
    buf.destroy()
    for call in (lambda: buf.check(), lambda: buf.kernel_times(), lambda: buf.low_latency_dispatch(x, idx, T, 2 * n),
                 lambda: buf.low_latency_dispatch(x, idx, T, 2 * n, use_fp8=True),
                 lambda: buf.low_latency_combine(None, None, None, handle=None),
                 lambda: buf.received_bf16(object()), lambda: buf.get_next_low_latency_combine_buffer(handle)):
        with pytest.raises(shmem.Error, match=r"kishmem.ep.Buffer: the buffer was destroyed"):
            call()
    shmem.barrier_all()


def test_ep_create(shmem):
    me, n = shmem.my_pe(), shmem.n_pes()
    with pytest.raises(shmem.Error, match=r"kishmem::ep::Buffer::create: PE \d+: topk = 0 must be in 1..16"):
        shmem.ep.Buffer(None, T, H, 2 * n, 0)
    raises(shmem, rf"kishmem.ep.Buffer: PE {me}: group is a str", shmem.ep.Buffer, "world", T, H, 2 * n, K)
    raises(shmem, rf"kishmem.ep.Buffer: PE {me}: hidden = 'wide' is not an integer", shmem.ep.Buffer, None, T, "wide", 2 * n, K)
    raises(shmem, rf"kishmem.ep.Buffer: PE {me}: num_experts is required", shmem.ep.Buffer, None, T, H)


@pytest.mark.parametrize("case", [
    ("hidden", lambda n: dict(hidden=2 ** 40), r"hidden = 1099511627776 is beyond a C int",
     r"the configuration of PE {last} is not valid: hidden = -1 must be at least 1"),
    ("group", lambda n: dict(group="world"), r"group is a str", r"PE {last} passed a team that is invalid"),
], ids=["int", "group"])
def test_ep_create_refused_on_last(shmem, case):
    """What the Python checks refuse on one PE only (a size beyond a C int, a group) still goes
    through the collective creation: every PE raises, none waits for the one at fault."""
    _, kw, mine, theirs = case
    me, n = shmem.my_pe(), shmem.n_pes()
    last = n - 1
    args = dict(group=None, num_max_dispatch_tokens_per_rank=T, hidden=H, num_experts=2 * n, num_topk=K)
    if me == last:
        args.update(kw(n))
        raises(shmem, rf"kishmem.ep.Buffer: PE {me}: " + mine, shmem.ep.Buffer, **args)
    else:
        with pytest.raises(shmem.Error, match=rf"kishmem::ep::Buffer::create: PE {me}: " + theirs.format(last=last)):
            shmem.ep.Buffer(**args)
    shmem.barrier_all()


def test_ep_after_finalize():
    """A buffer's calls after kishmem.finalize (which destroys it) raise, the checks that name the
    PE among them (asking the library for the PE then would end the process)."""
    code = ("import kishmem, torch\nkishmem.init()\nb = kishmem.ep.Buffer(None, 4, 128, 2, 1, use_fp8=False)\n"
            "kishmem.finalize()\nfor call in (lambda: b.received_bf16(object()), lambda: b.get_next_low_latency_combine_buffer(None)):\n"
            "    try:\n        call()\n    except kishmem.Error as e:\n        print('raised', e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       env={k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "SLURM_", "TORCHELASTIC_"))})
    assert r.returncode == 0 and r.stdout.count("raised kishmem.ep.Buffer: the buffer was destroyed") == 2, r.stdout + r.stderr


def test_select_topk(shmem):
    s = torch.rand((4, 16))
    raises(shmem, r"select_topk: experts_per_node = 5 does not divide E = 16", shmem.ep.select_topk, s, 2, 1, 5)
    raises(shmem, r"select_topk: K = 9 is more than the 8 experts of 2 nodes", shmem.ep.select_topk, s, 9, 2, 4)
    raises(shmem, r"select_topk: scores must be a 2-D float32 tensor", shmem.ep.select_topk, s.double(), 2, 1, 4)
