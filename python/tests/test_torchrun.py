"""kishmem under torchrun: no PMIx and no MPI, the PEs find each other through torch.distributed's
store (kishmem.init after init_process_group), and the refusals around it. test_core.py and
test_ep.py also run under torchrun (tests.cmake)."""
import os

import pytest
import torch
import torch.distributed as dist

from conftest import torchrun


def test_init_before_the_process_group_says_what_to_do():
    import kishmem
    if not torchrun() or kishmem.initialized() or dist.is_initialized():
        pytest.skip("runs first, under torchrun")
    with pytest.raises(kishmem.Error, match=r"started by torchrun .*init_process_group"):
        kishmem.init()
    assert not kishmem.initialized()


def test_bad_store_arguments():
    import kishmem
    if kishmem.initialized():
        pytest.skip("runs before kishmem starts")
    with pytest.raises(kishmem.ArgumentError, match="not a torch.distributed.Store"):
        kishmem.init(store={"a": 1})
    with pytest.raises(kishmem.ArgumentError, match=r"rank 5 is not in 0\.\.1"):
        kishmem.init(store=dist.HashStore(), rank=5, world_size=2)
    with pytest.raises(kishmem.ArgumentError, match="give comm or store"):
        kishmem.init(comm=object(), store=dist.HashStore())
    assert not kishmem.initialized()


def test_a_rank_that_never_comes_ends_the_wait_with_words():
    """A store start that waits for a rank that never comes ends at the hang bound, naming it."""
    import subprocess
    import sys
    code = "import kishmem, torch.distributed as d; kishmem.init(store=d.HashStore(), rank=0, world_size=2)"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCHELASTIC", "PMIX", "OMPI"))}
    env.update(KISHMEM_HEAP="host", KISHMEM_HANG_WARN="0", KISHMEM_HANG_ABORT="2")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert "shmem_init (store bootstrap): waited 2 s for every rank's part of the allgather" in r.stderr, r.stderr


def test_pes_are_the_ranks(shmem):
    assert shmem.my_pe() == dist.get_rank() == int(os.environ["RANK"])
    assert shmem.n_pes() == dist.get_world_size() == int(os.environ["WORLD_SIZE"])


def test_ring_put_through_the_store_bootstrap(shmem):
    me, n = shmem.my_pe(), shmem.n_pes()
    x = shmem.zeros((n, 64), dtype=torch.int64)
    shmem.barrier_all()
    for pe in range(n):
        shmem.put(x[me], torch.full((64,), 1000 * me + pe, dtype=torch.int64), pe)
    shmem.barrier_all()
    want = torch.tensor([[1000 * src + me] * 64 for src in range(n)], dtype=torch.int64)
    assert torch.equal(x.cpu(), want)
    shmem.free(x)


def test_teams_split_after_a_store_start(shmem):
    me, n = shmem.my_pe(), shmem.n_pes()
    even = shmem.TEAM_WORLD.split_strided(0, 2, (n + 1) // 2)
    if me % 2 == 0:
        assert even is not None and even.my_pe() == me // 2 and even.n_pes() == (n + 1) // 2
        even.destroy()
    else:
        assert even is None


def test_ep_buffer_over_the_process_group(shmem):
    """DeepEP's way: the buffer made over torch.distributed's group; one FP8 round checked."""
    from test_ep import HIDDEN, PER_PE, T_MAX, TOPK, check_round
    n = shmem.n_pes()
    buf = shmem.ep.Buffer(dist.group.WORLD, T_MAX, HIDDEN, PER_PE * n, TOPK, use_fp8=True)
    assert buf.group_size == n and buf.rank == dist.get_rank()
    check_round(shmem, buf, shmem.TEAM_WORLD, 77, True, torch.int64, False, True)
    buf.destroy()
