// RMA and put-with-signal routines: every typed and sized form, with and without a context, is
// one line over these templates.
#include "check.h"

namespace kishmem::api {

inline void put_bytes(const char* call, shmem_ctx_t ctx, void* dest, const void* src, std::size_t bytes, int pe,
                      bool nbi) {
    Target t = target_xfer(call, ctx, pe, "dest", dest, "source", src, bytes);
    if (bytes == 0) return;  // nothing moves (and the buffers may be NULL)
    ApiCallScope scope(call, ApiArgs::dest, dest, bytes, pe);
    rt::put(t.chan, dest, src, bytes, t.pe, nbi);
}

inline void get_bytes(const char* call, shmem_ctx_t ctx, void* dest, const void* src, std::size_t bytes, int pe,
                      bool nbi) {
    Target t = target_xfer(call, ctx, pe, "source", src, "dest", dest, bytes);
    if (bytes == 0) return;  // nothing moves (and the buffers may be NULL)
    ApiCallScope scope(call, ApiArgs::source, src, bytes, pe);
    rt::get(t.chan, dest, src, bytes, t.pe, nbi);
}

template <class T>
inline T g(const char* call, shmem_ctx_t ctx, const T* src, int pe) {
    T v;
    get_bytes(call, ctx, &v, src, sizeof(T), pe, false);
    return v;
}

// Strided (bsize 1) and blocked-strided transfers; elem is the element size in bytes.
inline void strided(const char* call, shmem_ctx_t ctx, bool is_put, void* dest, const void* src, ptrdiff_t dst,
                    ptrdiff_t sst, std::size_t bsize, std::size_t nblocks, std::size_t elem, int pe) {
    if (nblocks == 0 || bsize == 0) {
        target(call, ctx, pe);
        return;
    }
    if (g_check && (dst < 1 || sst < 1)) fail_arg(call, dst < 1 ? "stride dst" : "stride sst", dst < 1 ? dst : sst);
    const void* sym = is_put ? dest : src;
    std::size_t span = 0;  // ((nblocks - 1) * stride + bsize) * elem, which must not wrap
    if (__builtin_mul_overflow(nblocks - 1, static_cast<std::size_t>(is_put ? dst : sst), &span) ||
        __builtin_add_overflow(span, bsize, &span))
        fail_overflow(call, nblocks, elem * static_cast<std::size_t>(is_put ? dst : sst));
    span = bytes_of(call, span, elem);
    Target t = target_xfer(call, ctx, pe, is_put ? "dest" : "source", sym, is_put ? "source" : "dest",
                           is_put ? src : dest, span);
    ApiCallScope scope(call, is_put ? ApiArgs::dest : ApiArgs::source, sym, span, pe);
    if (is_put) rt::iput(t.chan, dest, src, dst, sst, bsize, nblocks, elem, t.pe);
    else rt::iget(t.chan, dest, src, dst, sst, bsize, nblocks, elem, t.pe);
}

inline void put_signal(const char* call, shmem_ctx_t ctx, void* dest, const void* src, std::size_t bytes, uint64_t* sig,
                       uint64_t value, int sig_op, int pe, bool nbi) {
    Target t = target_xfer(call, ctx, pe, "dest", dest, "source", src, bytes);
    if (g_check && !rt::is_live(sig, sizeof *sig)) fail_sym(call, "sig_addr", sig, sizeof *sig);
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD) fail_arg(call, "sig_op", sig_op);
    ApiCallScope scope(call, ApiArgs::signal, dest, bytes, pe, value);
    rt::put_signal(t.chan, dest, src, bytes, sig, value, sig_op, t.pe, nbi);
}

}  // namespace kishmem::api

using namespace kishmem::api;

extern "C" {

K_BOTH(void, putmem, (put_bytes(call_, ctx_, d, s, n, pe, false)), void* d, const void* s, size_t n, int pe)
K_BOTH(void, getmem, (get_bytes(call_, ctx_, d, s, n, pe, false)), void* d, const void* s, size_t n, int pe)
K_BOTH(void, putmem_nbi, (put_bytes(call_, ctx_, d, s, n, pe, true)), void* d, const void* s, size_t n, int pe)
K_BOTH(void, getmem_nbi, (get_bytes(call_, ctx_, d, s, n, pe, true)), void* d, const void* s, size_t n, int pe)
K_BOTH(void, putmem_signal, (put_signal(call_, ctx_, d, s, n, sig, v, op, pe, false)), void* d, const void* s,
       size_t n, uint64_t* sig, uint64_t v, int op, int pe)
K_BOTH(void, putmem_signal_nbi, (put_signal(call_, ctx_, d, s, n, sig, v, op, pe, true)), void* d, const void* s,
       size_t n, uint64_t* sig, uint64_t v, int op, int pe)

#define DEFINE_RMA(T, N)                                                                                          \
    K_BOTH(void, N##_put, (put_bytes(call_, ctx_, d, s, bytes_of(call_, n, sizeof(T)), pe, false)), T* d, const T* s, size_t n, int pe) \
    K_BOTH(void, N##_get, (get_bytes(call_, ctx_, d, s, bytes_of(call_, n, sizeof(T)), pe, false)), T* d, const T* s, size_t n, int pe) \
    K_BOTH(void, N##_put_nbi, (put_bytes(call_, ctx_, d, s, bytes_of(call_, n, sizeof(T)), pe, true)), T* d, const T* s, size_t n, int pe) \
    K_BOTH(void, N##_get_nbi, (get_bytes(call_, ctx_, d, s, bytes_of(call_, n, sizeof(T)), pe, true)), T* d, const T* s, size_t n, int pe) \
    K_BOTH(void, N##_p, (put_bytes(call_, ctx_, d, &v, sizeof(T), pe, false)), T* d, T v, int pe)                 \
    K_BOTH(T, N##_g, (return g<T>(call_, ctx_, s, pe)), const T* s, int pe)                                       \
    K_BOTH(void, N##_iput, (strided(call_, ctx_, true, d, s, dst, sst, 1, n, sizeof(T), pe)), T* d, const T* s,    \
           ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe)                                                        \
    K_BOTH(void, N##_iget, (strided(call_, ctx_, false, d, s, dst, sst, 1, n, sizeof(T), pe)), T* d, const T* s,   \
           ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe)                                                        \
    K_BOTH(void, N##_ibput, (strided(call_, ctx_, true, d, s, dst, sst, b, nb, sizeof(T), pe)), T* d, const T* s,  \
           ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe)                                             \
    K_BOTH(void, N##_ibget, (strided(call_, ctx_, false, d, s, dst, sst, b, nb, sizeof(T), pe)), T* d, const T* s, \
           ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe)                                             \
    K_BOTH(void, N##_put_signal, (put_signal(call_, ctx_, d, s, bytes_of(call_, n, sizeof(T)), sig, v, op, pe, false)), T* d,      \
           const T* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe)                                       \
    K_BOTH(void, N##_put_signal_nbi, (put_signal(call_, ctx_, d, s, bytes_of(call_, n, sizeof(T)), sig, v, op, pe, true)), T* d,   \
           const T* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe)
KISHMEM_RMA_TYPES(DEFINE_RMA)

#define DEFINE_RMA_SIZE(B)                                                                                        \
    K_BOTH(void, put##B, (put_bytes(call_, ctx_, d, s, bytes_of(call_, n, B / 8), pe, false)), void* d, const void* s, size_t n, int pe) \
    K_BOTH(void, get##B, (get_bytes(call_, ctx_, d, s, bytes_of(call_, n, B / 8), pe, false)), void* d, const void* s, size_t n, int pe) \
    K_BOTH(void, put##B##_nbi, (put_bytes(call_, ctx_, d, s, bytes_of(call_, n, B / 8), pe, true)), void* d, const void* s, size_t n, int pe) \
    K_BOTH(void, get##B##_nbi, (get_bytes(call_, ctx_, d, s, bytes_of(call_, n, B / 8), pe, true)), void* d, const void* s, size_t n, int pe) \
    K_BOTH(void, iput##B, (strided(call_, ctx_, true, d, s, dst, sst, 1, n, B / 8, pe)), void* d, const void* s,  \
           ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe)                                                        \
    K_BOTH(void, iget##B, (strided(call_, ctx_, false, d, s, dst, sst, 1, n, B / 8, pe)), void* d, const void* s, \
           ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe)                                                        \
    K_BOTH(void, ibput##B, (strided(call_, ctx_, true, d, s, dst, sst, b, nb, B / 8, pe)), void* d, const void* s, \
           ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe)                                             \
    K_BOTH(void, ibget##B, (strided(call_, ctx_, false, d, s, dst, sst, b, nb, B / 8, pe)), void* d, const void* s, \
           ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe)                                             \
    K_BOTH(void, put##B##_signal, (put_signal(call_, ctx_, d, s, bytes_of(call_, n, B / 8), sig, v, op, pe, false)), void* d,    \
           const void* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe)                                    \
    K_BOTH(void, put##B##_signal_nbi, (put_signal(call_, ctx_, d, s, bytes_of(call_, n, B / 8), sig, v, op, pe, true)), void* d, \
           const void* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe)
KISHMEM_RMA_SIZES(DEFINE_RMA_SIZE)

}  // extern "C"
