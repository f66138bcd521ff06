"""kishmem.ep: expert-parallel dispatch and combine (MoE) with DeepEP's low-latency API.

    buf = kishmem.ep.Buffer(kishmem.TEAM_WORLD, num_max_dispatch_tokens_per_rank=128, hidden=7168,
                            num_experts=256, num_topk=8)
    recv_x, recv_count, handle, event, hook = buf.low_latency_dispatch(x, topk_idx, 128, 256)
    ...   # expert e's rows [0, recv_count[e]) of recv_x[e] -> y[e]
    out, event, hook = buf.low_latency_combine(y, topk_idx, topk_weights, handle)

On a GPU heap the calls run kernels on torch.cuda.current_stream(); on a host heap (no GPU, or
KISHMEM_HEAP=host) the CPU form of kishmem::ep runs them and they are done on return. What
differs from DeepEP: python/README.md.
"""
import sys
import weakref

from . import _kishmem as _c
from . import _tensor as _t
from ._tensor import ArgumentError, Error

__all__ = ["Buffer", "Handle", "EventOverlap", "select_topk", "dequantize"]

_SRC_WORDS = _c.ep.SRC_INFO_WORDS  # int32 words of one SrcInfo {pe, token, k, round}


class EventOverlap:
    """DeepEP's EventOverlap: event is a torch.cuda.Event recorded after the call (GPU heap with
    async_finish), else None (the call's work is ordered on the current stream, or done)."""

    def __init__(self, event=None):
        self.event = event

    def current_stream_wait(self):
        if self.event is not None:
            _t.torch().cuda.current_stream().wait_event(self.event)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.current_stream_wait()


# What low_latency_dispatch hands to low_latency_combine (made by the binding): round, num_tokens,
# topk_idx_shape, src_info ([num_local_experts, num_max_dispatch_tokens_per_rank * num_ranks, 4]
# int32 rows {pe, token, k, round}; rows [0, recv_count[e]) of expert e are valid), and the
# buffer's num_max_dispatch_tokens_per_rank, hidden and num_experts as DeepEP's handle has them.
Handle = _c.ep.Handle

_NO_EVENT = EventOverlap()  # (no state: one for every call without async_finish)


class _Hook:
    """A receive hook (return_recv_hook=True): hook() runs the receive. It keeps the call's tensors
    that the receive still reads or writes alive until it is dropped, as DeepEP's hooks hold them:
    a temporary given to the call is otherwise freed, and its memory handed to other work, before
    the receive uses it."""
    __slots__ = ("_recv", "_keep")

    def __init__(self, recv, keep):
        self._recv = recv
        self._keep = keep

    def __call__(self):
        self._recv()


# The buffers alive, oldest first: kishmem.finalize destroys them before the heap goes (their
# blocks are symmetric, so freeing them is collective and cannot wait for the garbage collector).
_live = {}


def _destroy_live():
    for ref in list(_live.values()):
        b = ref()
        if b is not None and b._b.alive:
            b.destroy()
    _live.clear()


class Buffer:
    """One expert-parallel buffer over a group of PEs (collective: every PE of kishmem's world
    makes it, with the same arguments; the group's PEs exchange tokens).

    group: a kishmem.Team (default TEAM_WORLD), an mpi4py communicator, or a
    torch.distributed ProcessGroup that spans the whole job (rank == PE).
    use_fp8: what dispatch sends (FP8 E4M3 + a float scale per 128 channels, or bf16); fixed per
    buffer. allocate_combine_buffer: also a symmetric [L, R, hidden] bf16 tensor for
    get_next_low_latency_combine_buffer (zero-copy combine), held in the buffer's own block
    (kishmem::ep::Config::combine_buffer): a combine of it does not wait for the peers to finish
    reading it, so write it only after the round's dispatch (its hook), as experts do."""

    def __init__(self, group=None, num_max_dispatch_tokens_per_rank=128, hidden=7168, num_experts=None, num_topk=8,
                 use_fp8=True, num_sms=0, allocate_combine_buffer=True):
        _t.require_init("kishmem.ep.Buffer")
        # What this PE refuses on its own (the group; a size that is no integer or beyond the
        # library's int) still goes through the collective creation, with an invalid team or -1
        # for that size, which the library refuses on every PE, so that no PE waits for this one.
        own = []
        try:
            self.team = _team_of(group)
            team = self.team._handle("kishmem.ep.Buffer")
        except ArgumentError as e:
            own.append(str(e).removeprefix("kishmem.ep.Buffer: "))
            self.team, team = None, 0  # (SHMEM_TEAM_INVALID)
        if num_experts is None:
            own.append("num_experts is required (a multiple of the group size)")
            num_experts = -1
        T, H, E, K, sms = (_c_int(name, v, own) for name, v in (
            ("num_max_dispatch_tokens_per_rank", num_max_dispatch_tokens_per_rank), ("hidden", hidden),
            ("num_experts", num_experts), ("num_topk", num_topk), ("num_sms", num_sms)))
        self.use_fp8 = bool(use_fp8)
        try:
            self._b = _c.ep.Buffer(team, T, H, K, E, self.use_fp8, sms, bool(allocate_combine_buffer))
        except Error:
            if own:
                raise ArgumentError(f"kishmem.ep.Buffer: PE {_c.my_pe()}: " + "; ".join(own)) from None
            raise
        self.num_max_dispatch_tokens_per_rank, self.hidden, self.num_experts, self.num_topk = T, H, E, K
        self.group_size = self.team.n_pes()
        self.rank = self.team.my_pe()
        _live[id(self)] = weakref.ref(self)
        self.num_local_experts = self.num_experts // self.group_size
        self.num_recv_rows = self.group_size * self.num_max_dispatch_tokens_per_rank
        self._dev = _t.heap_device_index()
        torch = _t.torch()
        self._device = torch.device("cpu" if self._dev == -1 else f"cuda:{self._dev}")
        self._Tensor = torch.Tensor
        self._bf16 = (torch.bfloat16,)
        self._f32 = (torch.float32,)
        self._i32 = (torch.int32,)
        self._idx = (torch.int64, torch.int32)
        self._int64 = torch.int64
        self._x_shape = torch.Size((self.num_local_experts, self.num_recv_rows, self.hidden))
        self._combine_buffer = None
        self._scratch_word = None
        self._b.set_torch(torch.Tensor, torch.bfloat16, torch.float32, torch.int32, torch.int64, self._dev,
                          None if self._dev == -1 else _t.current_stream_function(), self.num_local_experts,
                          self.num_recv_rows)
        if allocate_combine_buffer:
            self._combine_ptr = self._b.combine_buffer
            self._combine_buffer = _t.view(self._combine_ptr, (self.num_local_experts, self.num_recv_rows, self.hidden),
                                           torch.bfloat16, self._dev)

    # ---- sizes -------------------------------------------------------------------------------
    @staticmethod
    def get_low_latency_rdma_size_hint(num_max_dispatch_tokens_per_rank, hidden, num_ranks, num_experts, num_topk=8,
                                       use_fp8=True):
        """Symmetric heap bytes one buffer takes per PE (kishmem::ep::Buffer::bytes_for), its
        zero-copy combine buffer included."""
        return _c.ep.Buffer.bytes_for(num_max_dispatch_tokens_per_rank, hidden, num_topk, num_experts, use_fp8, num_ranks,
                                      True)

    @property
    def bytes(self):
        return self._b.bytes

    @property
    def on_gpu(self):
        return self._b.on_gpu

    @property
    def device(self):
        return self._device

    def destroy(self):
        """Frees the buffer (collective, as its creation)."""
        self._b.destroy()
        self._combine_buffer = None
        _live.pop(id(self), None)

    # ---- helpers -----------------------------------------------------------------------------
    def _alive(self):
        """Raises where the buffer was destroyed, before a call's own checks, whose messages name
        this PE (after kishmem.finalize, which destroys every buffer, asking the library for it
        would end the job): the binding's lookup of the buffer, as its own calls make it."""
        self._b.bytes  # noqa: B018 (raises "the buffer was destroyed")

    def _stream(self):
        return 0 if self._dev == -1 else _t.current_stream_handle(self._dev)

    def _event(self, async_finish):
        if self._dev == -1 or not async_finish:
            return _NO_EVENT
        ev = _t.torch().cuda.Event()
        ev.record(_t.torch().cuda.current_stream(self._dev))
        return EventOverlap(ev)

    def _tensor(self, obj, what, dtypes, shape):
        """'' when obj is a contiguous tensor of one of dtypes (torch dtype objects), shape and
        this buffer's device; else why not."""
        # The hot path: a plain tensor as expected, tested once, no message made (a subclass, or
        # anything else, goes through the checks below).
        if (type(obj) is self._Tensor and obj.dtype in dtypes and obj.shape == shape and obj.get_device() == self._dev
                and (self._dev >= 0 or obj.device.type == "cpu") and obj.is_contiguous()):
            return ""
        if not _t.is_tensor(obj):
            return f"{what} is a {type(obj).__name__}, not a torch tensor"
        if obj.dtype not in dtypes:
            return (f"{what} has dtype torch.{_t.dtype_name(obj.dtype)}, expected "
                    + " or ".join(f"torch.{_t.dtype_name(d)}" for d in dtypes))
        if obj.shape != shape:  # (torch.Size is a tuple)
            return f"{what} has shape {list(obj.shape)}, expected {list(shape)}"
        # (is_cuda and get_device: no torch.device made on the GPU form's every call)
        dev = obj.get_device() if obj.is_cuda else (-1 if obj.device.type == "cpu" else -2)
        if dev != self._dev:
            return f"{what} is on {obj.device} but the buffer is on {self.device}"
        if not obj.is_contiguous():
            return f"{what} is not contiguous"
        return ""

    def _scratch(self):
        if self._scratch_word is None:
            self._scratch_word = _t.torch().zeros(8, dtype=_t.torch().bfloat16, device=self.device)
        return self._scratch_word

    def _refuse_dispatch(self, why):
        try:
            self._b.refuse_dispatch(self._stream(), why)
        except Error as e:
            raise ArgumentError(str(e)) from None
        raise ArgumentError(f"kishmem::ep::dispatch: PE {_c.my_pe()}: {why}")

    def _refuse_combine(self, call, why):
        try:
            self._b.refuse_combine(self._stream(), call, why)
        except Error as e:
            raise ArgumentError(str(e)) from None
        raise ArgumentError(f"kishmem::ep::{call}: PE {_c.my_pe()}: {why}")

    def _viewed(self, r):
        """The binding's dispatch result (the receive buffers' addresses, handle), as the first
        dispatch gives it, as (recv_x, recv_count, handle): views made over the buffers, which the
        binding then keeps and returns itself."""
        ptrs, handle = r
        torch = _t.torch()
        x, scales, count, src, L, R = ptrs
        H = self.hidden
        if self.use_fp8:
            fp8 = getattr(torch, "float8_e4m3fn", torch.uint8)
            rx = (_t.view(x, (L, R, H), fp8, self._dev), _t.view(scales, (L, R, H // 128), torch.float32, self._dev))
        else:
            rx = _t.view(x, (L, R, H), torch.bfloat16, self._dev)
        views = (rx, _t.view(count, (L,), torch.int32, self._dev), _t.view(src, (L, R, _SRC_WORDS), torch.int32, self._dev))
        self._b.set_views(ptrs, views)
        handle.src_info = views[2]
        return views[0], views[1], handle

    # ---- dispatch ----------------------------------------------------------------------------
    def low_latency_dispatch(self, x, topk_idx, num_max_dispatch_tokens_per_rank, num_experts,
                             cumulative_local_expert_recv_stats=None, dispatch_wait_recv_cost_stats=None, use_fp8=True,
                             round_scale=False, use_ue8m0=False, async_finish=False, return_recv_hook=False,
                             use_per_tensor_quantization=False, static_scale=None):
        """Sends each token x[t] ([num_tokens, hidden] bf16) to the PEs of its experts
        topk_idx[t] ([num_tokens, num_topk] int64 or int32, -1: none). Returns (recv_x, recv_count,
        handle, event, hook): recv_x is (FP8 [L, R, hidden], scales [L, R, hidden // 128] float32)
        with use_fp8, else bf16 [L, R, hidden] (L = local experts, R = group size x
        num_max_dispatch_tokens_per_rank; rows [0, recv_count[e]) of expert e are filled);
        recv_count [L] int32. Views into the buffer: valid until the next dispatch. With
        return_recv_hook the call only sends; hook() receives (recv_x and recv_count are filled
        then). DeepEP's round_scale, use_ue8m0, dispatch_wait_recv_cost_stats,
        use_per_tensor_quantization and static_scale are taken at their defaults only."""
        stats = cumulative_local_expert_recv_stats
        r = None
        # The binding checks plain tensors itself and launches (no Python check run); anything it
        # does not take, or a check that fails there, goes through the checks below.
        if (stats is None and num_max_dispatch_tokens_per_rank == self.num_max_dispatch_tokens_per_rank
                and num_experts == self.num_experts and use_fp8 is self.use_fp8 and not round_scale and not use_ue8m0
                and dispatch_wait_recv_cost_stats is None and not use_per_tensor_quantization and static_scale is None):
            r = self._b.dispatch_fast(self, x, topk_idx, return_recv_hook)
        if r is None:
            r = self._dispatch_checked(x, topk_idx, num_max_dispatch_tokens_per_rank, num_experts, stats, use_fp8,
                                       _unsupported_dispatch(round_scale or use_ue8m0, dispatch_wait_recv_cost_stats,
                                                             use_per_tensor_quantization or static_scale is not None),
                                       return_recv_hook)
        if len(r) != 3:
            r = self._viewed(r)
        event = self._event(async_finish)
        if return_recv_hook:
            recv_count, handle = r[1], r[2]

            def recv():
                self._b.dispatch_recv(self._stream(), handle)
                if stats is not None:
                    stats.add_(recv_count)
            return r + (event, _Hook(recv, ()))
        if stats is not None:
            stats.add_(r[1])
        return r + (event, None)

    def _dispatch_checked(self, x, topk_idx, num_max_dispatch_tokens_per_rank, num_experts, stats, use_fp8, unsupported,
                          send_only):
        """low_latency_dispatch with every argument checked here: refused with the reason, or launched."""
        why = ""
        if num_max_dispatch_tokens_per_rank != self.num_max_dispatch_tokens_per_rank:
            why = (f"num_max_dispatch_tokens_per_rank = {num_max_dispatch_tokens_per_rank} but the buffer was made for "
                   f"{self.num_max_dispatch_tokens_per_rank}")
        elif num_experts != self.num_experts:
            why = f"num_experts = {num_experts} but the buffer was made for {self.num_experts}"
        elif bool(use_fp8) != self.use_fp8:
            why = (f"use_fp8 = {bool(use_fp8)} but the buffer was made with use_fp8 = {self.use_fp8} (one format per "
                   "buffer: make a second buffer for the other)")
        elif unsupported:
            why = unsupported
        elif not _t.is_tensor(x) or x.dim() != 2:
            why = (f"x must be a 2-D torch tensor [num_tokens, hidden], got "
                   f"{list(x.shape) if _t.is_tensor(x) else type(x).__name__}")
        else:
            T = x.shape[0]
            why = self._tensor(x, "x", self._bf16, (T, self.hidden))
            if not why and T > self.num_max_dispatch_tokens_per_rank:
                why = f"x has {T} tokens but the buffer holds at most {self.num_max_dispatch_tokens_per_rank} per PE"
            if not why:
                why = self._tensor(topk_idx, "topk_idx", self._idx, (T, self.num_topk))
            if not why and stats is not None:
                why = self._tensor(stats, "cumulative_local_expert_recv_stats", self._i32, (self.num_local_experts,))
        if why:
            self._refuse_dispatch(why)
        return self._b.dispatch(self, self._stream(), x.data_ptr(), topk_idx.data_ptr(), topk_idx.dtype is self._int64, T,
                                topk_idx.shape, bool(send_only))

    def received_bf16(self, handle, out=None):
        """The round's received rows in bf16, for experts that take bf16 (kishmem::ep::Buffer::
        received_bf16): rows [0, recv_count[e]) of each local expert e written into out ([L, R,
        hidden] bf16, made here when None: its other rows then hold whatever the allocation held;
        it may be get_next_low_latency_combine_buffer()), each FP8 value times its group's scale
        rounded to the nearest bf16 (bf16 rows copied); no other row is touched. On the GPU one
        kernel on the current stream that reads the counts there (no synchronization;
        capturable). After the round's dispatch (its hook), until the next dispatch. Returns out."""
        self._alive()
        if not isinstance(handle, Handle) or handle._buf is not self:
            raise ArgumentError(f"kishmem::ep::received_bf16: PE {_c.my_pe()}: handle is not one that this buffer's "
                                "low_latency_dispatch returned")
        if out is None:
            out = _t.torch().empty(self._x_shape, dtype=self._bf16[0], device=self.device)
        elif why := self._tensor(out, "out", self._bf16, self._x_shape):
            raise ArgumentError(f"kishmem::ep::received_bf16: PE {_c.my_pe()}: {why}")
        self._b.received_bf16(self._stream(), handle, out.data_ptr())
        return out

    # ---- combine -----------------------------------------------------------------------------
    def get_next_low_latency_combine_buffer(self, handle):
        """A symmetric [L, R, hidden] bf16 tensor in the buffer's block: expert outputs written here
        are read in place by low_latency_combine (zero_copy=True), nothing copied at send time, and
        the combine does not wait for the peers' reads. Write it only after the round's dispatch
        (its hook) on the current stream, as experts do: that dispatch waits for every PE's
        previous combine to end."""
        self._alive()
        if self._combine_buffer is None:
            raise ArgumentError("get_next_low_latency_combine_buffer: the buffer was made with "
                                "allocate_combine_buffer=False")
        return self._combine_buffer

    def low_latency_combine(self, x, topk_idx, topk_weights, handle, use_logfmt=False, zero_copy=False,
                            async_finish=False, return_recv_hook=False, out=None, combine_wait_recv_cost_stats=None):
        """Sends every expert output row x[e][i] ([L, R, hidden] bf16, row i of expert e answers
        received row i) back to its token's PE, which returns out[t] = sum over k of
        topk_weights[t][k] * row ([num_tokens, hidden] bf16; `out` when given). Returns
        (combined_x, event, hook); with return_recv_hook, combined_x is filled by hook(). DeepEP's
        use_logfmt and combine_wait_recv_cost_stats are taken at their defaults only."""
        if out is None and type(handle) is Handle:
            out = _t.torch().empty((handle.num_tokens, self.hidden), dtype=self._bf16[0], device=self.device)
        # As dispatch: the binding checks plain tensors itself; else the checks below.
        waits = combine_wait_recv_cost_stats
        if (use_logfmt or waits is not None
                or not self._b.combine_fast(x, topk_idx, topk_weights, handle, out, zero_copy, return_recv_hook)):
            out = self._combine_checked(x, topk_idx, topk_weights, handle, use_logfmt, waits, zero_copy, return_recv_hook,
                                        out)
        if return_recv_hook:
            # The receive reads topk_weights and x (where it lies in the heap: read in place by the
            # peers until this PE's receive) and writes out: the hook keeps them alive
            return (out, self._event(async_finish),
                    _Hook(lambda: self._b.combine_recv(self._stream(), handle), (x, topk_weights, out)))
        return out, self._event(async_finish), None

    def _combine_checked(self, x, topk_idx, topk_weights, handle, use_logfmt, waits, zero_copy, send_only, out):
        """low_latency_combine with every argument checked here: refused with the reason, or
        launched; returns out (made here when None)."""
        why = ""
        if not isinstance(handle, Handle) or handle._buf is not self:
            why = "handle is not one that this buffer's low_latency_dispatch returned"
        elif use_logfmt:
            why = "use_logfmt is not supported: combine sends bf16 rows"
        elif waits is not None:
            why = "combine_wait_recv_cost_stats is not supported: the kernels do not count the cycles they wait per PE"
        else:
            T = handle.num_tokens
            why = self._tensor(x, "x", self._bf16, self._x_shape)
            if not why and zero_copy and (self._combine_buffer is None or x.data_ptr() != self._combine_ptr):
                why = "zero_copy=True but x is not get_next_low_latency_combine_buffer()'s tensor"
            if not why:
                why = self._tensor(topk_idx, "topk_idx", self._idx, handle.topk_idx_shape)
            if not why:
                why = self._tensor(topk_weights, "topk_weights", self._f32, (T, self.num_topk))
            if not why and out is not None:
                why = self._tensor(out, "out", self._bf16, (T, self.hidden))
        if why:
            self._refuse_combine("combine", why)
        if out is None:
            out = _t.torch().empty((handle.num_tokens, self.hidden), dtype=self._bf16[0], device=self.device)
        # With no tokens nothing is written to out, but the library takes no null pointer: a scratch word.
        out_ptr = out.data_ptr() if out.numel() else self._scratch().data_ptr()
        self._b.combine(self._stream(), x.data_ptr(), topk_weights.data_ptr(), out_ptr, handle, bool(send_only))
        return out

    # ---- kernel time -------------------------------------------------------------------------
    def set_kernel_clock(self, on):
        """The kernel clock (kishmem::ep::Buffer::set_kernel_clock), off by default: while on, each
        call also keeps its own time (GPU heap: from its kernels' first block start to their last
        block end, by the GPU's global timer; host heap: the call's work on the host)."""
        self._b.set_kernel_clock(bool(on))

    def kernel_times(self):
        """The last dispatch's, dispatch hook's, combine's and combine hook's time in microseconds:
        a dict with dispatch_us, dispatch_recv_us, combine_us, combine_recv_us (-1: the last such
        call ran with the clock off), and on the GPU the dispatch's and the combine's stamps,
        dispatch_start_ns, dispatch_end_ns, combine_start_ns, combine_end_ns (the GPU's global
        timer at the first block's start and the last block's end: comparable between the PEs of
        one GPU; 0 where none). GPU heap: after synchronizing the stream of those calls."""
        return self._b.kernel_times()

    def check(self):
        """Errors found inside kernels (GPU heap: synchronizes the current stream), raised as Error."""
        self._b.check(self._stream())


def _without_frame(method, kind):
    """The binding's form of a dispatch or combine method (its fast_method): a call whose arguments
    the binding takes as they are launches there, with no Python frame before the launch; any
    other call runs `method` as written above."""
    import inspect
    doc = f"{method.__name__}{inspect.signature(method)}\n--\n\n{inspect.getdoc(method) or ''}"
    return _c.ep.fast_method(Buffer, method, kind, _NO_EVENT, doc)


Buffer.low_latency_dispatch = _without_frame(Buffer.low_latency_dispatch, "dispatch")
Buffer.low_latency_combine = _without_frame(Buffer.low_latency_combine, "combine")


def _unsupported_dispatch(rounding, waits, per_tensor):
    """Why DeepEP's dispatch options that kishmem.ep does not take refuse a call ("" when none is set)."""
    if rounding:
        return "round_scale and use_ue8m0 are not supported: scales are float32 amax / 448 per 128 channels"
    if waits is not None:
        return "dispatch_wait_recv_cost_stats is not supported: the kernels do not count the cycles they wait per PE"
    if per_tensor:
        return ("use_per_tensor_quantization and static_scale are not supported: scales are float32 amax / 448 per 128 "
                "channels")
    return ""


def _c_int(name, v, own):
    """v as the C int the library takes; -1 (which it refuses) where v is no integer or beyond an
    int, and why in own."""
    try:
        i = int(v)
    except (TypeError, ValueError):
        own.append(f"{name} = {v!r} is not an integer")
        return -1
    if -2**31 <= i < 2**31:
        return i
    own.append(f"{name} = {i} is beyond a C int (-2**31..2**31-1)")
    return -1


def _team_of(group):
    import kishmem
    if group is None:
        return kishmem.TEAM_WORLD
    if isinstance(group, kishmem.Team):
        return group
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is not None and isinstance(group, mpi.Comm):
        team = kishmem.team_from_comm(group)
        if team is None:
            raise ArgumentError("kishmem.ep.Buffer: this process is not in the communicator")
        return team
    dist = getattr(sys.modules.get("torch"), "distributed", None)
    if dist is not None and dist.is_available() and isinstance(group, dist.ProcessGroup):
        if group.size() != _c.n_pes() or group.rank() != _c.my_pe():
            raise ArgumentError(f"kishmem.ep.Buffer: the ProcessGroup (rank {group.rank()} of {group.size()}) is not "
                                f"kishmem's world (PE {_c.my_pe()} of {_c.n_pes()}): pass a kishmem.Team for a subset")
        return kishmem.TEAM_WORLD
    raise ArgumentError(f"kishmem.ep.Buffer: group is a {type(group).__name__}, not a kishmem.Team, an mpi4py "
                        "communicator or a torch.distributed ProcessGroup")


def select_topk(scores, num_topk, max_nodes, experts_per_node, idx_dtype=None):
    """Node-limited routing: nodes are groups of experts_per_node consecutive experts, scored by the
    sum of their two best experts; the max_nodes best nodes, then the num_topk best experts
    there (ties: lower index). scores [T, E] float32 (CPU, or GPU on the current stream).
    Returns (topk_idx [T, K] idx_dtype (int64), topk_weights [T, K] float32: the picked scores)."""
    torch = _t.torch()
    call = "kishmem::ep::select_topk"
    if not _t.is_tensor(scores) or scores.dim() != 2 or scores.dtype != torch.float32:
        raise ArgumentError(f"{call}: scores must be a 2-D float32 tensor [T, E]")
    if not scores.is_contiguous():
        raise ArgumentError(f"{call}: scores is not contiguous")
    T, E = scores.shape
    K, nodes, epn = int(num_topk), int(max_nodes), int(experts_per_node)
    why = ""
    if epn < 1 or E % epn:
        why = f"experts_per_node = {epn} does not divide E = {E}"
    elif nodes < 1 or nodes > 64:
        why = f"max_nodes = {nodes} must be in 1..64"
    elif K < 1 or K > 16:
        why = f"K = {K} must be in 1..16"
    elif K > min(nodes, E // epn) * epn:
        why = f"K = {K} is more than the {min(nodes, E // epn) * epn} experts of {min(nodes, E // epn)} nodes"
    if why:
        raise ArgumentError(f"{call}: {why}")
    idx = torch.empty((T, K), dtype=torch.int32, device=scores.device)
    w = torch.empty((T, K), dtype=torch.float32, device=scores.device)
    try:
        if scores.device.type == "cuda":
            if not _c.has_cuda:
                raise ArgumentError(f"{call}: scores is on {scores.device} but kishmem was built without CUDA")
            s = torch.cuda.current_stream(scores.device).cuda_stream
            _c.ep.select_topk_gpu(s, scores.data_ptr(), T, E, K, nodes, epn, idx.data_ptr(), w.data_ptr())
        elif scores.device.type == "cpu":
            _c.ep.select_topk(scores.data_ptr(), T, E, K, nodes, epn, idx.data_ptr(), w.data_ptr())
        else:
            raise ArgumentError(f"{call}: scores is on {scores.device}")
    except Error as e:
        raise ArgumentError(str(e)) from None
    return idx.to(idx_dtype or torch.int64), w


_e4m3 = {}


def _e4m3_table(device):
    """float32 value of each E4M3 byte (0x7f / 0xff: NaN), for torch versions without float8."""
    if device not in _e4m3:
        torch = _t.torch()
        c = torch.arange(256)
        e, m = (c >> 3) & 15, (c & 7).float()
        v = torch.where(e == 0, m / 512.0, (8 + m) * torch.pow(2.0, (e - 10).float()))
        v = torch.where((c & 0x7F) == 0x7F, torch.full_like(v, float("nan")), v)
        _e4m3[device] = torch.where((c & 0x80) != 0, -v, v).to(device)
    return _e4m3[device]


def dequantize(recv_x):
    """FP8 recv_x of low_latency_dispatch, (values [L, R, H], scales [L, R, H // 128]), as float32
    [L, R, H]: value * its group's scale. Values may be float8_e4m3fn or (older torch) uint8 codes."""
    q, scales = recv_x
    torch = _t.torch()
    v = _e4m3_table(q.device)[q.long()] if q.dtype == torch.uint8 else q.float()
    shape = q.shape
    return (v.reshape(*shape[:-1], shape[-1] // 128, 128) * scales.unsqueeze(-1)).reshape(shape)
