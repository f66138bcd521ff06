"""kishmem.init(comm=...) from an mpi4py program: PEs are the communicator's ranks; teams and an
ep buffer from communicators. Skipped (exit 77) without mpi4py."""
import pytest
import torch

MPI = pytest.importorskip("mpi4py.MPI")
import kishmem  # noqa: E402


def test_init_over_comm():
    comm = MPI.COMM_WORLD
    kishmem.init(comm=comm)
    assert kishmem.my_pe() == comm.Get_rank() and kishmem.n_pes() == comm.Get_size()
    me, n = kishmem.my_pe(), kishmem.n_pes()
    x = kishmem.zeros((16,), dtype=torch.int64)
    kishmem.barrier_all()
    kishmem.put(x, torch.arange(16) + 100 * me, (me + 1) % n)
    kishmem.barrier_all()
    assert torch.equal(x, torch.arange(16) + 100 * ((me - 1) % n))
    # MPI still works beside it, and agrees
    assert comm.allreduce(int(x.sum())) == sum(int((torch.arange(16) + 100 * p).sum()) for p in range(n))
    kishmem.barrier_all()
    kishmem.free(x)


def test_team_and_buffer_from_comm():
    comm = MPI.COMM_WORLD
    me, n = comm.Get_rank(), comm.Get_size()
    sub = comm.Split(me % 2, me)
    team = kishmem.team_from_comm(sub)
    assert team.n_pes() == sub.Get_size() and team.my_pe() == sub.Get_rank()
    buf = kishmem.ep.Buffer(sub, 4, 128, 2 * sub.Get_size(), 1, use_fp8=False)
    assert buf.group_size == sub.Get_size()
    x = torch.full((4, 128), float(me + 1), dtype=torch.bfloat16)
    r = sub.Get_rank()
    idx = torch.full((4, 1), (2 * r + 2) % (2 * sub.Get_size()), dtype=torch.int64)  # the next team PE's first expert
    recv_x, recv_count, handle, _, _ = buf.low_latency_dispatch(x, idx, 4, 2 * sub.Get_size(), use_fp8=False)
    left = sub.allgather(me)[(r - 1) % sub.Get_size()]
    assert recv_count.tolist() == [4, 0]
    assert torch.equal(recv_x[0, :4], torch.full((4, 128), float(left + 1), dtype=torch.bfloat16))
    y = torch.ones((2, 4 * sub.Get_size(), 128), dtype=torch.bfloat16)
    out, _, _ = buf.low_latency_combine(y, idx, torch.full((4, 1), 3.0), handle)
    assert torch.equal(out, torch.full((4, 128), 3.0, dtype=torch.bfloat16))
    buf.destroy()
    team.destroy()
    sub.Free()
