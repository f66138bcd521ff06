// RMA, atomics, signals and ordering: one lookup in the route table, then the transport.
#include <algorithm>
#include <cstring>

#include "state.h"
#include "transport/amo_local.h"
#if KISHMEM_HAVE_CUDA
#include "device_backend/backend.h"
#endif

namespace kishmem::rt {

namespace {
// A kernel's operation that the NIC or the proxy failed ends the job at the host's next quiet
// or barrier, in the backend's words (the kernel itself trapped, or went on in an unchecked
// build). One virtual call and a load when nothing failed.
void check_device(const char* call) {
#if KISHMEM_HAVE_CUDA
    State& s = state();
    if (!s.device_backend) return;
    const std::string f = s.device_backend->failure();
    if (!f.empty()) fatal(call, "%s", f.c_str());
#else
    (void)call;
#endif
}
}  // namespace


void* ptr(const void* sym, int pe) {
    State& s = state();
    if (!in_heap(sym)) {
        if (!in_static(sym) || !s.static_shm) return nullptr;
        char* b = s.static_shm->base(pe);  // this PE and same-host PEs that share their variables
        return b ? b + (static_cast<const char*>(sym) - s.static_base) : nullptr;
    }
#if KISHMEM_HAVE_CUDA
    char* b = s.device_heap ? s.cuda_ipc->base(pe) : s.shm->base(pe);
#else
    char* b = s.shm->base(pe);
#endif
    return b ? b + (static_cast<const char*>(sym) - s.base) : nullptr;
}

void load_local(void* dst, const void* sym, std::size_t n) {
    if (n == 8 && !state().device_heap) {
        *static_cast<uint64_t*>(dst) = __atomic_load_n(static_cast<const uint64_t*>(sym), __ATOMIC_ACQUIRE);
        return;
    }
    local_copy(dst, sym, n);
}

// The transport and offset that reach `sym` (heap or global/static variable) on `pe`.
struct Where {
    Transport* t;
    std::size_t off;
};
static inline Where where(const void* sym, int pe) {
    State& s = state();
    const char* c = static_cast<const char*>(sym);
    if (rt::in_heap(sym) || s.route_static.empty()) return {s.route[pe], static_cast<std::size_t>(c - s.base)};
    return {s.route_static[pe], static_cast<std::size_t>(c - s.static_base)};
}

void put_routed(int chan, void* dst, const void* src, std::size_t bytes, int pe, bool nbi) {
    if (bytes == 0) return;
    Where w = where(dst, pe);
    check_status(w.t->put(chan, pe, w.off, src, bytes, nbi), "put", pe);
}

void get_routed(int chan, void* dst, const void* src, std::size_t bytes, int pe, bool nbi) {
    if (bytes == 0) return;
    Where w = where(src, pe);
    check_status(w.t->get(chan, pe, w.off, dst, bytes, nbi), "get", pe);
}

// Strided transfers: block i (bsize elements) between src + i*src_stride and dst + i*dst_stride
// elements; a put waits for each block's local completion, a get quiets the channel at the end.
static void strided(bool is_put, int chan, void* dst, const void* src, std::ptrdiff_t dst_stride,
                    std::ptrdiff_t src_stride, std::size_t bsize, std::size_t nblocks, std::size_t elem, int pe) {
    const std::size_t block = bsize * elem;
    const auto step = [elem](std::ptrdiff_t stride, std::size_t i) {
        return static_cast<std::ptrdiff_t>(i) * stride * static_cast<std::ptrdiff_t>(elem);
    };
    for (std::size_t i = 0; i < nblocks; ++i) {
        const char* s = static_cast<const char*>(src) + step(src_stride, i);
        char* d = static_cast<char*>(dst) + step(dst_stride, i);
        Where w = where(is_put ? static_cast<const void*>(d) : static_cast<const void*>(s), pe);
        check_status(is_put ? w.t->put(chan, pe, w.off, s, block, false) : w.t->get(chan, pe, w.off, d, block, true),
                     is_put ? "iput" : "iget", pe);
    }
    if (!is_put) quiet(chan);
}

void iput(int chan, void* dst, const void* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride, std::size_t bsize,
          std::size_t nblocks, std::size_t elem, int pe) {
    strided(true, chan, dst, src, dst_stride, src_stride, bsize, nblocks, elem, pe);
}

void iget(int chan, void* dst, const void* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride, std::size_t bsize,
          std::size_t nblocks, std::size_t elem, int pe) {
    strided(false, chan, dst, src, dst_stride, src_stride, bsize, nblocks, elem, pe);
}

// A PE spinning on atomics on its own variables (a compare_swap lock) must keep serving peers
// whose operations on those variables UCX executes here in software (over tcp): progress now
// and then, not on every call (an idle progress costs tens of ns per worker).
static inline void serve_peers_now_and_then(int pe) {
    if (pe != g_hot.my_pe || !g_hot.needs_progress) return;
    static thread_local unsigned calls = 0;
    if ((++calls & 63) == 0) progress();
}

uint64_t amo(int chan, AmoOp op, void* target, unsigned width, uint64_t operand, uint64_t compare, int pe) {
    // The heap of a PE reached by host load/store: a CPU atomic on the mapping, as rt::put's
    // fast path (the route table's p2p entry; every other case goes through the transport).
    const std::size_t off = static_cast<std::size_t>(static_cast<char*>(target) - g_hot.base);
    if (char* b = g_hot.p2p[pe]; b && off < g_hot.size) {
        const uint64_t v = amo_local(b + off, op, width, operand, compare);
        serve_peers_now_and_then(pe);
        return v;
    }
    uint64_t fetched = 0;
    Where w = where(target, pe);
    check_status(w.t->amo(chan, pe, w.off, op, width, operand, compare, &fetched), "atomic", pe);
    serve_peers_now_and_then(pe);
    return fetched;
}

void put_signal(int chan, void* dst, const void* src, std::size_t bytes, uint64_t* sig, uint64_t value, int sig_op,
                int pe, bool nbi) {
    Where d = where(dst, pe), g = where(sig, pe);
    if (bytes) check_status(d.t->put(chan, pe, d.off, src, bytes, nbi), "put_signal", pe);
    // The signal is delivered after the data: ordered on this channel, as fence orders puts
    // (across both transports when data and signal live in different segments).
    check_status(d.t->fence(chan), "put_signal", pe);
    if (g.t != d.t) check_status(d.t->quiet(chan), "put_signal", pe);
    check_status(g.t->amo(chan, pe, g.off, sig_op == 0 ? AmoOp::set : AmoOp::add, 8, value, 0, nullptr), "put_signal", pe);
}

void count_at_target(int chan, int pe, uint64_t n) {
    State& s = state();
    // After the operations it counts: ordered behind them on this channel, as a signal is.
    fence(chan);
    check_status(s.route_sync[pe]->amo(chan, pe, kTargetCountOffset, AmoOp::add, 8, n, 0, nullptr), "count", pe);
}

uint64_t target_count() {
    return __atomic_load_n(reinterpret_cast<const uint64_t*>(state().sync_base + kTargetCountOffset), __ATOMIC_ACQUIRE);
}

void completed(kishmem_ctx* ctx, Issued before) {
    const auto raise = [](uint64_t* w, uint64_t v) {
        uint64_t cur = __atomic_load_n(w, __ATOMIC_RELAXED);
        while (cur < v && !__atomic_compare_exchange_n(w, &cur, v, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
        }
    };
    raise(&ctx->counts[write_done], before.writes);
    raise(&ctx->counts[read_later_done], before.reads);
}

void fence(int chan) {
    for (Transport* t : state().transports) check_status(t->fence(chan), "shmem_fence", -1);
}

void quiet(int chan) {
    check_device("shmem_quiet");
    for (Transport* t : state().transports) check_status(t->quiet(chan), "shmem_quiet", -1);
}

void quiet_all() {
    check_device("shmem_barrier_all");  // barrier_all's first step (and finalize's, after it)
    State& s = state();
    for (Transport* t : s.transports)
        for (int c = 0, n = std::min(s.nchan, t->channels()); c < n; ++c) check_status(t->quiet(c), "shmem_quiet", -1);
}

}  // namespace kishmem::rt

namespace kishmem {

void sync_put(int to, const void* local, const void* src, std::size_t n, const char* call) {
    State& s = state();
    check_status(s.route_sync[to]->put(0, to, static_cast<const char*>(local) - s.sync_base, src, n, true), call, to);
}

void local_copy(void* dst, const void* src, std::size_t n) {
#if KISHMEM_HAVE_CUDA
    if (state().device_heap) return check_status(device_copy(dst, src, n), "copy", state().pe);
#endif
    std::memmove(dst, src, n);
}

void local_set(void* dst, int value, std::size_t n) {
#if KISHMEM_HAVE_CUDA
    if (state().device_heap) return check_status(device_set(dst, value, n), "memset", state().pe);
#endif
    std::memset(dst, value, n);
}

}  // namespace kishmem
