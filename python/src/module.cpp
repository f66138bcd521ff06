// kishmem._kishmem: the C API under Python (pybind11). Addresses travel as integers; the Python
// layer (kishmem/__init__.py) turns tensors into addresses and back, checks every argument
// first (the C API ends the job on bad input), and raises kishmem.Error with the message.
// This file keeps what only C++ can know: the symmetric allocations made from Python (for the
// "is it in the symmetric heap" check), where the heap lives (host or which GPU), and DLPack
// capsules over symmetric memory.
#if defined(KISHMEM_PY_CUDA)
#include <cuda_runtime_api.h>  // first: shmemx.h declares the on-stream calls where CUDART_VERSION is set
#endif
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <shmem.h>
#include <shmemx.h>

#include <cstdint>
#include <map>
#include <string>

#include "dlpack.h"

namespace py = pybind11;

namespace kishmem::py {
void bind_ep(::py::module_& m);     // ep.cpp
void bind_store(::py::module_& m);  // store.cpp

namespace {

std::map<uintptr_t, size_t> g_allocs;  // symmetric blocks made through this module: base -> bytes

void* to_ptr(uintptr_t a) { return reinterpret_cast<void*>(a); }
uintptr_t to_int(const void* p) { return reinterpret_cast<uintptr_t>(p); }
shmem_team_t to_team(uintptr_t t) { return reinterpret_cast<shmem_team_t>(t); }

// The block of g_allocs holding [addr, addr + bytes), or 0.
uintptr_t block_of(uintptr_t addr, size_t bytes) {
    auto it = g_allocs.upper_bound(addr);
    if (it == g_allocs.begin()) return 0;
    --it;
    return addr >= it->first && addr + bytes <= it->first + it->second ? it->first : 0;
}

// Where the memory at addr is: -1 host, else the CUDA device ordinal.
int device_of(uintptr_t addr) {
#if defined(KISHMEM_PY_CUDA)
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        cudaGetLastError();
        return -1;
    }
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, to_ptr(addr)) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged ? a.device : -1;
#else
    (void)addr;
    return -1;
#endif
}

#if defined(KISHMEM_PY_CUDA)
cudaStream_t to_stream(uintptr_t s) { return reinterpret_cast<cudaStream_t>(s); }
void check_cuda(int rc, const char* call) {
    if (rc != 0) throw std::runtime_error(std::string(call) + ": CUDA error " + std::to_string(rc) + " (" +
                                          cudaGetErrorString(static_cast<cudaError_t>(rc)) + ")");
}
#endif

}  // namespace
}  // namespace kishmem::py

PYBIND11_MODULE(_kishmem, m) {
    using namespace kishmem::py;
    using py::arg;
    m.doc() = "kishmem's C API for the kishmem Python package (use the package, not this module)";
#if defined(KISHMEM_PY_CUDA)
    m.attr("has_cuda") = true;
#else
    m.attr("has_cuda") = false;
#endif
    m.attr("TEAM_WORLD") = to_int(SHMEM_TEAM_WORLD);
    m.attr("TEAM_SHARED") = to_int(SHMEM_TEAM_SHARED);
    m.attr("SIGNAL_SET") = SHMEM_SIGNAL_SET;
    m.attr("SIGNAL_ADD") = SHMEM_SIGNAL_ADD;
    m.attr("CMP_EQ") = SHMEM_CMP_EQ;
    m.attr("CMP_NE") = SHMEM_CMP_NE;
    m.attr("CMP_GT") = SHMEM_CMP_GT;
    m.attr("CMP_GE") = SHMEM_CMP_GE;
    m.attr("CMP_LT") = SHMEM_CMP_LT;
    m.attr("CMP_LE") = SHMEM_CMP_LE;

    m.def("init", [] { shmem_init(); });
    m.def("finalize", [] {
        g_allocs.clear();
        shmem_finalize();
    });
    m.def("initialized", [] {
        int i = 0;
        shmem_query_initialized(&i);
        return i != 0;
    });
    m.def("finalized", [] {
        int f = 0;
        shmem_query_finalized(&f);
        return f != 0;
    });
    m.def("my_pe", &shmem_my_pe);
    m.def("n_pes", &shmem_n_pes);
    m.def("barrier_all", [] {
        py::gil_scoped_release nogil;
        shmem_barrier_all();
    });
    m.def("sync_all", [] {
        py::gil_scoped_release nogil;
        shmem_sync_all();
    });
    m.def("quiet", [] { shmem_quiet(); });
    m.def("fence", [] { shmem_fence(); });

    // ---- symmetric memory --------------------------------------------------------------------
    m.def("malloc", [](size_t bytes) -> uintptr_t {
        void* p;
        {
            py::gil_scoped_release nogil;
            p = shmem_malloc(bytes ? bytes : 1);  // a block even for empty tensors: one address per allocation
        }
        if (!p) return 0;
        g_allocs[to_int(p)] = bytes;
        return to_int(p);
    });
    m.def("free", [](uintptr_t p) {
        g_allocs.erase(p);
        py::gil_scoped_release nogil;
        shmem_free(to_ptr(p));
    });
    m.def("block_bytes", [](uintptr_t p) -> long long {
        const auto it = g_allocs.find(p);
        return it == g_allocs.end() ? -1 : static_cast<long long>(it->second);
    }, "the bytes of the symmetric block made here at p, or -1");
    m.def("block_of", &block_of, arg("addr"), arg("bytes"),
          "the base of the symmetric block made here that holds [addr, addr + bytes), or 0");
    m.def("device_of", &device_of, "-1 for host memory, else the CUDA device ordinal");
    m.def("heap_size", [] { return g_allocs.size(); });
    m.def("dlpack", [](uintptr_t data, std::vector<int64_t> shape, int code, int bits, int device_type, int device_id) {
        PyObject* c = dlpack_capsule(to_ptr(data), shape, static_cast<uint8_t>(code), static_cast<uint8_t>(bits),
                                     device_type, device_id);
        if (!c) throw py::error_already_set();
        return py::reinterpret_steal<py::object>(c);
    });
    m.def("ptr", [](uintptr_t dest, int pe) { return to_int(shmem_ptr(to_ptr(dest), pe)); });
    m.def("team_ptr", [](uintptr_t team, uintptr_t dest, int pe) { return to_int(shmem_team_ptr(to_team(team), to_ptr(dest), pe)); });

    // ---- RMA and signals (arguments checked by the caller) ------------------------------------
    m.def("putmem", [](uintptr_t dest, uintptr_t src, size_t n, int pe) {
        py::gil_scoped_release nogil;
        shmem_putmem(to_ptr(dest), to_ptr(src), n, pe);
    });
    m.def("getmem", [](uintptr_t dest, uintptr_t src, size_t n, int pe) {
        py::gil_scoped_release nogil;
        shmem_getmem(to_ptr(dest), to_ptr(src), n, pe);
    });
    m.def("putmem_nbi", [](uintptr_t dest, uintptr_t src, size_t n, int pe) { shmem_putmem_nbi(to_ptr(dest), to_ptr(src), n, pe); });
    m.def("getmem_nbi", [](uintptr_t dest, uintptr_t src, size_t n, int pe) { shmem_getmem_nbi(to_ptr(dest), to_ptr(src), n, pe); });
    m.def("putmem_signal", [](uintptr_t dest, uintptr_t src, size_t n, uintptr_t sig, uint64_t value, int op, int pe) {
        py::gil_scoped_release nogil;
        shmem_putmem_signal(to_ptr(dest), to_ptr(src), n, reinterpret_cast<uint64_t*>(sig), value, op, pe);
    });
    m.def("signal_fetch", [](uintptr_t sig) { return shmem_signal_fetch(reinterpret_cast<const uint64_t*>(sig)); });
    m.def("signal_wait_until", [](uintptr_t sig, int cmp, uint64_t value) {
        py::gil_scoped_release nogil;
        return shmem_signal_wait_until(reinterpret_cast<uint64_t*>(sig), cmp, value);
    });
    m.def("atomic_fetch_add", [](uintptr_t dest, int64_t value, int pe) {
        return shmem_int64_atomic_fetch_add(reinterpret_cast<int64_t*>(dest), value, pe);
    });

    // ---- teams -------------------------------------------------------------------------------
    m.def("team_my_pe", [](uintptr_t t) { return shmem_team_my_pe(to_team(t)); });
    m.def("team_n_pes", [](uintptr_t t) { return shmem_team_n_pes(to_team(t)); });
    m.def("team_translate_pe", [](uintptr_t src, int pe, uintptr_t dst) { return shmem_team_translate_pe(to_team(src), pe, to_team(dst)); });
    m.def("team_split_strided", [](uintptr_t parent, int start, int stride, int size) {
        shmem_team_t t = SHMEM_TEAM_INVALID;
        int rc;
        {
            py::gil_scoped_release nogil;
            rc = shmem_team_split_strided(to_team(parent), start, stride, size, nullptr, 0, &t);
        }
        return py::make_tuple(rc, to_int(t));
    });
    m.def("team_sync", [](uintptr_t t) {
        py::gil_scoped_release nogil;
        return shmem_team_sync(to_team(t));
    });
    m.def("team_destroy", [](uintptr_t t) { shmem_team_destroy(to_team(t)); });

    // ---- on a CUDA stream (GPU heap) -------------------------------------------------------------
#if defined(KISHMEM_PY_CUDA)
    m.def("putmem_on_stream", [](uintptr_t dest, uintptr_t src, size_t n, int pe, uintptr_t s) {
        check_cuda(shmemx_putmem_on_stream(to_ptr(dest), to_ptr(src), n, pe, to_stream(s)), "shmemx_putmem_on_stream");
    });
    m.def("putmem_signal_on_stream", [](uintptr_t dest, uintptr_t src, size_t n, uintptr_t sig, uint64_t value, int op, int pe,
                                        uintptr_t s) {
        check_cuda(shmemx_putmem_signal_on_stream(to_ptr(dest), to_ptr(src), n, reinterpret_cast<uint64_t*>(sig), value, op, pe,
                                                  to_stream(s)),
                   "shmemx_putmem_signal_on_stream");
    });
    m.def("signal_wait_until_on_stream", [](uintptr_t sig, int cmp, uint64_t value, uintptr_t s) {
        check_cuda(shmemx_signal_wait_until_on_stream(reinterpret_cast<uint64_t*>(sig), cmp, value, to_stream(s)),
                   "shmemx_signal_wait_until_on_stream");
    });
    m.def("quiet_on_stream", [](uintptr_t s) { check_cuda(shmemx_quiet_on_stream(to_stream(s)), "shmemx_quiet_on_stream"); });
    m.def("barrier_all_on_stream", [](uintptr_t s) {
        check_cuda(shmemx_barrier_all_on_stream(to_stream(s)), "shmemx_barrier_all_on_stream");
    });
#endif

    bind_store(m);
    py::module_ ep = m.def_submodule("ep", "kishmem::ep");
    bind_ep(ep);
}
