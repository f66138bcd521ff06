"""kishmem from Python: PEs, teams, symmetric tensors and arrays, RMA and signals.

    import kishmem, torch
    kishmem.init()                                  # under mpirun / srun --mpi=pmix (or kishmem.init(comm=MPI.COMM_WORLD))
    x = kishmem.zeros((4, 1024), dtype=torch.float32)   # symmetric: same shape on every PE
    kishmem.put(x[0], torch.ones(1024), (kishmem.my_pe() + 1) % kishmem.n_pes())
    kishmem.barrier_all()
    kishmem.free(x)                                 # collective, as shmem_free
    kishmem.finalize()

The heap is in GPU memory when the PE drives a GPU (KISHMEM_HEAP=auto), else host memory; tensors
come on that device. Every call checks its arguments and raises ArgumentError (a ValueError)
before anything is sent; kishmem.ep has the expert-parallel Buffer (DeepEP's low-latency API).
"""
from . import _kishmem as _c
from ._tensor import ArgumentError, Error
from . import _tensor as _t

__all__ = [
    "Error", "ArgumentError", "Team", "TEAM_WORLD", "TEAM_SHARED", "init", "finalize", "initialized", "my_pe", "n_pes",
    "barrier_all", "sync_all", "quiet", "fence", "heap_device", "empty", "zeros", "array", "free", "ptr", "team_ptr",
    "put", "get", "put_signal", "signal_fetch", "signal_wait_until", "atomic_fetch_add", "put_on_stream",
    "put_signal_on_stream", "signal_wait_until_on_stream", "quiet_on_stream", "barrier_all_on_stream",
    "team_from_comm", "SIGNAL_SET", "SIGNAL_ADD", "CMP_EQ", "CMP_NE", "CMP_GT", "CMP_GE", "CMP_LT", "CMP_LE", "has_cuda",
]

SIGNAL_SET, SIGNAL_ADD = _c.SIGNAL_SET, _c.SIGNAL_ADD
CMP_EQ, CMP_NE, CMP_GT, CMP_GE, CMP_LT, CMP_LE = _c.CMP_EQ, _c.CMP_NE, _c.CMP_GT, _c.CMP_GE, _c.CMP_LT, _c.CMP_LE
has_cuda = _c.has_cuda  # built with the on-stream calls and the GPU form
_c.ep._set_error_type(Error)


# ---- start and stop --------------------------------------------------------------------------
def init(comm=None, store=None, rank=None, world_size=None):
    """Starts kishmem (collective). Without comm or store, the launcher is found through PMIx
    (mpirun, srun --mpi=pmix; started alone, one PE), and under torchrun through
    torch.distributed's store (torch.distributed.init_process_group first). With an mpi4py
    communicator (after MPI is initialized), the PEs are exactly its processes, PE number == rank
    (shmemx_init_mpi). With a torch.distributed Store, the PEs find each other through it: PE
    number == rank, of world_size (default: torch.distributed's rank and world size, else the
    RANK and WORLD_SIZE variables)."""
    call = "kishmem.init"
    if _c.initialized():
        raise Error(f"{call}: kishmem is already initialized")
    if _c.finalized():
        raise Error(f"{call}: kishmem was finalized; OpenSHMEM allows one init per program")
    if comm is not None and store is not None:
        raise ArgumentError(f"{call}: give comm or store, not both")
    if comm is None and store is None and _torchrun():
        dist = _t.torch().distributed
        if not dist.is_initialized():
            raise Error(f"{call}: started by torchrun (which gives its workers neither PMIx nor MPI): call "
                        "torch.distributed.init_process_group() first (kishmem's PEs find each other through its "
                        "store), or launch with mpirun or srun --mpi=pmix")
        store = dist.distributed_c10d._get_default_store()
    if store is not None:
        _init_store(call, store, rank, world_size)
    elif comm is None:
        _c.init()
    else:
        from . import _kishmem_mpi as _m
        _m.init_mpi(_comm_handle(comm))
    p = _c.malloc(8)  # where the heap lives (host or which GPU): every tensor is made there
    _t.note_heap_device(p)
    _c.free(p)


def _torchrun():
    """Started by torchrun: its workers have no PMIx of their own (a PMIx server in their
    environment is that of the task that runs torchrun, one rank for all of them)."""
    import os
    return "TORCHELASTIC_RUN_ID" in os.environ


def _init_store(call, store, rank, world_size):
    import os
    dist = _t.torch().distributed
    if not isinstance(store, dist.Store):
        raise ArgumentError(f"{call}: store is a {type(store).__name__}, not a torch.distributed.Store")
    up = dist.is_initialized()
    if rank is None:
        rank = dist.get_rank() if up else os.environ.get("RANK")
    if world_size is None:
        world_size = dist.get_world_size() if up else os.environ.get("WORLD_SIZE")
    if rank is None or world_size is None:
        raise ArgumentError(f"{call}: with a store, give rank and world_size (torch.distributed is not initialized, "
                            "and RANK or WORLD_SIZE is unset)")
    rank, world_size = int(rank), int(world_size)
    if not 0 <= rank < world_size:
        raise ArgumentError(f"{call}: rank {rank} is not in 0..{world_size - 1}")
    # kishmem's keys apart from torch's own in a shared store
    _c.init_store(dist.PrefixStore("kishmem/", store), rank, world_size)


def finalize():
    """Ends kishmem (collective). Symmetric tensors must not be used afterwards; kishmem.ep
    buffers still alive are destroyed first (oldest first, on every PE alike)."""
    if not _c.initialized():
        raise Error("kishmem.finalize: kishmem is not initialized")
    ep._destroy_live()  # (their blocks are symmetric: freed collectively, before the heap goes)
    _c.finalize()
    _t.forget_heap()


def initialized():
    return _c.initialized()


def my_pe():
    _t.require_init("kishmem.my_pe")
    return _c.my_pe()


def n_pes():
    _t.require_init("kishmem.n_pes")
    return _c.n_pes()


def barrier_all():
    _t.require_init("shmem_barrier_all")
    _c.barrier_all()


def sync_all():
    _t.require_init("shmem_sync_all")
    _c.sync_all()


def quiet():
    _t.require_init("shmem_quiet")
    _c.quiet()


def fence():
    _t.require_init("shmem_fence")
    _c.fence()


def _comm_handle(comm):
    """The C handle of an mpi4py communicator (an int)."""
    if isinstance(comm, int):
        return comm
    from mpi4py import MPI
    if not isinstance(comm, MPI.Comm):
        raise ArgumentError(f"kishmem.init: comm is a {type(comm).__name__}, not an mpi4py communicator")
    return MPI._handleof(comm)


# ---- teams -----------------------------------------------------------------------------------
class Team:
    """An OpenSHMEM team. TEAM_WORLD and TEAM_SHARED exist from init; split_strided and
    team_from_comm make new ones (collective over the parent), destroy() ends them."""

    def __init__(self, handle, name):
        self._h = handle
        self._name = name
        self._alive = True

    def _handle(self, call):
        _t.require_init(call)
        if not self._alive:
            raise ArgumentError(f"{call}: team {self._name} was destroyed")
        return self._h

    def __repr__(self):
        return f"kishmem.Team({self._name})"

    def my_pe(self):
        return _c.team_my_pe(self._handle("shmem_team_my_pe"))

    def n_pes(self):
        return _c.team_n_pes(self._handle("shmem_team_n_pes"))

    def translate_pe(self, pe, dest_team):
        """This team's PE pe in dest_team (-1 when it is not a member)."""
        h = self._handle("shmem_team_translate_pe")
        pe = _t.check_pe("shmem_team_translate_pe", pe, _c.team_n_pes(h), team=f"team {self._name}")
        return _c.team_translate_pe(h, pe, _team_handle("shmem_team_translate_pe", "dest_team", dest_team))

    def split_strided(self, start, stride, size):
        """A team of this team's PEs start, start + stride, ... (size of them); None on PEs not in
        it. Collective over this team."""
        h = self._handle("shmem_team_split_strided")
        n = _c.team_n_pes(h)
        start, stride, size = (_t.integer("shmem_team_split_strided", name, v)
                               for name, v in (("start", start), ("stride", stride), ("size", size)))
        last = start + stride * (size - 1)
        if size < 1 or not (0 <= start < n) or not (0 <= last < n) or (size > 1 and stride == 0):
            raise ArgumentError(f"shmem_team_split_strided: start = {start}, stride = {stride}, size = {size} does not "
                                f"name {size} distinct PEs of team {self._name} (PEs 0..{n - 1})")
        rc, t = _c.team_split_strided(h, start, stride, size)
        if rc != 0:
            raise Error(f"shmem_team_split_strided: failed with {rc} (start = {start}, stride = {stride}, size = {size})")
        return Team(t, f"split({self._name}, {start}, {stride}, {size})") if t else None

    def sync(self):
        rc = _c.team_sync(self._handle("shmem_team_sync"))
        if rc != 0:
            raise Error(f"shmem_team_sync: failed with {rc}")

    def destroy(self):
        h = self._handle("shmem_team_destroy")
        if h in (_c.TEAM_WORLD, _c.TEAM_SHARED):
            raise ArgumentError(f"shmem_team_destroy: team {self._name} is predefined and cannot be destroyed")
        _c.team_destroy(h)
        self._alive = False


TEAM_WORLD = Team(_c.TEAM_WORLD, "TEAM_WORLD")
TEAM_SHARED = Team(_c.TEAM_SHARED, "TEAM_SHARED")


def team_from_comm(comm, parent=TEAM_WORLD):
    """A team of the processes of an mpi4py communicator (collective over parent; pass
    MPI.COMM_NULL on PEs that join none: they get None). Needs libkishmem_mpi."""
    from . import _kishmem_mpi as _m
    h = _m.team_from_mpi_comm(_comm_handle(comm), parent._handle("shmemx_team_from_mpi_comm"))
    return Team(h, "from_comm") if h else None


# ---- symmetric memory ------------------------------------------------------------------------
def heap_device():
    """Where symmetric tensors live: torch.device('cpu') for a host heap, else the GPU's."""
    _t.require_init("kishmem.heap_device")
    d = _t.heap_device_index()
    return _t.torch().device("cpu" if d == -1 else f"cuda:{d}")


def _team_handle(call, what, team):
    if not isinstance(team, Team):
        raise ArgumentError(f"{call}: {what} is a {type(team).__name__}, not a kishmem.Team (a PE left out of a split "
                            "gets None)")
    return team._handle(call)


def _alloc(call, shape, nbytes):
    """(the block's address, the shape): 0 for an empty shape, which takes no block (shmem_malloc
    of 0 bytes does nothing on every PE)."""
    _t.require_init(call)
    if not isinstance(shape, (tuple, list)):
        shape = (shape,)
    shape = tuple(_t.integer(call, "a size of shape", s) for s in shape)
    if any(s < 0 for s in shape):
        raise ArgumentError(f"{call}: shape {list(shape)} has a negative size")
    n = 1
    for s in shape:
        n *= s
    if n == 0:
        return 0, shape
    p = _c.malloc(n * nbytes) if n * nbytes < 2 ** 63 else 0
    if not p:
        raise Error(f"{call}: no symmetric heap left for {n * nbytes} bytes (shape {list(shape)}): raise SHMEM_SYMMETRIC_SIZE")
    return p, shape


def empty(shape, dtype=None):
    """A torch tensor in the symmetric heap (collective: every PE, same shape and dtype), on
    heap_device(). Uninitialized. Free it with kishmem.free (collective), not by dropping it."""
    t = _t.torch()
    dtype = dtype or t.float32
    if isinstance(dtype, str):
        dtype = getattr(t, dtype, dtype)
    if not isinstance(dtype, t.dtype) or _t.dtype_name(dtype) not in _t._DL:
        raise ArgumentError(f"kishmem.empty: dtype {dtype!r} is not supported")
    p, shape = _alloc("kishmem.empty", shape, t.empty((), dtype=dtype).element_size())
    if not p:  # (no element: no block)
        return t.empty(shape, dtype=dtype, device=heap_device())
    try:
        return _t.view(p, shape, dtype, _t.heap_device_index())
    except Exception as e:  # (every PE fails alike: the block goes back collectively)
        _c.free(p)
        raise ArgumentError(f"kishmem.empty: no {dtype} tensor over the symmetric block: {e}") from None


def zeros(shape, dtype=None):
    """As empty, filled with zeros (this PE's part; call barrier_all before peers write)."""
    x = empty(shape, dtype)
    x.zero_()
    return x


def array(shape, dtype="float64"):
    """A NumPy array in the symmetric heap (host heaps only; collective as empty)."""
    np = _t._np()
    _t.require_init("kishmem.array")
    if _t.heap_device_index() != -1:
        raise ArgumentError(f"kishmem.array: the symmetric heap is in {_t.device_word(_t.heap_device_index())}: "
                            "NumPy arrays need a host heap (KISHMEM_HEAP=host); use kishmem.empty for a tensor")
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = None
    if dt is None or dt.hasobject or dt.itemsize == 0:
        raise ArgumentError(f"kishmem.array: dtype {dtype!r} is not a fixed-size NumPy dtype of plain data")
    p, shape = _alloc("kishmem.array", shape, dt.itemsize)
    if not p:  # (no element: no block)
        return np.empty(shape, dt)
    try:
        return _t.array(p, shape, dt)
    except Exception as e:  # (every PE fails alike: the block goes back collectively)
        _c.free(p)
        raise ArgumentError(f"kishmem.array: no {dt} array over the symmetric block: {e}") from None


def free(x):
    """Frees a tensor or array made by empty/zeros/array (collective, as shmem_free). Neither it
    nor views of it may be used afterwards."""
    _t.require_init("shmem_free")
    m = _t.Mem(x, "shmem_free", "x")
    if m.nbytes == 0:  # (an empty one took no block: nothing to give back)
        return
    base = _c.block_of(m.addr, 0)
    if base != m.addr:
        raise ArgumentError(f"shmem_free: x (address {m.addr:#x}) is not a block made by kishmem.empty/zeros/array "
                            "(or it was freed already)")
    if _c.block_bytes(base) != m.nbytes:
        raise ArgumentError(f"shmem_free: x ({m.nbytes} bytes at {m.addr:#x}) is a view of a block of "
                            f"{_c.block_bytes(base)} bytes: free the tensor or array that kishmem made")
    _c.free(base)


def _peer_view(call, x, addr):
    if not addr:
        return None
    m = _t.Mem(x, call, "x")
    if _t.is_array(x):
        return _t.array(addr, m.shape, x.dtype)
    return _t.view(addr, m.shape, x.dtype, _t.heap_device_index())


def ptr(x, pe):
    """x's copy on PE pe as a tensor (array) this PE can load and store, or None when pe's heap
    is not mapped here (shmem_ptr)."""
    _t.require_init("shmem_ptr")
    m = _t.symmetric(x, "shmem_ptr", "x")
    pe = _t.check_pe("shmem_ptr", pe, _c.n_pes())
    return _peer_view("shmem_ptr", x, _c.ptr(m.addr, pe))


def team_ptr(team, x, pe):
    """As ptr, with pe numbered in team (shmem_team_ptr)."""
    h = _team_handle("shmem_team_ptr", "team", team)
    m = _t.symmetric(x, "shmem_team_ptr", "x")
    pe = _t.check_pe("shmem_team_ptr", pe, _c.team_n_pes(h), team=f"team {team._name}")
    return _peer_view("shmem_team_ptr", x, _c.team_ptr(h, m.addr, pe))


# ---- RMA and signals -------------------------------------------------------------------------
def _pair(call, sym, loc, sym_what, loc_what, pe, loc_written=False):
    """The symmetric and the local Mem of an RMA call (same dtype and size) and its PE as an int;
    loc_written: the call writes the local buffer (a get)."""
    _t.require_init(call)
    s = _t.symmetric(sym, call, sym_what)
    l = _t.local(loc, call, loc_what, written=loc_written)
    if s.dtype != l.dtype:
        raise ArgumentError(f"{call}: {sym_what} has dtype {s.dtype} but {loc_what} has dtype {l.dtype}")
    if s.nbytes != l.nbytes:
        raise ArgumentError(f"{call}: {sym_what} has {s.nbytes} bytes (shape {list(s.shape)}) but {loc_what} has "
                            f"{l.nbytes} (shape {list(l.shape)})")
    return s, l, _t.check_pe(call, pe, _c.n_pes())


def put(dest, src, pe, nbi=False):
    """dest (symmetric) on PE pe = src (local, same dtype and size). nbi: returns at once,
    complete at quiet/barrier."""
    call = "shmem_putmem_nbi" if nbi else "shmem_putmem"
    d, s, pe = _pair(call, dest, src, "dest", "src", pe)
    if d.nbytes:
        (_c.putmem_nbi if nbi else _c.putmem)(d.addr, s.addr, d.nbytes, pe)


def get(dest, src, pe, nbi=False):
    """dest (local) = src (symmetric) from PE pe."""
    call = "shmem_getmem_nbi" if nbi else "shmem_getmem"
    s, d, pe = _pair(call, src, dest, "src", "dest", pe, loc_written=True)
    if d.nbytes:
        (_c.getmem_nbi if nbi else _c.getmem)(d.addr, s.addr, d.nbytes, pe)


def _signal(call, sig):
    m = _t.symmetric(sig, call, "signal", align=8)
    if m.dtype not in ("int64", "uint64") or m.nbytes != 8:
        raise ArgumentError(f"{call}: signal must be one int64 or uint64 element in the symmetric heap, got dtype "
                            f"{m.dtype} shape {list(m.shape)}")
    return m


def _u64(call, what, v):
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2 ** 64:
        raise ArgumentError(f"{call}: {what} = {v!r} is not an integer in 0..2**64-1")
    return v


def _one_of(v, codes):
    """Whether v is one of the int codes (not a bool or a float that compares equal to one)."""
    return not isinstance(v, bool) and isinstance(v, int) and v in codes


def _sig_op(call, op):
    if not _one_of(op, (SIGNAL_SET, SIGNAL_ADD)):
        raise ArgumentError(f"{call}: sig_op = {op!r} is neither SIGNAL_SET nor SIGNAL_ADD")


def put_signal(dest, src, signal, value, pe, op=SIGNAL_SET):
    """put, then the signal word on PE pe set to (or increased by) value once the data is there."""
    call = "shmem_putmem_signal"
    d, s, pe = _pair(call, dest, src, "dest", "src", pe)
    g = _signal(call, signal)
    _sig_op(call, op)
    _c.putmem_signal(d.addr, s.addr, d.nbytes, g.addr, _u64(call, "value", value), op, pe)


def signal_fetch(signal):
    _t.require_init("shmem_signal_fetch")
    return _c.signal_fetch(_signal("shmem_signal_fetch", signal).addr)


def _cmp(call, cmp):
    if not _one_of(cmp, (CMP_EQ, CMP_NE, CMP_GT, CMP_GE, CMP_LT, CMP_LE)):
        raise ArgumentError(f"{call}: cmp = {cmp!r} is not one of kishmem.CMP_*")


def signal_wait_until(signal, cmp, value):
    """Waits until this PE's signal word compares true with value; returns the word."""
    call = "shmem_signal_wait_until"
    _t.require_init(call)
    g = _signal(call, signal)
    _cmp(call, cmp)
    return _c.signal_wait_until(g.addr, cmp, _u64(call, "value", value))


def atomic_fetch_add(dest, value, pe):
    """Adds value to the int64 dest on PE pe atomically; returns the old value."""
    call = "shmem_int64_atomic_fetch_add"
    _t.require_init(call)
    m = _t.symmetric(dest, call, "dest", align=8)
    if m.dtype != "int64" or m.nbytes != 8:
        raise ArgumentError(f"{call}: dest must be one int64 element, got dtype {m.dtype} shape {list(m.shape)}")
    if isinstance(value, bool) or not isinstance(value, int) or not -2 ** 63 <= value < 2 ** 63:
        raise ArgumentError(f"{call}: value = {value!r} is not an int64")
    return _c.atomic_fetch_add(m.addr, value, _t.check_pe(call, pe, _c.n_pes()))


# ---- on a CUDA stream (GPU heap) -------------------------------------------------------------
def _stream(call, stream):
    if not _c.has_cuda:
        raise Error(f"{call}: this kishmem was built without CUDA")
    d = _t.heap_device_index()
    if d is None or d < 0:
        raise ArgumentError(f"{call}: the symmetric heap is in host memory: on-stream calls need a GPU heap")
    if stream is None:
        return _t.current_stream_handle(d)
    t = _t.torch()
    if not isinstance(stream, t.cuda.Stream):
        raise ArgumentError(f"{call}: stream is a {type(stream).__name__}, not a torch.cuda.Stream")
    if stream.device.index != d:
        raise ArgumentError(f"{call}: the stream is on cuda:{stream.device.index} but the heap on cuda:{d}")
    return stream.cuda_stream


def put_on_stream(dest, src, pe, stream=None):
    """put ordered on a torch.cuda.Stream (default: the current one); capturable."""
    call = "shmemx_putmem_on_stream"
    d, s, pe = _pair(call, dest, src, "dest", "src", pe)
    st = _stream(call, stream)
    _c.putmem_on_stream(d.addr, s.addr, d.nbytes, pe, st)


def put_signal_on_stream(dest, src, signal, value, pe, op=SIGNAL_SET, stream=None):
    call = "shmemx_putmem_signal_on_stream"
    d, s, pe = _pair(call, dest, src, "dest", "src", pe)
    g = _signal(call, signal)
    _sig_op(call, op)
    st = _stream(call, stream)
    _c.putmem_signal_on_stream(d.addr, s.addr, d.nbytes, g.addr, _u64(call, "value", value), op, pe, st)


def signal_wait_until_on_stream(signal, cmp, value, stream=None):
    call = "shmemx_signal_wait_until_on_stream"
    _t.require_init(call)
    g = _signal(call, signal)
    _cmp(call, cmp)
    st = _stream(call, stream)
    _c.signal_wait_until_on_stream(g.addr, cmp, _u64(call, "value", value), st)


def quiet_on_stream(stream=None):
    _t.require_init("shmemx_quiet_on_stream")
    st = _stream("shmemx_quiet_on_stream", stream)
    _c.quiet_on_stream(st)


def barrier_all_on_stream(stream=None):
    _t.require_init("shmemx_barrier_all_on_stream")
    st = _stream("shmemx_barrier_all_on_stream", stream)
    _c.barrier_all_on_stream(st)


from . import ep  # noqa: E402  (after the names ep uses)
