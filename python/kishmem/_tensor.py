"""Tensors and NumPy arrays over symmetric memory, and the checks every call makes first.

The C API ends the whole job on bad input; the Python package checks each argument before it
calls in and raises ArgumentError instead. torch is imported only when a tensor is made or seen,
so NumPy-only programs (host heap) need no torch.
"""
import ctypes
import operator
import sys

from . import _kishmem as _c


class Error(RuntimeError):
    """An error reported by kishmem (the message is the library's)."""


class ArgumentError(Error, ValueError):
    """A call refused before anything was sent: bad dtype, shape, device, PE, or memory that is
    not in the symmetric heap."""


def torch():
    import torch as t
    return t


def _np():
    import numpy
    return numpy


# torch dtype name -> (DLPack code, bits); float8 and bool travel as uint8 and are viewed back
# (DLPack's bool code is newer than some torch releases that read DLPack).
_DL = {
    "float32": (2, 32), "float64": (2, 64), "float16": (2, 16), "bfloat16": (4, 16),
    "int8": (0, 8), "int16": (0, 16), "int32": (0, 32), "int64": (0, 64),
    "uint8": (1, 8), "uint16": (1, 16), "uint32": (1, 32), "uint64": (1, 64), "bool": (1, 8),
    "float8_e4m3fn": (1, 8), "float8_e5m2": (1, 8),
}


_dtype_names = {}  # dtype object -> name: every call of kishmem.ep checks several dtypes


def dtype_name(dtype):
    """'float32' for torch.float32 or numpy.float32 (or their dtype objects)."""
    try:
        return _dtype_names[dtype]
    except (KeyError, TypeError):
        pass
    s = str(dtype)
    name = s[len("torch."):] if s.startswith("torch.") else _np().dtype(dtype).name
    try:
        _dtype_names[dtype] = name
    except TypeError:  # (not hashable)
        pass
    return name


def is_tensor(obj):
    t = sys.modules.get("torch")
    return t is not None and isinstance(obj, t.Tensor)


def is_array(obj):
    n = sys.modules.get("numpy")
    return n is not None and isinstance(obj, n.ndarray)


class Mem:
    """What a call needs to know about a tensor or array: address, bytes, dtype, shape, device."""
    __slots__ = ("addr", "nbytes", "dtype", "shape", "device", "devname", "contiguous", "obj")

    def __init__(self, obj, call, what):
        if is_tensor(obj):
            self.addr = obj.data_ptr()
            self.nbytes = obj.numel() * obj.element_size()
            self.dtype = dtype_name(obj.dtype)
            self.shape = tuple(obj.shape)
            self.device = -1 if obj.device.type == "cpu" else (obj.device.index if obj.device.type == "cuda" else -2)
            self.devname = str(obj.device)
            self.contiguous = obj.is_contiguous()
        elif is_array(obj):
            self.addr = obj.__array_interface__["data"][0]
            self.nbytes = obj.nbytes
            self.dtype = obj.dtype.name
            self.shape = tuple(obj.shape)
            self.device = -1
            self.devname = "cpu"
            self.contiguous = obj.flags["C_CONTIGUOUS"]
        else:
            raise ArgumentError(f"{call}: {what} is a {type(obj).__name__}, not a torch tensor or NumPy array")
        self.obj = obj
        if not self.contiguous:
            raise ArgumentError(f"{call}: {what} is not contiguous (shape {list(self.shape)}): pass .contiguous() or a copy")

    def device_name(self):
        return self.devname


def require_init(call):
    if not _c.initialized():
        raise Error(f"{call}: kishmem is not initialized (call kishmem.init() first)")


_heap_dev = None  # where the heap lives: -1 host, else the CUDA device (found at the first allocation)


def heap_device_index():
    return _heap_dev


_raw_stream = None  # device index -> the current stream's cudaStream_t (an int)


def current_stream_function():
    """A function of a device index giving its current CUDA stream as an int (cudaStream_t), for the
    calls that take it on every invocation (kishmem.ep): torch's raw accessor where it has one,
    which makes no torch.cuda.Stream object per call, else torch.cuda.current_stream(dev).cuda_stream."""
    global _raw_stream
    if _raw_stream is None:
        t = torch()
        t.cuda.init()  # (the raw accessor assumes torch's CUDA state is made)
        _raw_stream = getattr(t._C, "_cuda_getCurrentRawStream", None) or (
            lambda d: t.cuda.current_stream(d).cuda_stream)
    return _raw_stream


def current_stream_handle(dev):
    """The current CUDA stream of device dev as an int (cudaStream_t)."""
    return (_raw_stream or current_stream_function())(dev)


def note_heap_device(addr):
    global _heap_dev
    if _heap_dev is None:
        _heap_dev = _c.device_of(addr)


def forget_heap():
    global _heap_dev
    _heap_dev = None


def device_word(d):
    return "host memory" if d == -1 else f"GPU {d}"


def symmetric(obj, call, what, align=1):
    """A Mem for obj, which must lie within one symmetric block made by this package (an empty
    one moves nothing and needs none), at an address that is a multiple of align."""
    m = Mem(obj, call, what)
    if m.nbytes == 0:
        return m
    if m.addr % align:
        raise ArgumentError(f"{call}: {what} (address {m.addr:#x}) is not aligned to {align} bytes: the operation "
                            "needs its word's natural alignment")
    if not _c.block_of(m.addr, m.nbytes):
        raise ArgumentError(f"{call}: {what} (address {m.addr:#x}, {m.nbytes} bytes, {m.device_name()}) is not in the "
                            "symmetric heap: allocate it with kishmem.empty/zeros/array")
    return m


def local(obj, call, what, written=False):
    """A Mem for a local buffer: on the heap's device (host memory for a host heap); written: the
    call writes it (a read-only NumPy array is refused)."""
    m = Mem(obj, call, what)
    if written and is_array(obj) and not obj.flags.writeable:
        raise ArgumentError(f"{call}: {what} is a read-only NumPy array")
    if _heap_dev is not None and m.device != _heap_dev:
        raise ArgumentError(f"{call}: {what} is on {m.device_name()} but the symmetric heap is in "
                            f"{device_word(_heap_dev)}: pass a buffer there")
    return m


def integer(call, what, v):
    """v as a Python int (an int or a NumPy/torch integer scalar; not a bool or a float)."""
    if not isinstance(v, bool):
        try:
            return operator.index(v)
        except TypeError:
            pass
    raise ArgumentError(f"{call}: {what} = {v!r} is not an integer")


def check_pe(call, pe, npes, what="pe", team="this job"):
    """pe as a Python int, once it names a PE of the team."""
    pe = integer(call, what, pe)
    if pe < 0 or pe >= npes:
        raise ArgumentError(f"{call}: PE {pe} is out of range: {team} has PEs 0..{npes - 1}")
    return pe


def view(addr, shape, dtype, device):
    """A torch tensor of shape and dtype over memory at addr (not owned) on device (-1: host)."""
    t = torch()
    tdtype = getattr(t, dtype) if isinstance(dtype, str) else dtype
    name = dtype_name(tdtype)
    if name not in _DL:
        raise ArgumentError(f"kishmem: dtype {tdtype} has no tensor form here")
    code, bits = _DL[name]
    shape = [int(s) for s in shape]
    cap = _c.dlpack(addr, shape, code, bits, 1 if device == -1 else 2, max(device, 0))
    x = t.utils.dlpack.from_dlpack(cap)
    if x.dtype != tdtype:
        x = x.view(tdtype)
    return x


def array(addr, shape, dtype):
    """A NumPy array of shape and dtype over host memory at addr (not owned)."""
    np = _np()
    dt = np.dtype(dtype)
    n = 1
    for s in shape:
        n *= int(s)
    raw = (ctypes.c_char * max(n * dt.itemsize, 1)).from_address(addr)
    return np.frombuffer(raw, dtype=dt, count=n).reshape(shape)
