// RMA and put-with-signal routines: every typed and sized form, with and without a context, is
// one line over these templates.
#include "check.h"

namespace kishmem::api {

// The bytes go by a store where the peer's heap is mapped here (nothing there can fail, so no
// routine is recorded for messages), else through the route's transport, whose failure names
// the routine (`pe` as the caller gave it).  Always inlined: shmem_long_p's 8 bytes are one store.
__attribute__((always_inline)) inline void put_to(const char* call, const Target& t, void* dest, const void* src,
                                                  std::size_t bytes, int pe, bool nbi) {
    if (!rt::put_mapped(dest, src, bytes, t.pe)) {
        ApiCallScope scope(call, ApiArgs::dest, dest, bytes, pe);
        rt::put_routed(t.chan, dest, src, bytes, t.pe, nbi);
    }
    t.count(rt::OpKind::write);
}

inline void put_bytes(const char* call, shmem_ctx_t ctx, void* dest, const void* src, std::size_t bytes, int pe,
                      bool nbi) {
    Target t = target_xfer(call, ctx, pe, "dest", dest, "source", src, bytes);
    if (bytes == 0) return;  // nothing moves (and the buffers may be NULL)
    put_to(call, t, dest, src, bytes, pe, nbi);
}

// shmem_TYPE_p: one element, its size known here.
template <class T>
inline void put_value(const char* call, shmem_ctx_t ctx, T* dest, T value, int pe) {
    Target t = target_sym(call, ctx, pe, "dest", dest, sizeof(T));
    put_to(call, t, dest, &value, sizeof(T), pe, false);
}

inline void get_bytes(const char* call, shmem_ctx_t ctx, void* dest, const void* src, std::size_t bytes, int pe,
                      bool nbi) {
    Target t = target_xfer(call, ctx, pe, "source", src, "dest", dest, bytes);
    if (bytes == 0) return;  // nothing moves (and the buffers may be NULL)
    ApiCallScope scope(call, ApiArgs::source, src, bytes, pe);
    rt::get(t.chan, dest, src, bytes, t.pe, nbi);
    t.count(nbi ? rt::OpKind::read_later : rt::OpKind::read_now);
}

template <class T>
inline T g(const char* call, shmem_ctx_t ctx, const T* src, int pe) {
    T v;
    get_bytes(call, ctx, &v, src, sizeof(T), pe, false);
    return v;
}

// Strided (bsize 1) and blocked-strided transfers; elem is the element size in bytes.  Each
// block is one transfer (counted so); a block size or count above PTRDIFF_MAX is a negative
// number passed to a size_t.
inline void strided(const char* call, shmem_ctx_t ctx, bool is_put, void* dest, const void* src, ptrdiff_t dst,
                    ptrdiff_t sst, std::size_t bsize, std::size_t nblocks, std::size_t elem, int pe) {
    if (g_check && (bsize > PTRDIFF_MAX || nblocks > PTRDIFF_MAX))
        fail_arg(call, bsize > PTRDIFF_MAX ? "bsize" : "nblocks", static_cast<long long>(bsize > PTRDIFF_MAX ? bsize : nblocks));
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
    t.count(is_put ? rt::OpKind::write : rt::OpKind::read_now, nblocks);
}

inline void put_signal(const char* call, shmem_ctx_t ctx, void* dest, const void* src, std::size_t bytes, uint64_t* sig,
                       uint64_t value, int sig_op, int pe, bool nbi) {
    Target t = target_xfer(call, ctx, pe, "dest", dest, "source", src, bytes);
    if (g_check) check_word(call, "sig_addr", sig, sizeof *sig);
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD) fail_arg(call, "sig_op", sig_op);
    ApiCallScope scope(call, ApiArgs::signal, dest, bytes, pe, value);
    rt::put_signal(t.chan, dest, src, bytes, sig, value, sig_op, t.pe, nbi);
    t.count(rt::OpKind::write, bytes ? 2 : 1);  // the data, then the signal
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

// Sandia OpenSHMEM's counting put and get (kishmem/shmemx_sos.h): the put adds one to pe's
// counter after its data, as a put-with-signal; the get adds one there once it has read.
void shmemx_putmem_ct(shmemx_ct_t ct, void* d, const void* s, size_t n, int pe) {
    const char* call = "shmemx_putmem_ct";
    put_signal(call, SHMEM_CTX_DEFAULT, d, s, n, check_ct(call, ct), 1, SHMEM_SIGNAL_ADD, pe, false);
}
void shmemx_getmem_ct(shmemx_ct_t ct, void* d, const void* s, size_t n, int pe) {
    const char* call = "shmemx_getmem_ct";
    uint64_t* word = check_ct(call, ct);
    get_bytes(call, SHMEM_CTX_DEFAULT, d, s, n, pe, false);
    Target t = target(call, SHMEM_CTX_DEFAULT, pe);
    kishmem::rt::amo(t.chan, kishmem::rt::AmoOp::add, word, sizeof *word, 1, 0, t.pe);
    t.count(kishmem::rt::OpKind::write);
}

// Blocked-strided put and get (K: K_BOTH for the spec's names, K_X for the shmemx_ names of
// codes written for Sandia OpenSHMEM, the same routines); ELEM: bytes per element.
#define DEFINE_IB(K, PUT, GET, P, ELEM)                                                                           \
    K(void, PUT, (strided(call_, ctx_, true, d, s, dst, sst, b, nb, ELEM, pe)), P* d, const P* s, ptrdiff_t dst,  \
      ptrdiff_t sst, size_t b, size_t nb, int pe)                                                                 \
    K(void, GET, (strided(call_, ctx_, false, d, s, dst, sst, b, nb, ELEM, pe)), P* d, const P* s, ptrdiff_t dst, \
      ptrdiff_t sst, size_t b, size_t nb, int pe)

#define DEFINE_RMA(T, N)                                                                                          \
    K_BOTH(void, N##_put, (put_bytes(call_, ctx_, d, s, bytes_of(call_, n, sizeof(T)), pe, false)), T* d, const T* s, size_t n, int pe) \
    K_BOTH(void, N##_get, (get_bytes(call_, ctx_, d, s, bytes_of(call_, n, sizeof(T)), pe, false)), T* d, const T* s, size_t n, int pe) \
    K_BOTH(void, N##_put_nbi, (put_bytes(call_, ctx_, d, s, bytes_of(call_, n, sizeof(T)), pe, true)), T* d, const T* s, size_t n, int pe) \
    K_BOTH(void, N##_get_nbi, (get_bytes(call_, ctx_, d, s, bytes_of(call_, n, sizeof(T)), pe, true)), T* d, const T* s, size_t n, int pe) \
    K_BOTH(void, N##_p, (put_value<T>(call_, ctx_, d, v, pe)), T* d, T v, int pe)                            \
    K_BOTH(T, N##_g, (return g<T>(call_, ctx_, s, pe)), const T* s, int pe)                                       \
    K_BOTH(void, N##_iput, (strided(call_, ctx_, true, d, s, dst, sst, 1, n, sizeof(T), pe)), T* d, const T* s,    \
           ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe)                                                        \
    K_BOTH(void, N##_iget, (strided(call_, ctx_, false, d, s, dst, sst, 1, n, sizeof(T), pe)), T* d, const T* s,   \
           ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe)                                                        \
    DEFINE_IB(K_BOTH, N##_ibput, N##_ibget, T, sizeof(T))                                                       \
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
    DEFINE_IB(K_BOTH, ibput##B, ibget##B, void, B / 8)                                                          \
    K_BOTH(void, put##B##_signal, (put_signal(call_, ctx_, d, s, bytes_of(call_, n, B / 8), sig, v, op, pe, false)), void* d,    \
           const void* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe)                                    \
    K_BOTH(void, put##B##_signal_nbi, (put_signal(call_, ctx_, d, s, bytes_of(call_, n, B / 8), sig, v, op, pe, true)), void* d, \
           const void* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe)
KISHMEM_RMA_SIZES(DEFINE_RMA_SIZE)

// shmemx_[ctx_]TYPENAME_ibput / _ibget, shmemx_[ctx_]ibputSIZE / ibgetSIZE and ibputmem / ibgetmem.
#define DEFINE_X_IB(T, N) DEFINE_IB(K_X, N##_ibput, N##_ibget, T, sizeof(T))
#define DEFINE_X_IB_SIZE(B) DEFINE_IB(K_X, ibput##B, ibget##B, void, B / 8)
KISHMEM_RMA_TYPES(DEFINE_X_IB)
KISHMEM_RMA_SIZES(DEFINE_X_IB_SIZE)
DEFINE_IB(K_X, ibputmem, ibgetmem, void, 1)

}  // extern "C"
