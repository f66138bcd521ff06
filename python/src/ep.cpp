// kishmem._kishmem.ep: kishmem::ep::Buffer and select_topk under Python. Addresses and streams
// travel as integers (kishmem/ep.py checks tensors first and builds the results); every call
// that fails raises kishmem's Error with the library's own message (Buffer::last_error).
#include <kishmem/ep/ep.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
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

struct PyBuffer {
    std::unique_ptr<ep::Buffer> b;
    ep::Received last{};              // the receive buffers as the last dispatch gave them
    ::py::object last_tuple = ::py::none();  // and as received() made them (the same object while they stay)

    ep::Buffer& get() {
        if (!b) raise("kishmem.ep.Buffer: the buffer was destroyed");
        return *b;
    }
    void check(int rc) {
        if (rc != ep::kOk) raise(get().last_error().empty() ? "kishmem::ep: status " + std::to_string(rc) : get().last_error());
    }
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

}  // namespace

void bind_ep(::py::module_& m) {
    using ::py::arg;
    m.def("_set_error_type", [](::py::object e) { g_error = e; });
    m.attr("SRC_INFO_WORDS") = sizeof(ep::SrcInfo) / sizeof(int32_t);

    ::py::class_<ep::Handle>(m, "Handle")
        .def(::py::init<>())
        .def_readonly("round", &ep::Handle::round)
        .def_readonly("num_tokens", &ep::Handle::num_tokens)
        .def_readonly("dispatch_received", &ep::Handle::dispatch_received)
        .def_readonly("combine_sent", &ep::Handle::combine_sent);

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
        .def("dispatch", [](PyBuffer& self, uintptr_t s, uintptr_t x, uintptr_t idx, bool idx64, int T, ep::Handle& h,
                            bool send_only) {
            ep::Received r;
            int rc;
            {
                ::py::gil_scoped_release nogil;
                rc = idx64 ? self.get().dispatch(to_stream(s), to<void>(x), to<const int64_t>(idx), T, &r, &h, send_only)
                           : self.get().dispatch(to_stream(s), to<void>(x), to<const int32_t>(idx), T, &r, &h, send_only);
            }
            self.check(rc);
            return received(self, r);
        })
        .def("dispatch_recv", [](PyBuffer& self, uintptr_t s, ep::Handle& h) {
            int rc;
            {
                ::py::gil_scoped_release nogil;
                rc = self.get().dispatch_recv(to_stream(s), &h);
            }
            self.check(rc);
        })
        .def("combine", [](PyBuffer& self, uintptr_t s, uintptr_t expert_out, uintptr_t w, uintptr_t out, ep::Handle& h,
                           bool send_only) {
            int rc;
            {
                ::py::gil_scoped_release nogil;
                rc = self.get().combine(to_stream(s), to<void>(expert_out), to<const float>(w), to<void>(out), &h, send_only);
            }
            self.check(rc);
        })
        .def("combine_recv", [](PyBuffer& self, uintptr_t s, ep::Handle& h) {
            int rc;
            {
                ::py::gil_scoped_release nogil;
                rc = self.get().combine_recv(to_stream(s), &h);
            }
            self.check(rc);
        })
        .def("refuse_dispatch", [](PyBuffer& self, uintptr_t s, const std::string& why) {
            int rc;
            {
                ::py::gil_scoped_release nogil;
                rc = self.get().refuse_dispatch(to_stream(s), why.c_str());
            }
            self.check(rc);
        })
        .def("refuse_combine", [](PyBuffer& self, uintptr_t s, const std::string& call, const std::string& why) {
            int rc;
            {
                ::py::gil_scoped_release nogil;
                rc = self.get().refuse_combine(to_stream(s), call.c_str(), why.c_str());
            }
            self.check(rc);
        })
        .def("set_kernel_clock", [](PyBuffer& self, bool on) { self.get().set_kernel_clock(on); })
        .def("kernel_times", [](PyBuffer& self) {
            ep::KernelTimes t;
            {
                ::py::gil_scoped_release nogil;
                t = self.get().kernel_times();
            }
            ::py::dict d;
            d["dispatch_us"] = t.dispatch_us;
            d["dispatch_recv_us"] = t.dispatch_recv_us;
            d["combine_us"] = t.combine_us;
            d["combine_recv_us"] = t.combine_recv_us;
            return d;
        })
        .def("check", [](PyBuffer& self, uintptr_t s) {
            int rc;
            {
                ::py::gil_scoped_release nogil;
                rc = self.get().check(to_stream(s));
            }
            self.check(rc);
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
