// kishmem._kishmem.ep: kishmem::ep::Buffer and select_topk under Python. Addresses and streams
// travel as integers (kishmem/ep.py checks tensors first and builds the results); every call
// that fails raises kishmem's Error with the library's own message (Buffer::last_error).
#include <kishmem/ep/ep.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

namespace py = pybind11;
namespace ep = kishmem::ep;

namespace kishmem::py {
namespace {

cudaStream_t to_stream(uintptr_t s) { return reinterpret_cast<cudaStream_t>(s); }
template <class T>
T* to(uintptr_t a) {
    return reinterpret_cast<T*>(a);
}

// kishmem.Error, set by kishmem/__init__.py before any buffer is made.
::py::object g_error = ::py::none();

[[noreturn]] void raise(const std::string& msg) {
    if (!g_error.is_none()) {
        PyErr_SetString(g_error.ptr(), msg.c_str());
        throw ::py::error_already_set();
    }
    throw std::runtime_error(msg);
}

// What kishmem/ep.py's fast calls compare tensors with (set once per buffer by set_torch): the
// torch.Tensor type, the dtypes, the heap's device, and torch's current-stream accessor.
struct Torch {
    ::py::object tensor, bf16, f32, i32, i64;
    ::py::object raw_stream = ::py::none();  // torch._C._cuda_getCurrentRawStream (GPU heap)
    ::py::object dev_arg = ::py::none();     // its argument: the heap's device
    int dev = -2;                            // -1 host heap; -2 not set (no fast calls)
    long long local_experts = 0, recv_rows = 0;  // combine's x: [L, R, hidden]
};

struct PyBuffer {
    std::unique_ptr<ep::Buffer> b;
    int busy = 0;                     // library calls running with the GIL let go (destroy waits for none)
    ep::Received last{};              // the receive buffers as the last dispatch gave them
    ::py::object last_tuple = ::py::none();  // and as received() made them (the same object while they stay)
    ::py::tuple views;                       // kishmem/ep.py's (recv_x, recv_count, src_info)
    ::py::object views_for = ::py::none();   // made over this last_tuple
    Torch torch;

    ep::Buffer& get() {
        if (!b) raise("kishmem.ep.Buffer: the buffer was destroyed");
        return *b;
    }
    // Dropped after kishmem.finalize (a buffer that kishmem.finalize did not see: the heap is gone
    // with its block, and freeing it now would end the process): nothing left to give back.
    ~PyBuffer() {
        int finalized = 0;
        shmem_query_finalized(&finalized);
        if (finalized) (void)b.release();
    }
    void check(int rc) {
        if (rc != ep::kOk) raise(get().last_error().empty() ? "kishmem::ep: status " + std::to_string(rc) : get().last_error());
    }
};

// kishmem.ep.Handle: what low_latency_dispatch hands to low_latency_combine (the library's handle,
// the Python buffer it came from, the dispatch's topk_idx shape and the src_info view).
struct PyHandle {
    ep::Handle h;
    const PyBuffer* owner = nullptr;
    ::py::object buf = ::py::none(), topk_idx_shape = ::py::none(), src_info = ::py::none();
};

// (x, scales, count, src, L, R) as integers: made once per buffer (they are fixed in its
// block), so that kishmem/ep.py recognizes them by identity and keeps its views.
::py::object received(PyBuffer& pb, const ep::Received& r) {
    const ep::Received& l = pb.last;
    if (pb.last_tuple.is_none() || r.x != l.x || r.scales != l.scales || r.count != l.count || r.src != l.src ||
        r.local_experts != l.local_experts || r.max_recv != l.max_recv) {
        pb.last = r;
        pb.last_tuple = ::py::make_tuple(reinterpret_cast<uintptr_t>(r.x), reinterpret_cast<uintptr_t>(r.scales),
                                         reinterpret_cast<uintptr_t>(r.count), reinterpret_cast<uintptr_t>(r.src),
                                         r.local_experts, r.max_recv);
    }
    return pb.last_tuple;
}

ep::Config config(int T, int H, int K, int E, bool fp8, int num_sms, bool combine_buffer) {
    ep::Config c;
    c.max_tokens_per_pe = T;
    c.hidden = H;
    c.topk = K;
    c.num_experts = E;
    c.format = fp8 ? ep::Format::fp8_e4m3 : ep::Format::bf16;
    c.num_sms = num_sms;
    c.combine_buffer = combine_buffer;
    return c;
}

// ---- the fast calls: each tensor checked here through its Python attributes, no Python code run;
// where anything differs they launch nothing and return None, and kishmem/ep.py's own checks then
// find what and refuse the call with the message.
::py::object steal(PyObject* o) {
    if (!o) PyErr_Clear();
    return ::py::reinterpret_steal<::py::object>(o);
}

PyObject* name(const char* s) {
    PyObject* o = PyUnicode_InternFromString(s);
    if (!o) throw ::py::error_already_set();
    return o;  // (kept for the process's life)
}

bool int_attr(PyObject* o, PyObject* method, long long want) {
    ::py::object v = steal(PyObject_CallMethodNoArgs(o, method));
    if (!v || !PyLong_Check(v.ptr())) return false;
    const long long got = PyLong_AsLongLong(v.ptr());
    if (got == -1 && PyErr_Occurred()) PyErr_Clear();
    return got == want;
}

// A contiguous tensor of dtype a or b on the heap's device, whose sizes are `shape` (-1: any, its
// size then given in *any); its address in *addr and its torch.Size in *size (when asked).
bool tensor_ok(const Torch& t, ::py::handle obj, const ::py::object& a, const ::py::object& b,
               std::initializer_list<long long> shape, uintptr_t* addr, long long* any = nullptr,
               ::py::object* size = nullptr, bool* is_a = nullptr) {
    static PyObject *s_dtype = name("dtype"), *s_shape = name("shape"), *s_get_device = name("get_device"),
                    *s_is_cpu = name("is_cpu"), *s_contig = name("is_contiguous"),
                    *s_data_ptr = name("data_ptr");
    PyObject* o = obj.ptr();
    if (reinterpret_cast<PyObject*>(Py_TYPE(o)) != t.tensor.ptr()) return false;  // (a subclass: the Python checks)
    ::py::object dt = steal(PyObject_GetAttr(o, s_dtype));
    if (!dt || (dt.ptr() != a.ptr() && dt.ptr() != b.ptr())) return false;
    if (is_a) *is_a = dt.ptr() == a.ptr();
    ::py::object sz = steal(PyObject_GetAttr(o, s_shape));
    if (!sz || !PyTuple_Check(sz.ptr()) || PyTuple_GET_SIZE(sz.ptr()) != static_cast<Py_ssize_t>(shape.size())) return false;
    Py_ssize_t i = 0;
    for (long long want : shape) {
        const long long got = PyLong_AsLongLong(PyTuple_GET_ITEM(sz.ptr(), i++));
        if (got == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return false;
        }
        if (want == -1 && any) *any = got;
        else if (got != want) return false;
    }
    if (t.dev >= 0) {  // (get_device() is -1 on the CPU: no is_cuda needed)
        if (!int_attr(o, s_get_device, t.dev)) return false;
    } else if (::py::object on = steal(PyObject_GetAttr(o, s_is_cpu)); on.ptr() != Py_True) {
        return false;
    }
    ::py::object c = steal(PyObject_CallMethodNoArgs(o, s_contig));
    if (c.ptr() != Py_True) return false;
    ::py::object p = steal(PyObject_CallMethodNoArgs(o, s_data_ptr));
    if (!p) return false;
    *addr = static_cast<uintptr_t>(PyLong_AsUnsignedLongLong(p.ptr()));
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return false;
    }
    if (size) *size = std::move(sz);
    return true;
}

// torch's current stream on the heap's device (0 on a host heap).
bool current_stream(const Torch& t, uintptr_t* s) {
    *s = 0;
    if (t.dev < 0) return true;
    ::py::object v = steal(PyObject_CallOneArg(t.raw_stream.ptr(), t.dev_arg.ptr()));
    if (!v) return false;
    *s = static_cast<uintptr_t>(PyLong_AsUnsignedLongLong(v.ptr()));
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return false;
    }
    return true;
}

// f(buffer), the buffer looked up first with the GIL held (a destroyed one raises). The GIL is let
// go around f where it may wait on the host: always with Gil::release (a synchronization), else on
// the CPU form (it exchanges within the call); the GPU form's calls only queue kernels and keep it,
// as torch's own launches do (the hand-over would cost each call more than the call does without
// it). While the GIL is let go the buffer counts the call as running, so that destroy() from
// another thread is refused instead of freeing it under the call.
enum class Gil { keep_on_gpu, release };
template <class F>
auto call(PyBuffer& self, Gil gil, F&& f) {
    ep::Buffer& b = self.get();
    if (gil == Gil::keep_on_gpu && b.on_gpu()) return f(b);  // (the launch path: nothing else)
    struct Busy {
        int& n;
        explicit Busy(int& c) : n(c) { ++n; }
        ~Busy() { --n; }  // (runs after the GIL is taken back: declared before `released`)
    } busy(self.busy);
    ::py::gil_scoped_release released;
    return f(b);
}

// A library call f(buffer) -> status, its error raised.
template <class F>
void run(PyBuffer& self, F&& f, Gil gil = Gil::keep_on_gpu) {
    self.check(call(self, gil, std::forward<F>(f)));
}

// Launches a dispatch and makes its handle: (recv_x, recv_count, handle) where kishmem/ep.py's views
// stand over the receive buffers it gave, else (their addresses, handle) for kishmem/ep.py to view.
// The launch comes first and the Python objects after it: where the GPU waits for the launch, a
// handle made before it would delay the kernels by its allocation.
::py::object dispatch(PyBuffer& self, ::py::handle wrapper, uintptr_t s, uintptr_t x, uintptr_t idx, bool idx64, int T,
                      ::py::object idx_shape, bool send_only) {
    ep::Received r;
    ep::Handle h;
    run(self, [&](ep::Buffer& b) {  // (a destroyed buffer raises here, before anything is made)
        return idx64 ? b.dispatch(to_stream(s), to<void>(x), to<const int64_t>(idx), T, &r, &h, send_only)
                     : b.dispatch(to_stream(s), to<void>(x), to<const int32_t>(idx), T, &r, &h, send_only);
    });
    auto* ph = new PyHandle;
    ::py::object handle = ::py::cast(ph, ::py::return_value_policy::take_ownership);
    ph->h = h;
    ph->owner = &self;
    ph->buf = ::py::reinterpret_borrow<::py::object>(wrapper);
    ph->topk_idx_shape = std::move(idx_shape);
    ::py::object ptrs = received(self, r);
    if (!ptrs.is(self.views_for)) return ::py::make_tuple(ptrs, handle);
    ph->src_info = self.views[2];
    return ::py::make_tuple(self.views[0], self.views[1], handle);
}

void combine(PyBuffer& self, uintptr_t s, uintptr_t expert_out, uintptr_t w, uintptr_t out, PyHandle& h, bool send_only) {
    run(self, [&](ep::Buffer& b) {
        return b.combine(to_stream(s), to<void>(expert_out), to<const float>(w), to<void>(out), &h.h, send_only);
    });
}

// dispatch from the tensors, checked here: None (nothing launched) where a check fails.
::py::object dispatch_fast(PyBuffer& self, ::py::handle wrapper, ::py::handle x, ::py::handle idx, bool send_only) {
    const Torch& t = self.torch;
    const ep::Config& c = self.get().config();
    uintptr_t xa = 0, ia = 0, s = 0;
    long long T = 0;
    bool idx64 = false;
    ::py::object shape;
    if (t.dev == -2 || !tensor_ok(t, x, t.bf16, t.bf16, {-1, c.hidden}, &xa, &T) || T > c.max_tokens_per_pe ||
        !tensor_ok(t, idx, t.i64, t.i32, {T, c.topk}, &ia, nullptr, &shape, &idx64) || !current_stream(t, &s))
        return ::py::none();
    return dispatch(self, wrapper, s, xa, ia, idx64, static_cast<int>(T), std::move(shape), send_only);
}

// combine from the tensors (out given), checked here: false (nothing launched) where a check fails.
bool combine_fast(PyBuffer& self, ::py::handle x, ::py::handle idx, ::py::handle w, ::py::handle handle, ::py::handle out,
                  bool zero_copy, bool send_only) {
    const Torch& t = self.torch;
    if (t.dev == -2 || !::py::isinstance<PyHandle>(handle)) return false;
    PyHandle& h = handle.cast<PyHandle&>();
    const ep::Config& c = self.get().config();
    const long long T = h.h.num_tokens;
    uintptr_t xa = 0, ia = 0, wa = 0, oa = 0, s = 0;
    if (h.owner != &self || T == 0 || !tensor_ok(t, x, t.bf16, t.bf16, {t.local_experts, t.recv_rows, c.hidden}, &xa) ||
        (zero_copy && xa != reinterpret_cast<uintptr_t>(self.get().combine_buffer())) ||
        !tensor_ok(t, idx, t.i64, t.i32, {T, c.topk}, &ia) || !tensor_ok(t, w, t.f32, t.f32, {T, c.topk}, &wa) ||
        !tensor_ok(t, out, t.bf16, t.bf16, {T, c.hidden}, &oa) || !current_stream(t, &s))
        return false;
    combine(self, s, xa, wa, oa, h, send_only);
    return true;
}

// ---- Buffer.low_latency_dispatch and low_latency_combine without a Python frame ----
// kishmem/ep.py installs these as the two methods (fast_method): a call whose arguments are all as
// the fast calls above take them (the tensors and sizes by position, the keywords at what the fast
// path allows) launches from here and returns DeepEP's tuple; any other call, and one whose check
// fails (nothing launched then), goes on to the Python method, which checks every argument and
// names what is wrong. Saves the Python method's frame and pybind11's dispatch before the launch.
// What each entry falls back on and returns (set by fast_method; kept for the process's life): the
// Python method as written in kishmem/ep.py, and kishmem.ep's no-event object. The entries' own
// self is kishmem.ep.Buffer, so that they show as Buffer.low_latency_dispatch and ..._combine.
struct MethodState {
    PyObject* python = nullptr;
    PyObject* no_event = nullptr;
};
MethodState g_method[2];  // dispatch, combine

// Every keyword of the call among `names`, and ok(name, value) true for each.
template <class Ok>
bool keywords_ok(PyObject* kwnames, PyObject* const* values, std::initializer_list<const char*> names, Ok&& ok) {
    const Py_ssize_t n = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < n; ++i) {
        const char* name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
        if (!name) {
            PyErr_Clear();
            return false;
        }
        bool known = false;
        for (const char* k : names) known |= std::strcmp(name, k) == 0;
        if (!known || !ok(name, values[i])) return false;
    }
    return true;
}

// A flag the fast path takes only off: False, None or 0 (what the Python methods take as off).
bool is_false(PyObject* v) {
    if (v == Py_False || v == Py_None) return true;
    if (!PyLong_CheckExact(v)) return false;
    int overflow = 0;
    const long got = PyLong_AsLongAndOverflow(v, &overflow);
    if (got == -1 && PyErr_Occurred()) PyErr_Clear();
    return overflow == 0 && got == 0;
}

bool long_is(PyObject* v, long long want) {
    if (!PyLong_CheckExact(v)) return false;
    const long long got = PyLong_AsLongLong(v);
    if (got == -1 && PyErr_Occurred()) PyErr_Clear();
    return got == want;
}

PyBuffer* buffer_of(PyObject* wrapper) {
    static PyObject* s_b = name("_b");
    ::py::object b = steal(PyObject_GetAttr(wrapper, s_b));
    if (!b || !::py::isinstance<PyBuffer>(b)) return nullptr;
    return &b.cast<PyBuffer&>();  // (the wrapper keeps it alive through the call)
}

// Entry `which` (0 dispatch, 1 combine): runs f(buffer, state) on a call of self and 4 arguments
// by position: its result, or a null object where it does not take the call (nothing launched:
// the Python method then runs it, with no error left from the checks). Once f has launched, any
// failure throws (the error raised, never the Python method: that would launch again).
template <class F>
PyObject* fast_or_python(int which, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames, F&& f) {
    const MethodState& m = g_method[which];
    try {
        PyBuffer* pb = PyVectorcall_NARGS(nargsf) == 5 ? buffer_of(args[0]) : nullptr;
        if (pb && pb->b) {
            ::py::object r = f(*pb, m);
            if (r) return r.release().ptr();
        }
    } catch (::py::error_already_set& e) {
        e.restore();
        return nullptr;
    } catch (const std::bad_alloc&) {
        return PyErr_NoMemory();
    } catch (const std::exception& e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
        return nullptr;
    } catch (...) {
        PyErr_SetString(PyExc_RuntimeError, "kishmem.ep: an unknown C++ exception in the binding");
        return nullptr;
    }
    if (PyErr_Occurred()) PyErr_Clear();
    return PyObject_Vectorcall(m.python, args, PyVectorcall_NARGS(nargsf), kwnames);
}

// A new reference or the Python error thrown (after a launch: see fast_or_python).
::py::object owned(PyObject* o) {
    if (!o) throw ::py::error_already_set();
    return ::py::reinterpret_steal<::py::object>(o);
}

// (self, x, topk_idx, num_max_dispatch_tokens_per_rank, num_experts; use_fp8 as the buffer's, the
// other keywords at their defaults) -> (recv_x, recv_count, handle, no event, no hook)
PyObject* method_dispatch(PyObject* /*Buffer*/, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
    return fast_or_python(0, args, nargsf, kwnames, [&](PyBuffer& pb, const MethodState& m) -> ::py::object {
        const ep::Config& c = pb.b->config();
        const bool fp8 = c.format == ep::Format::fp8_e4m3;
        bool fp8_seen = false;
        if (!long_is(args[3], c.max_tokens_per_pe) || !long_is(args[4], c.num_experts) ||
            !keywords_ok(kwnames, args + 5,
                         {"use_fp8", "cumulative_local_expert_recv_stats", "dispatch_wait_recv_cost_stats", "static_scale",
                          "round_scale", "use_ue8m0", "async_finish", "return_recv_hook", "use_per_tensor_quantization"},
                         [&](const char* k, PyObject* v) {
                             if (std::strcmp(k, "use_fp8") == 0) {
                                 fp8_seen = true;
                                 return v == (fp8 ? Py_True : Py_False);
                             }
                             // (the tensors: None only; anything else is the Python method's to check or use)
                             if (std::strcmp(k, "cumulative_local_expert_recv_stats") == 0 ||
                                 std::strcmp(k, "dispatch_wait_recv_cost_stats") == 0 || std::strcmp(k, "static_scale") == 0)
                                 return v == Py_None;
                             return is_false(v);
                         }) ||
            (!fp8_seen && !fp8))  // (use_fp8 left at its default, True, on a bf16 buffer: refused there)
            return {};
        ::py::object r = dispatch_fast(pb, args[0], args[1], args[2], false);
        if (r.is_none()) return {};
        // Launched: from here on a failure raises.
        if (PyTuple_GET_SIZE(r.ptr()) != 3) {  // the first dispatch: kishmem/ep.py makes the views
            static PyObject* s_viewed = name("_viewed");
            r = owned(PyObject_CallMethodOneArg(args[0], s_viewed, r.ptr()));
            if (!PyTuple_Check(r.ptr()) || PyTuple_GET_SIZE(r.ptr()) != 3) {
                PyErr_SetString(PyExc_RuntimeError, "kishmem.ep: Buffer._viewed did not return (recv_x, recv_count, handle)");
                throw ::py::error_already_set();
            }
        }
        PyObject* t = r.ptr();
        return owned(PyTuple_Pack(5, PyTuple_GET_ITEM(t, 0), PyTuple_GET_ITEM(t, 1), PyTuple_GET_ITEM(t, 2),
                                  m.no_event, Py_None));
    });
}

// (self, x, topk_idx, topk_weights, handle; out= a tensor, zero_copy either way, the other
// keywords at their defaults) -> (out, no event, no hook)
PyObject* method_combine(PyObject* /*Buffer*/, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
    return fast_or_python(1, args, nargsf, kwnames, [&](PyBuffer& pb, const MethodState& m) -> ::py::object {
        PyObject* out = nullptr;
        bool zero_copy = false;
        if (!keywords_ok(kwnames, args + 5,
                         {"use_logfmt", "zero_copy", "async_finish", "return_recv_hook", "out", "combine_wait_recv_cost_stats"},
                         [&](const char* k, PyObject* v) {
                             if (std::strcmp(k, "out") == 0) {
                                 out = v;
                                 return v != Py_None;
                             }
                             if (std::strcmp(k, "combine_wait_recv_cost_stats") == 0) return v == Py_None;
                             if (std::strcmp(k, "zero_copy") == 0) {
                                 zero_copy = v == Py_True;
                                 return v == Py_True || v == Py_False;
                             }
                             return is_false(v);
                         }) ||
            !out || !combine_fast(pb, args[1], args[2], args[3], args[4], out, zero_copy, false))
            return {};
        return owned(PyTuple_Pack(3, out, m.no_event, Py_None));  // (launched: a failure raises)
    });
}

}  // namespace

void bind_ep(::py::module_& m) {
    using ::py::arg;
    m.def("_set_error_type", [](::py::object e) { g_error = e; });
    m.attr("SRC_INFO_WORDS") = sizeof(ep::SrcInfo) / sizeof(int32_t);

    ::py::class_<PyHandle>(m, "Handle", "What low_latency_dispatch hands to low_latency_combine: the buffer's round, the tokens "
                                      "dispatched, and where each received row came from (src_info: [num_local_experts, "
                                      "num_max_dispatch_tokens_per_rank * num_ranks, 4] int32 rows {pe, token, k, round}; rows "
                                      "[0, recv_count[e]) of expert e are valid)")
        .def_property_readonly("round", [](const PyHandle& h) { return h.h.round; })
        .def_property_readonly("num_tokens", [](const PyHandle& h) { return h.h.num_tokens; })
        .def_property_readonly("dispatch_received", [](const PyHandle& h) { return h.h.dispatch_received; })
        .def_property_readonly("combine_sent", [](const PyHandle& h) { return h.h.combine_sent; })
        .def_readonly("_buf", &PyHandle::buf)
        .def_readonly("topk_idx_shape", &PyHandle::topk_idx_shape)
        .def_readwrite("src_info", &PyHandle::src_info)
        // The buffer's sizes, as DeepEP's handle carries them.
        .def_property_readonly("num_max_dispatch_tokens_per_rank",
                               [](const PyHandle& h) { return h.buf.attr("num_max_dispatch_tokens_per_rank"); })
        .def_property_readonly("hidden", [](const PyHandle& h) { return h.buf.attr("hidden"); })
        .def_property_readonly("num_experts", [](const PyHandle& h) { return h.buf.attr("num_experts"); });

    ::py::class_<PyBuffer>(m, "Buffer")
        .def(::py::init([](uintptr_t team, int T, int H, int K, int E, bool fp8, int num_sms, bool combine_buffer) {
                 auto pb = std::make_unique<PyBuffer>();
                 std::string err;
                 {
                     ::py::gil_scoped_release nogil;
                     pb->b = ep::Buffer::create(reinterpret_cast<shmem_team_t>(team), config(T, H, K, E, fp8, num_sms, combine_buffer),
                                               &err);
                 }
                 if (!pb->b) raise(err.empty() ? "kishmem::ep::Buffer::create failed" : err);
                 return pb;
             }),
             arg("team"), arg("max_tokens_per_pe"), arg("hidden"), arg("topk"), arg("num_experts"), arg("fp8"), arg("num_sms") = 0,
             arg("combine_buffer") = false)
        .def_static("bytes_for", [](int T, int H, int K, int E, bool fp8, int npes, bool combine_buffer) {
            return ep::Buffer::bytes_for(config(T, H, K, E, fp8, 0, combine_buffer), npes);
        })
        .def("destroy", [](PyBuffer& self) {
            if (self.busy)
                raise("kishmem.ep.Buffer.destroy: a call on this buffer is still running in another thread");
            ::py::gil_scoped_release nogil;
            self.b.reset();
        })
        .def_property_readonly("alive", [](PyBuffer& self) { return self.b != nullptr; })
        .def_property_readonly("bytes", [](PyBuffer& self) { return self.get().bytes(); })
        .def_property_readonly("on_gpu", [](PyBuffer& self) { return self.get().on_gpu(); })
        .def_property_readonly("num_sms", [](PyBuffer& self) { return self.get().num_sms(); })
        .def_property_readonly("combine_buffer",  // its address (0: made without one)
                               [](PyBuffer& self) { return reinterpret_cast<uintptr_t>(self.get().combine_buffer()); })
        .def_property_readonly("last_error", [](PyBuffer& self) { return self.get().last_error(); })
        // kishmem/ep.py's views over the receive buffers (recv_x, recv_count, src_info), made over
        // the addresses `ptrs` that dispatch returned.
        .def("set_views", [](PyBuffer& self, ::py::object ptrs, ::py::tuple views) {
            self.views_for = std::move(ptrs);
            self.views = std::move(views);
        })
        // What the fast calls compare tensors with (see Torch).
        .def("set_torch", [](PyBuffer& self, ::py::object tensor, ::py::object bf16, ::py::object f32, ::py::object i32,
                             ::py::object i64, int dev, ::py::object raw_stream, long long L, long long R) {
            self.torch = Torch{std::move(tensor), std::move(bf16), std::move(f32), std::move(i32), std::move(i64),
                               std::move(raw_stream), ::py::int_(dev), dev, L, R};
        })
        // Checked tensors in, as addresses (kishmem/ep.py checked them).
        .def("dispatch", [](PyBuffer& self, ::py::handle wrapper, uintptr_t s, uintptr_t x, uintptr_t idx, bool idx64, int T,
                            ::py::object idx_shape, bool send_only) {
            return dispatch(self, wrapper, s, x, idx, idx64, T, std::move(idx_shape), send_only);
        })
        // The same from the tensors, checked here; None (nothing launched) where a check fails.
        .def("dispatch_fast", &dispatch_fast)
        .def("dispatch_recv", [](PyBuffer& self, uintptr_t s, PyHandle& h) {
            run(self, [&](ep::Buffer& b) { return b.dispatch_recv(to_stream(s), &h.h); });
        })
        .def("combine", [](PyBuffer& self, uintptr_t s, uintptr_t expert_out, uintptr_t w, uintptr_t out, PyHandle& h,
                           bool send_only) { combine(self, s, expert_out, w, out, h, send_only); })
        // The same from the tensors (out given), checked here; False (nothing launched) where a check fails.
        .def("combine_fast", &combine_fast)
        .def("received_bf16", [](PyBuffer& self, uintptr_t s, PyHandle& h, uintptr_t out) {
            run(self, [&](ep::Buffer& b) { return b.received_bf16(to_stream(s), &h.h, to<void>(out)); });
        })
        .def("combine_recv", [](PyBuffer& self, uintptr_t s, PyHandle& h) {
            run(self, [&](ep::Buffer& b) { return b.combine_recv(to_stream(s), &h.h); });
        })
        .def("refuse_dispatch", [](PyBuffer& self, uintptr_t s, const std::string& why) {
            run(self, [&](ep::Buffer& b) { return b.refuse_dispatch(to_stream(s), why.c_str()); }, Gil::release);
        })
        .def("refuse_combine", [](PyBuffer& self, uintptr_t s, const std::string& name, const std::string& why) {
            run(self, [&](ep::Buffer& b) { return b.refuse_combine(to_stream(s), name.c_str(), why.c_str()); }, Gil::release);
        })
        .def("set_kernel_clock", [](PyBuffer& self, bool on) { self.get().set_kernel_clock(on); })
        .def("kernel_times", [](PyBuffer& self) {
            const ep::KernelTimes t = call(self, Gil::release, [](ep::Buffer& b) { return b.kernel_times(); });
            ::py::dict d;
            d["dispatch_us"] = t.dispatch_us;
            d["dispatch_recv_us"] = t.dispatch_recv_us;
            d["combine_us"] = t.combine_us;
            d["combine_recv_us"] = t.combine_recv_us;
            d["dispatch_start_ns"] = t.dispatch_start_ns;
            d["dispatch_end_ns"] = t.dispatch_end_ns;
            d["combine_start_ns"] = t.combine_start_ns;
            d["combine_end_ns"] = t.combine_end_ns;
            return d;
        })
        .def("check", [](PyBuffer& self, uintptr_t s) {
            run(self, [&](ep::Buffer& b) { return b.check(to_stream(s)); }, Gil::release);
        });

    // kishmem/ep.py's two methods without a Python frame (see method_dispatch): a method of the
    // class `owner` (an instancemethod over a builtin) that falls back on `python` (the method as
    // written there); `doc` is its text signature and docstring, as help() shows them.
    m.def("fast_method", [](::py::type owner, ::py::function python, const std::string& kind, ::py::object no_event,
                            const std::string& doc) {
        const int i = kind == "dispatch" ? 0 : kind == "combine" ? 1 : -1;
        if (i < 0) raise("kishmem.ep.fast_method: kind must be 'dispatch' or 'combine', got '" + kind + "'");
        // (kept for the process's life: the functions made over them may outlive this module's state)
        auto* def = new PyMethodDef{i == 0 ? "low_latency_dispatch" : "low_latency_combine",
                                    reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(i == 0 ? &method_dispatch : &method_combine)),
                                    METH_FASTCALL | METH_KEYWORDS, (new std::string(doc))->c_str()};
        g_method[i] = MethodState{python.release().ptr(), no_event.release().ptr()};
        ::py::object f = owned(PyCFunction_NewEx(def, owner.ptr(), nullptr));
        return owned(PyInstanceMethod_New(f.ptr()));
    });
    m.def("select_topk", [](uintptr_t scores, int T, int E, int K, int max_nodes, int epn, uintptr_t idx, uintptr_t w) {
        const int rc = ep::select_topk(to<const float>(scores), T, E, K, max_nodes, epn, to<int32_t>(idx), to<float>(w));
        if (rc != ep::kOk) raise("kishmem::ep::select_topk: bad argument (status " + std::to_string(rc) + ", message on stderr)");
    });
    m.def("select_topk_gpu", [](uintptr_t s, uintptr_t scores, int T, int E, int K, int max_nodes, int epn, uintptr_t idx,
                                uintptr_t w) {
        const int rc = ep::select_topk_gpu(to_stream(s), to<const float>(scores), T, E, K, max_nodes, epn, to<int32_t>(idx),
                                           to<float>(w));
        if (rc != ep::kOk) raise("kishmem::ep::select_topk_gpu: failed (status " + std::to_string(rc) + ", message on stderr)");
    });
}

}  // namespace kishmem::py
