"""kishmem.ep (DeepEP's low-latency API) on the host heap, the CPU form of kishmem::ep: every
received row, scale, count and source, the rows' bf16 form (received_bf16), and every combined
output, checked against
ep_reference.py computed independently on every PE for every PE's inputs."""
import numpy as np
import pytest
import torch

import ep_reference as ref

T_MAX, HIDDEN, TOPK, PER_PE = 12, 256, 4, 4


def tokens_of(pe):
    return T_MAX - (pe % 3)  # PEs send different token counts


def expert_fn(e_global, rows):
    """The 'expert' every test applies: row * (e + 1) / 4 (exact in bf16 scaling), as bf16."""
    return (rows * ((e_global + 1) / 4.0)).to(torch.bfloat16)


def check_round(shmem, buf, team, round_no, use_fp8, idx_dtype, hook, zero_copy, stats=None, device="cpu",
                wrap=lambda t: t):
    """One dispatch and combine on buf (tensors on device, x and topk_idx passed through wrap),
    every result checked on the CPU."""
    n, me = team.n_pes(), team.my_pe()
    E = PER_PE * n
    x, idx, w = ref.inputs(me, tokens_of(me), HIDDEN, TOPK, E, round_no)
    recv_x, recv_count, handle, event, dhook = buf.low_latency_dispatch(
        wrap(x.to(device)), wrap(idx.to(idx_dtype).to(device)), T_MAX, E, cumulative_local_expert_recv_stats=stats,
        use_fp8=use_fp8, return_recv_hook=hook)
    assert (dhook is not None) == hook
    if hook:
        dhook()
    event.current_stream_wait()
    if device != "cpu":
        buf.check()  # synchronizes: the received data is there
    L, R = PER_PE, n * T_MAX
    # the received rows in bf16, into a tensor whose other rows must keep their value
    bf = buf.received_bf16(handle, out=torch.full((L, R, HIDDEN), -3.5, dtype=torch.bfloat16, device=device)).cpu()
    recv_count = recv_count.cpu()
    recv_x = tuple(t.cpu() for t in recv_x) if use_fp8 else recv_x.cpu()
    assert recv_count.shape == (L,) and recv_count.dtype == torch.int32
    if use_fp8:
        q, scales = recv_x
        assert q.shape == (L, R, HIDDEN) and scales.shape == (L, R, HIDDEN // 128) and scales.dtype == torch.float32
    else:
        assert recv_x.shape == (L, R, HIDDEN) and recv_x.dtype == torch.bfloat16
    # What every PE sent to this PE's experts, from the reference inputs.
    expected = {}
    for p in range(n):
        xp, ip, _ = ref.inputs(p, tokens_of(p), HIDDEN, TOPK, E, round_no)
        qp, sp = ref.quantize(xp) if use_fp8 else (None, None)
        for t in range(tokens_of(p)):
            for k in range(TOPK):
                e = int(ip[t, k])
                if e >= 0 and e // PER_PE == me:
                    expected[(e % PER_PE, p, t, k)] = (qp[t], sp[t]) if use_fp8 else xp[t]
    src = handle.src_info.cpu()
    eo = torch.zeros((L, R, HIDDEN), dtype=torch.bfloat16)
    seen = set()
    for le in range(L):
        cnt = int(recv_count[le])
        assert cnt == sum(1 for key in expected if key[0] == le), f"recv_count[{le}]"
        for i in range(cnt):
            pe, t, k = (int(v) for v in src[le, i, :3])
            key = (le, pe, t, k)
            assert key in expected and key not in seen, f"row {i} of local expert {le} from {(pe, t, k)}"
            seen.add(key)
            if use_fp8:
                qv, sv = expected[key]
                np.testing.assert_array_equal(ref.decode_fp8(q[le, i]), qv)
                np.testing.assert_array_equal(scales[le, i].numpy(), sv)
                row = torch.from_numpy(ref.decode_fp8(q[le, i]).reshape(-1, 128) * scales[le, i].numpy()[:, None]).reshape(-1)
            else:
                assert torch.equal(recv_x[le, i], expected[key])
                row = recv_x[le, i].float()
            eo[le, i] = expert_fn(me * PER_PE + le, row)
            assert torch.equal(bf[le, i], row.to(torch.bfloat16)), f"received_bf16 row {i} of local expert {le}"
        assert bool((bf[le, cnt:] == -3.5).all()), f"received_bf16 wrote rows past recv_count[{le}] = {cnt}"
    assert len(seen) == len(expected)
    if zero_copy:
        expert_out = buf.get_next_low_latency_combine_buffer(handle)
        expert_out.copy_(eo)
    else:
        expert_out = eo.to(device)
    out, event, chook = buf.low_latency_combine(expert_out, wrap(idx.to(device)), w.to(device), handle,
                                                zero_copy=zero_copy, return_recv_hook=hook)
    if hook:
        chook()
    event.current_stream_wait()
    if device != "cpu":
        buf.check()
    check_combined(out.cpu(), x, idx, w, use_fp8)
    return recv_count.clone()


def check_combined(out, x, idx, w, use_fp8):
    """out (CPU) against sum_k w * expert(row), each row as its expert's PE saw it (dequantized
    FP8 or bf16)."""
    if use_fp8:
        qx, sx = ref.quantize(x)
        rows = torch.from_numpy((qx.reshape(len(x), -1, 128) * sx[:, :, None]).reshape(len(x), HIDDEN))
    else:
        rows = x.float()
    want = torch.zeros((len(x), HIDDEN), dtype=torch.float32)
    for t in range(len(x)):
        for k in range(TOPK):
            e = int(idx[t, k])
            if e >= 0:
                want[t] += w[t, k] * expert_fn(e, rows[t]).float()
    assert out.shape == (len(x), HIDDEN) and out.dtype == torch.bfloat16
    torch.testing.assert_close(out.float(), want, rtol=1.6e-2, atol=1e-3)


@pytest.mark.parametrize("use_fp8", [True, False])
@pytest.mark.parametrize("hook", [False, True])
def test_rounds(shmem, use_fp8, hook):
    n = shmem.n_pes()
    buf = shmem.ep.Buffer(shmem.TEAM_WORLD, T_MAX, HIDDEN, PER_PE * n, TOPK, use_fp8=use_fp8)
    assert buf.device == torch.device("cpu") and not buf.on_gpu
    stats = torch.zeros(PER_PE, dtype=torch.int32)
    total = torch.zeros(PER_PE, dtype=torch.int32)
    for r, (idx_dtype, zero_copy) in enumerate([(torch.int64, False), (torch.int32, True), (torch.int64, True)]):
        total += check_round(shmem, buf, shmem.TEAM_WORLD, 10 * r + (2 if use_fp8 else 1) + (4 if hook else 0), use_fp8,
                             idx_dtype, hook, zero_copy, stats)
        assert torch.equal(stats, total)
    buf.destroy()


def test_hook_keeps_tensors(shmem):
    """A combine's receive hook keeps the tensors the receive reads (topk_weights, x) alive: given
    as temporaries, their memory is not handed to other tensors before hook() runs."""
    n, me = shmem.n_pes(), shmem.my_pe()
    E = PER_PE * n
    buf = shmem.ep.Buffer(shmem.TEAM_WORLD, T_MAX, HIDDEN, E, TOPK, use_fp8=False)
    x, idx, w = ref.inputs(me, tokens_of(me), HIDDEN, TOPK, E, 77)
    recv_x, recv_count, handle, _, _ = buf.low_latency_dispatch(x, idx, T_MAX, E, use_fp8=False)
    eo = torch.zeros_like(recv_x)
    for le in range(PER_PE):
        c = int(recv_count[le])
        eo[le, :c] = expert_fn(me * PER_PE + le, recv_x[le, :c].float())
    out, _, hook = buf.low_latency_combine(eo.clone(), idx, w.clone(), handle, return_recv_hook=True)
    junk = [torch.full_like(w, 1000.0) for _ in range(8)] + [torch.full_like(eo, 7.0) for _ in range(2)]
    hook()
    check_combined(out, x, idx, w, False)
    assert all(float(j.flatten()[0]) in (1000.0, 7.0) for j in junk)
    buf.destroy()


_left_alive = []


def test_buffer_left_alive(shmem):
    """A buffer the program never destroys: kishmem.finalize (at the session's end) destroys it on
    every PE before the heap goes, so the process still ends with status 0."""
    _left_alive.append(shmem.ep.Buffer(shmem.TEAM_WORLD, T_MAX, HIDDEN, PER_PE * shmem.n_pes(), TOPK, use_fp8=False))
    assert _left_alive[0].bytes > 0


class _Sub(torch.Tensor):
    """A tensor subclass: the binding leaves it to the Python checks."""


@pytest.mark.parametrize("subclass", [False, True])
def test_binding_or_python_checks(shmem, monkeypatch, subclass):
    """Plain tensors are checked and launched by the binding (the Python checks never run); a
    tensor subclass goes through the Python checks; both give the same, checked, results."""
    n = shmem.n_pes()
    buf = shmem.ep.Buffer(shmem.TEAM_WORLD, T_MAX, HIDDEN, PER_PE * n, TOPK, use_fp8=True)
    calls = []
    for name in ("_dispatch_checked", "_combine_checked"):
        def spy(*a, _orig=getattr(buf, name), _name=name, **k):
            calls.append(_name)
            return _orig(*a, **k)
        monkeypatch.setattr(buf, name, spy)
    for r, (idx_dtype, zero_copy) in enumerate([(torch.int64, True), (torch.int32, False)]):
        check_round(shmem, buf, shmem.TEAM_WORLD, 70 + r, True, idx_dtype, False, zero_copy,
                    wrap=(lambda t: t.as_subclass(_Sub)) if subclass else (lambda t: t))
    assert calls == (["_dispatch_checked", "_combine_checked"] * 2 if subclass else []), calls
    buf.destroy()


@pytest.mark.parametrize("plain", [True, False])
def test_calls_without_python_frame(shmem, plain):
    """The methods keep DeepEP's signatures; a call the binding takes as it is (the tensors and
    sizes by position, the keywords at what it allows, combine with out=) runs no Python frame of
    kishmem/ep.py before its launch, any other call runs the Python methods; both give the
    same results."""
    import inspect
    import sys
    n, me = shmem.n_pes(), shmem.my_pe()
    E = PER_PE * n
    buf = shmem.ep.Buffer(shmem.TEAM_WORLD, T_MAX, HIDDEN, E, TOPK, use_fp8=True)
    assert list(inspect.signature(buf.low_latency_dispatch).parameters)[:4] == [
        "x", "topk_idx", "num_max_dispatch_tokens_per_rank", "num_experts"]
    assert "return_recv_hook" in inspect.signature(buf.low_latency_combine).parameters
    assert "recv_count" in buf.low_latency_dispatch.__doc__
    x, idx, w = ref.inputs(me, tokens_of(me), HIDDEN, TOPK, E, 91)
    out = torch.empty((len(x), HIDDEN), dtype=torch.bfloat16)
    stats = None if plain else torch.zeros(PER_PE, dtype=torch.int32)
    entered = []
    ep_file = sys.modules["kishmem.ep"].__file__

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == ep_file:
            entered.append(frame.f_code.co_name)
    for _ in range(2):  # (the first dispatch makes the views in Python)
        sys.setprofile(profile)
        try:
            entered.clear()
            recv_x, recv_count, handle, event, hook = buf.low_latency_dispatch(
                x, idx, T_MAX, E, cumulative_local_expert_recv_stats=stats, use_fp8=True)
            dispatched = list(entered)
            y = buf.get_next_low_latency_combine_buffer(handle)
            rows = buf.received_bf16(handle)
            for le in range(PER_PE):
                c = int(recv_count[le])
                y[le, :c] = expert_fn(me * PER_PE + le, rows[le, :c].float())
            entered.clear()
            combined, cevent, chook = buf.low_latency_combine(y, idx, w, handle, zero_copy=True, out=out)
            combine_frames = list(entered)
        finally:
            sys.setprofile(None)
        assert hook is None and chook is None and combined is out
        assert event is cevent and event.event is None
    assert ("low_latency_dispatch" in dispatched) != plain, dispatched
    assert combine_frames == [], combine_frames
    check_combined(out, x, idx, w, True)
    if stats is not None:
        assert torch.equal(stats, recv_count * 2)
    buf.destroy()


def test_kernel_clock(shmem):
    """The kernel clock (the GPU form: the kernels' time and their stamps; the CPU form: each
    call's host time, no stamps): off by default; on, every kind of call whose last call ran with
    it has a time, the others -1 (a call without hook receives itself: the hooks keep their own)."""
    n = shmem.n_pes()
    buf = shmem.ep.Buffer(shmem.TEAM_WORLD, T_MAX, HIDDEN, PER_PE * n, TOPK, use_fp8=True)
    keys = ("dispatch_us", "dispatch_recv_us", "combine_us", "combine_recv_us")
    stamps = ("dispatch_start_ns", "dispatch_end_ns", "combine_start_ns", "combine_end_ns")
    check_round(shmem, buf, shmem.TEAM_WORLD, 50, True, torch.int64, False, False)
    t = buf.kernel_times()
    assert set(t) == set(keys + stamps) and all(t[k] == -1.0 for k in keys) and all(t[k] == 0 for k in stamps), t
    buf.set_kernel_clock(True)
    check_round(shmem, buf, shmem.TEAM_WORLD, 51, True, torch.int64, False, False)
    t = buf.kernel_times()
    assert t["dispatch_us"] >= 0 and t["combine_us"] >= 0 and t["dispatch_recv_us"] == -1 and t["combine_recv_us"] == -1, t
    for c in ("dispatch", "combine"):  # GPU form: the global timer's stamps, their difference the time; CPU form: none
        start, end = t[c + "_start_ns"], t[c + "_end_ns"]
        if buf.on_gpu:
            assert 0 < start <= end and abs((end - start) * 1e-3 - t[c + "_us"]) < 1e-3, t
        else:
            assert start == 0 and end == 0, t
    check_round(shmem, buf, shmem.TEAM_WORLD, 52, True, torch.int64, True, False)
    t = buf.kernel_times()
    assert all(t[k] >= 0 for k in keys), t
    buf.set_kernel_clock(False)
    check_round(shmem, buf, shmem.TEAM_WORLD, 53, True, torch.int64, False, False)
    t = buf.kernel_times()
    assert t["dispatch_us"] == -1 and t["combine_us"] == -1 and t["dispatch_recv_us"] >= 0 and t["combine_recv_us"] >= 0, t
    buf.destroy()


def test_group_split(shmem):
    """Buffers over two teams at once (even and odd PEs), each PE in its own."""
    me, n = shmem.my_pe(), shmem.n_pes()
    evens, odds = (n + 1) // 2, n // 2
    even = shmem.TEAM_WORLD.split_strided(0, 2, evens)
    odd = shmem.TEAM_WORLD.split_strided(1, 2, odds) if odds else None
    team = even if me % 2 == 0 else odd
    buf = shmem.ep.Buffer(team, T_MAX, HIDDEN, PER_PE * team.n_pes(), TOPK, use_fp8=True)
    assert buf.group_size == team.n_pes() and buf.rank == me // 2
    check_round(shmem, buf, team, 99, True, torch.int64, False, False)
    buf.destroy()
    team.destroy()


def test_deepep_positions(shmem):
    """DeepEP's positional order: (x, topk_idx, T, num_experts, cumulative_local_expert_recv_stats,
    dispatch_wait_recv_cost_stats, use_fp8, ...): use_fp8 is the seventh."""
    n, me = shmem.n_pes(), shmem.my_pe()
    buf = shmem.ep.Buffer(None, 4, 128, 2 * n, 1, use_fp8=False)
    x = torch.ones((4, 128), dtype=torch.bfloat16)
    idx = torch.full((4, 1), (2 * me + 1) % (2 * n), dtype=torch.int64)
    recv_x, recv_count, handle, _, _ = buf.low_latency_dispatch(x, idx, 4, 2 * n, None, None, False)
    assert recv_x.dtype == torch.bfloat16 and int(recv_count.sum()) == 4
    out, _, _ = buf.low_latency_combine(buf.received_bf16(handle), idx, torch.ones((4, 1)), handle, False, False, False,
                                        False, None, None)
    assert torch.equal(out, x)
    shmem.barrier_all()
    buf.destroy()


def test_no_tokens(shmem):
    """A PE with nothing to send still takes part; the others' rows arrive."""
    n, me = shmem.n_pes(), shmem.my_pe()
    buf = shmem.ep.Buffer(None, 4, 128, 2 * n, 2, use_fp8=False)
    x = torch.ones((0 if me == 0 else 4, 128), dtype=torch.bfloat16) * (me + 1)
    idx = torch.tensor([[(me + 1) % (2 * n), (me + 2) % (2 * n)]] * x.shape[0], dtype=torch.int64).reshape(-1, 2)
    recv_x, recv_count, handle, _, _ = buf.low_latency_dispatch(x, idx, 4, 2 * n, use_fp8=False)
    want = [0, 0]
    for p in range(1, n):
        for e in ((p + 1) % (2 * n), (p + 2) % (2 * n)):
            if e // 2 == me:
                want[e % 2] += 4
    assert recv_count.tolist() == want
    for le in range(2):
        for i in range(want[le]):
            pe = int(handle.src_info[le, i, 0])
            assert torch.equal(recv_x[le, i], torch.full((128,), pe + 1.0, dtype=torch.bfloat16))
    y = torch.zeros((2, 4 * n, 128), dtype=torch.bfloat16)
    y[:, :, :] = 2.0
    out, _, _ = buf.low_latency_combine(y, idx, torch.full(idx.shape, 0.25), handle)
    assert torch.equal(out, torch.full((x.shape[0], 128), 1.0, dtype=torch.bfloat16))  # 2 * (0.25 + 0.25)
    buf.destroy()


def test_select_topk(shmem):
    g = torch.Generator().manual_seed(7 + shmem.my_pe())
    for (T, E, K, nodes, epn) in [(9, 32, 4, 2, 8), (5, 16, 8, 4, 4), (6, 12, 3, 12, 1), (3, 64, 6, 3, 16)]:
        scores = torch.rand((T, E), generator=g)
        idx, w = shmem.ep.select_topk(scores, K, nodes, epn)
        ridx, rw = ref.select_topk(scores, K, nodes, epn)
        assert idx.dtype == torch.int64 and w.dtype == torch.float32
        np.testing.assert_array_equal(idx.numpy(), ridx)
        np.testing.assert_array_equal(w.numpy(), rw)


def test_size_hint(shmem):
    n = shmem.n_pes()
    buf = shmem.ep.Buffer(None, T_MAX, HIDDEN, PER_PE * n, TOPK, use_fp8=True)
    plain = shmem.ep.Buffer(None, T_MAX, HIDDEN, PER_PE * n, TOPK, use_fp8=True, allocate_combine_buffer=False)
    hint = shmem.ep.Buffer.get_low_latency_rdma_size_hint(T_MAX, HIDDEN, n, PER_PE * n, TOPK, True)
    # the combine buffer ([L, R, hidden] bf16) is part of the buffer's block
    assert hint == buf.bytes == plain.bytes + PER_PE * n * T_MAX * HIDDEN * 2
    with pytest.raises(shmem.ArgumentError, match="allocate_combine_buffer=False"):
        plain.get_next_low_latency_combine_buffer(None)
    plain.destroy()
    buf.destroy()
