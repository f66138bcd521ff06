"""kishmem's core calls on the host heap, every result checked against values computed here."""
import numpy as np
import pytest
import torch

from conftest import world_size


def test_pes(shmem):
    assert shmem.initialized()
    assert shmem.n_pes() == world_size()
    assert 0 <= shmem.my_pe() < shmem.n_pes()
    assert shmem.heap_device() == torch.device("cpu")
    assert shmem.TEAM_WORLD.n_pes() == shmem.n_pes() and shmem.TEAM_WORLD.my_pe() == shmem.my_pe()


def fill(pe, shape, dtype, salt=0):
    """What PE pe sends: distinct per PE, per element and per test (exact in every dtype used)."""
    n = int(np.prod(shape))
    v = (torch.arange(n, dtype=torch.int64) % 97) + 100 * (pe % 3) + salt
    return v.to(dtype).reshape(shape)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.int32,
                                   torch.int64, torch.uint8, torch.bool])
def test_put_get_ring(shmem, dtype):
    me, n = shmem.my_pe(), shmem.n_pes()
    right, left = (me + 1) % n, (me - 1) % n
    x = shmem.zeros((3, 40), dtype=dtype)
    assert x.dtype == dtype and x.shape == (3, 40) and x.device.type == "cpu"
    shmem.barrier_all()  # every PE zeroed before anyone writes
    shmem.put(x, fill(me, (3, 40), dtype), right)
    shmem.barrier_all()
    assert torch.equal(x, fill(left, (3, 40), dtype))
    got = torch.empty((3, 40), dtype=dtype)
    shmem.get(got, x, right)  # right's x holds what its left (this PE) sent
    assert torch.equal(got, fill(me, (3, 40), dtype))
    shmem.barrier_all()
    shmem.free(x)


def test_empty_and_numpy_pe(shmem):
    """Empty tensors and arrays take no block (shmem_malloc of 0 bytes does nothing); moving zero
    bytes is no operation; free of them does nothing; a NumPy integer is a PE number."""
    me, n = shmem.my_pe(), shmem.n_pes()
    blocks = shmem._kishmem.heap_size()
    z = shmem.zeros((0, 4))
    a = shmem.array((0,), "float32")
    assert z.shape == (0, 4) and a.shape == (0,) and shmem._kishmem.heap_size() == blocks
    shmem.put(z, torch.zeros((0, 4)), (me + 1) % n)
    shmem.get(torch.zeros((0, 4)), z, np.int64((me + 1) % n))
    shmem.free(z)
    shmem.free(a)
    assert shmem._kishmem.heap_size() == blocks
    x = shmem.zeros((2,), dtype=torch.bool)
    shmem.barrier_all()
    shmem.put(x, torch.tensor([True, False]), np.int32((me + 1) % n))
    shmem.barrier_all()
    assert x.tolist() == [True, False]
    shmem.barrier_all()
    shmem.free(x)


def test_put_row_and_nbi(shmem):
    me, n = shmem.my_pe(), shmem.n_pes()
    x = shmem.zeros((n, 16), dtype=torch.int64)
    shmem.barrier_all()
    for p in range(n):  # row me of every PE's x
        shmem.put(x[me], fill(me, (16,), torch.int64, salt=p), p, nbi=True)
    shmem.quiet()
    shmem.barrier_all()
    for p in range(n):
        assert torch.equal(x[p], fill(p, (16,), torch.int64, salt=me))
    got = torch.zeros((n, 16), dtype=torch.int64)
    for p in range(n):
        shmem.get(got[p], x[p], p, nbi=True)
    shmem.quiet()
    for p in range(n):
        assert torch.equal(got[p], fill(p, (16,), torch.int64, salt=p))
    shmem.barrier_all()
    shmem.free(x)


def test_numpy_array(shmem):
    me, n = shmem.my_pe(), shmem.n_pes()
    a = shmem.array((5, 8), dtype=np.float64)
    assert isinstance(a, np.ndarray) and a.shape == (5, 8) and a.dtype == np.float64
    a[:] = -1.0
    shmem.barrier_all()
    src = np.arange(40, dtype=np.float64).reshape(5, 8) * (me + 1) + 0.25
    shmem.put(a, src, (me + 1) % n)
    shmem.barrier_all()
    left = (me - 1) % n
    np.testing.assert_array_equal(a, np.arange(40, dtype=np.float64).reshape(5, 8) * (left + 1) + 0.25)
    # a tensor source into an array destination of the same dtype and size
    shmem.barrier_all()
    shmem.put(a, torch.full((5, 8), float(me), dtype=torch.float64), (me + 1) % n)
    shmem.barrier_all()
    np.testing.assert_array_equal(a, np.full((5, 8), float(left)))
    shmem.barrier_all()
    shmem.free(a)


def test_put_signal(shmem):
    me, n = shmem.my_pe(), shmem.n_pes()
    data = shmem.zeros((n, 32), dtype=torch.float32)
    sig = shmem.zeros((1,), dtype=torch.int64)
    shmem.barrier_all()
    for p in range(n):  # row me on every PE, each adding 1 to its signal
        shmem.put_signal(data[me], torch.full((32,), me + 0.5), sig, 1, p, op=shmem.SIGNAL_ADD)
    assert shmem.signal_wait_until(sig, shmem.CMP_GE, n) == n
    assert shmem.signal_fetch(sig) == n
    for p in range(n):
        assert torch.equal(data[p], torch.full((32,), p + 0.5))
    shmem.barrier_all()
    shmem.put_signal(data[me], torch.zeros(32), sig, 1000 + me, (me + 1) % n)  # SIGNAL_SET
    assert shmem.signal_wait_until(sig, shmem.CMP_EQ, 1000 + (me - 1) % n) == 1000 + (me - 1) % n
    shmem.barrier_all()
    shmem.free(sig)
    shmem.free(data)


def test_atomic_fetch_add(shmem):
    me, n = shmem.my_pe(), shmem.n_pes()
    c = shmem.zeros((1,), dtype=torch.int64)
    shmem.barrier_all()
    olds = [shmem.atomic_fetch_add(c, (me + 1) * 10 ** k, 0) for k in range(3)]
    shmem.barrier_all()
    total = sum((p + 1) * (1 + 10 + 100) for p in range(n))
    if me == 0:
        assert int(c[0]) == total
    got = torch.zeros(1, dtype=torch.int64)
    shmem.get(got, c, 0)
    assert int(got[0]) == total
    assert all(0 <= o < total for o in olds) and olds[0] < olds[1] < olds[2]
    shmem.barrier_all()
    shmem.free(c)


def test_ptr(shmem):
    me, n = shmem.my_pe(), shmem.n_pes()
    x = shmem.zeros((4, 4), dtype=torch.float32)
    mine = shmem.ptr(x, me)
    assert mine is not None and mine.data_ptr() == x.data_ptr()
    shmem.barrier_all()
    right = (me + 1) % n
    peer = shmem.ptr(x, right)
    if peer is not None:  # same-host PEs map each other's heap: a store there is a put
        peer[1] = float(me + 7)
    else:
        shmem.put(x[1], torch.full((4,), float(me + 7)), right)
    shmem.barrier_all()
    assert torch.equal(x[1], torch.full((4,), float((me - 1) % n + 7)))
    assert torch.equal(x[0], torch.zeros(4))
    a = shmem.TEAM_WORLD
    assert shmem.team_ptr(a, x, me).data_ptr() == x.data_ptr()
    shmem.barrier_all()
    shmem.free(x)


def test_teams(shmem):
    me, n = shmem.my_pe(), shmem.n_pes()
    size = (n + 1) // 2
    even = shmem.TEAM_WORLD.split_strided(np.int64(0), np.int32(2), torch.tensor(size))  # (NumPy and torch integers too)
    if me % 2 == 0:
        assert even is not None
        assert even.my_pe() == me // 2 and even.n_pes() == size
        for r in range(size):
            assert even.translate_pe(r, shmem.TEAM_WORLD) == 2 * r
        even.sync()
    else:
        assert even is None
    assert shmem.TEAM_SHARED.n_pes() == n  # one host
    x = shmem.zeros((2,), dtype=torch.int32)
    shmem.barrier_all()
    if even is not None:
        peer = (even.my_pe() + 1) % size
        p = shmem.team_ptr(even, x, peer)
        assert p is not None and p.data_ptr() == shmem.ptr(x, 2 * peer).data_ptr()
        even.destroy()
    shmem.barrier_all()
    shmem.free(x)


def test_free_and_reuse(shmem):
    me = shmem.my_pe()
    blocks = [shmem.empty((1000,), dtype=torch.float64) for _ in range(3)]
    addrs = [b.data_ptr() for b in blocks]
    assert len(set(addrs)) == 3
    shmem.free(blocks[1])
    with pytest.raises(shmem.ArgumentError, match="is not in the symmetric heap"):
        shmem.put(blocks[1], torch.zeros(1000, dtype=torch.float64), me)  # freed: no longer symmetric
    again = shmem.empty((1000,), dtype=torch.float64)
    shmem.put(again, torch.arange(1000, dtype=torch.float64), me)
    shmem.quiet()
    assert torch.equal(again, torch.arange(1000, dtype=torch.float64))
    shmem.free(again)
    shmem.free(blocks[0])
    shmem.free(blocks[2])
