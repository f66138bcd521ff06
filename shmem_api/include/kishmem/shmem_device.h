/* The same OpenSHMEM names in CUDA device code (included by shmem.h when nvcc compiles).
 *
 * Under nvcc the routines below are static inline __host__ __device__ functions: in a kernel
 * they reach peers through the device templates (device/include/kishmem/device/rma.h); on the
 * host they call the library's entry points (kishmem_h_<name>, aliases of the C routines).
 * Each translation unit keeps its own __constant__ copy of the device state and registers a
 * function that fills it, so no relocatable device code (-rdc) is needed. */
#ifndef KISHMEM_SHMEM_DEVICE_H
#define KISHMEM_SHMEM_DEVICE_H
#if defined(__CUDACC__)

#include "kishmem/device/coll.h"
#include "kishmem/device/rma.h"

static __constant__ kishmem::device::State kishmem_dstate;
static void kishmem_fill_dstate(const kishmem::device::State *s) { cudaMemcpyToSymbol(kishmem_dstate, s, sizeof *s); }
__attribute__((used)) static const int kishmem_dstate_registered =
    (kishmem_register_device_state(kishmem_fill_dstate), 0);

#define K_HD static inline __host__ __device__

/* One routine: device body DEV; on the host, a call of kishmem_h_shmem_NAME(ARGS). */
#if defined(__CUDA_ARCH__)
#define K_DEV_FN(RET, NAME, PARAMS, ARGS, ...)                                                    \
    extern "C" RET kishmem_h_shmem_##NAME PARAMS;                                                 \
    K_HD RET shmem_##NAME PARAMS { __VA_ARGS__; }
#else
#define K_DEV_FN(RET, NAME, PARAMS, ARGS, ...)                                                    \
    extern "C" RET kishmem_h_shmem_##NAME PARAMS;                                                 \
    K_HD RET shmem_##NAME PARAMS { return kishmem_h_shmem_##NAME ARGS; }
#endif

/* A routine with a context form too: shmem_NAME and shmem_ctx_NAME(shmem_ctx_t, ...). In kernels
 * every context behaves as the default one (the body ignores it); on the host each form calls
 * its own entry point. */
#define K_CTX_PARAMS(...) (shmem_ctx_t ctx_, __VA_ARGS__)
#define K_CTX_ARGS(...) (ctx_, __VA_ARGS__)
#if defined(__CUDA_ARCH__)
#define K_DEV_FN2(RET, NAME, PARAMS, ARGS, ...)                                                   \
    K_DEV_FN(RET, NAME, PARAMS, ARGS, __VA_ARGS__)                                                \
    extern "C" RET kishmem_h_shmem_ctx_##NAME K_CTX_PARAMS PARAMS;                                \
    K_HD RET shmem_ctx_##NAME K_CTX_PARAMS PARAMS {                                               \
        (void)ctx_;                                                                               \
        __VA_ARGS__;                                                                              \
    }
#else
#define K_DEV_FN2(RET, NAME, PARAMS, ARGS, ...)                                                   \
    K_DEV_FN(RET, NAME, PARAMS, ARGS, __VA_ARGS__)                                                \
    extern "C" RET kishmem_h_shmem_ctx_##NAME K_CTX_PARAMS PARAMS;                                \
    K_HD RET shmem_ctx_##NAME K_CTX_PARAMS PARAMS { return kishmem_h_shmem_ctx_##NAME K_CTX_ARGS ARGS; }
#endif

namespace kd = kishmem::device;
#define KS kishmem_dstate

#define K_DEV_RMA(T, N)                                                                           \
    K_DEV_FN2(void, N##_put, (T * d, const T *s, size_t n, int pe), (d, s, n, pe),                 \
             return kd::put<kd::Thread>(KS, d, s, n * sizeof(T), pe, "shmem_" #N "_put"))        \
    K_DEV_FN2(void, N##_get, (T * d, const T *s, size_t n, int pe), (d, s, n, pe),                 \
             return kd::get<kd::Thread>(KS, d, s, n * sizeof(T), pe, "shmem_" #N "_get"))        \
    K_DEV_FN2(void, N##_put_nbi, (T * d, const T *s, size_t n, int pe), (d, s, n, pe),             \
             return kd::put_nbi<kd::Thread>(KS, d, s, n * sizeof(T), pe, "shmem_" #N "_put_nbi"))    \
    K_DEV_FN2(void, N##_get_nbi, (T * d, const T *s, size_t n, int pe), (d, s, n, pe),             \
             return kd::get<kd::Thread>(KS, d, s, n * sizeof(T), pe, "shmem_" #N "_get_nbi"))    \
    K_DEV_FN2(void, N##_p, (T * d, T v, int pe), (d, v, pe), return kd::p<T>(KS, d, v, pe, "shmem_" #N "_p")) \
    K_DEV_FN2(T, N##_g, (const T *s, int pe), (s, pe), return kd::g<T>(KS, s, pe, "shmem_" #N "_g")) \
    K_DEV_FN2(void, N##_put_signal, (T * d, const T *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe), \
             (d, s, n, sig, v, op, pe),                                                           \
             return kd::put_signal<kd::Thread>(KS, d, s, n * sizeof(T), sig, v, op, pe, "shmem_" #N "_put_signal")) \
    K_DEV_FN2(void, N##_put_signal_nbi, (T * d, const T *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe), \
             (d, s, n, sig, v, op, pe),                                                           \
             return kd::put_signal_nbi<kd::Thread>(KS, d, s, n * sizeof(T), sig, v, op, pe, "shmem_" #N "_put_signal_nbi"))
KISHMEM_RMA_TYPES_DEV(K_DEV_RMA)

#define K_DEV_STRIDED(T, N)                                                                       \
    K_DEV_FN2(void, N##_iput, (T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe),   \
             (d, s, dst, sst, n, pe), kd::iput<T>(KS, d, s, dst, sst, n, pe, "shmem_" #N "_iput"); return) \
    K_DEV_FN2(void, N##_iget, (T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe),   \
             (d, s, dst, sst, n, pe), kd::iget<T>(KS, d, s, dst, sst, n, pe, "shmem_" #N "_iget"); return)
KISHMEM_RMA_TYPES_DEV(K_DEV_STRIDED)

#define K_DEV_BLOCKED(T, N)                                                                       \
    K_DEV_FN2(void, N##_ibput, (T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe), \
             (d, s, dst, sst, b, nb, pe), kd::ibput<T>(KS, d, s, dst, sst, b, nb, pe, "shmem_" #N "_ibput"); return) \
    K_DEV_FN2(void, N##_ibget, (T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe), \
             (d, s, dst, sst, b, nb, pe), kd::ibget<T>(KS, d, s, dst, sst, b, nb, pe, "shmem_" #N "_ibget"); return)
KISHMEM_RMA_TYPES_DEV(K_DEV_BLOCKED)

/* The sized strided, blocked and signalling forms: element type kd::Sized<B>::type. */
#define K_DEV_SIZED(B)                                                                            \
    K_DEV_FN2(void, iput##B, (void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe), \
             (d, s, dst, sst, n, pe),                                                             \
             kd::iput(KS, static_cast<kd::Sized<B>::type *>(d), static_cast<const kd::Sized<B>::type *>(s), dst, sst, n, \
                      pe, "shmem_iput" #B); return)                                               \
    K_DEV_FN2(void, iget##B, (void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe), \
             (d, s, dst, sst, n, pe),                                                             \
             kd::iget(KS, static_cast<kd::Sized<B>::type *>(d), static_cast<const kd::Sized<B>::type *>(s), dst, sst, n, \
                      pe, "shmem_iget" #B); return)                                               \
    K_DEV_FN2(void, ibput##B, (void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe), \
             (d, s, dst, sst, b, nb, pe),                                                         \
             kd::ibput(KS, static_cast<kd::Sized<B>::type *>(d), static_cast<const kd::Sized<B>::type *>(s), dst, sst, b, \
                       nb, pe, "shmem_ibput" #B); return)                                          \
    K_DEV_FN2(void, ibget##B, (void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe), \
             (d, s, dst, sst, b, nb, pe),                                                         \
             kd::ibget(KS, static_cast<kd::Sized<B>::type *>(d), static_cast<const kd::Sized<B>::type *>(s), dst, sst, b, \
                       nb, pe, "shmem_ibget" #B); return)                                          \
    K_DEV_FN2(void, put##B##_signal, (void *d, const void *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe), \
             (d, s, n, sig, v, op, pe),                                                           \
             return kd::put_signal<kd::Thread>(KS, d, s, n * (B / 8), sig, v, op, pe, "shmem_put" #B "_signal")) \
    K_DEV_FN2(void, put##B##_signal_nbi, (void *d, const void *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe), \
             (d, s, n, sig, v, op, pe),                                                           \
             return kd::put_signal_nbi<kd::Thread>(KS, d, s, n * (B / 8), sig, v, op, pe, "shmem_put" #B "_signal_nbi"))
KISHMEM_RMA_SIZES(K_DEV_SIZED)

#define K_DEV_MEM(NAME, B, OP)                                                                    \
    K_DEV_FN2(void, NAME, (void *d, const void *s, size_t n, int pe), (d, s, n, pe),               \
             return kd::OP<kd::Thread>(KS, d, s, n * (B), pe, "shmem_" #NAME))
K_DEV_MEM(putmem, 1, put)
K_DEV_MEM(getmem, 1, get)
K_DEV_MEM(putmem_nbi, 1, put_nbi)
K_DEV_MEM(getmem_nbi, 1, get)
#define K_DEV_SIZE(B)                                                                             \
    K_DEV_MEM(put##B, B / 8, put) K_DEV_MEM(get##B, B / 8, get) K_DEV_MEM(put##B##_nbi, B / 8, put_nbi) \
    K_DEV_MEM(get##B##_nbi, B / 8, get)
KISHMEM_RMA_SIZES(K_DEV_SIZE)
K_DEV_FN2(void, putmem_signal, (void *d, const void *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe),
         (d, s, n, sig, v, op, pe), return kd::put_signal<kd::Thread>(KS, d, s, n, sig, v, op, pe, "shmem_putmem_signal"))
K_DEV_FN2(void, putmem_signal_nbi, (void *d, const void *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe),
         (d, s, n, sig, v, op, pe),
         return kd::put_signal_nbi<kd::Thread>(KS, d, s, n, sig, v, op, pe, "shmem_putmem_signal_nbi"))

#define K_DEV_AMO_EXT(T, N)                                                                       \
    K_DEV_FN2(T, N##_atomic_fetch, (const T *s, int pe), (s, pe),                                  \
             return kd::amo<T>(KS, kd::Amo::fetch, const_cast<T *>(s), static_cast<T>(0), static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch")) \
    K_DEV_FN2(void, N##_atomic_set, (T * d, T v, int pe), (d, v, pe),                              \
             kd::amo<T>(KS, kd::Amo::set, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_set"); return)      \
    K_DEV_FN2(T, N##_atomic_swap, (T * d, T v, int pe), (d, v, pe),                                \
             return kd::amo<T>(KS, kd::Amo::swap, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_swap")) \
    K_DEV_FN2(void, N##_atomic_fetch_nbi, (T * f, const T *s, int pe), (f, s, pe),                 \
             *f = kd::amo<T>(KS, kd::Amo::fetch, const_cast<T *>(s), static_cast<T>(0), static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_nbi"); return) \
    K_DEV_FN2(void, N##_atomic_swap_nbi, (T * f, T * d, T v, int pe), (f, d, v, pe),               \
             *f = kd::amo<T>(KS, kd::Amo::swap, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_swap_nbi"); return)
#define K_DEV_AMO_STD(T, N)                                                                       \
    K_DEV_AMO_EXT(T, N)                                                                           \
    K_DEV_FN2(void, N##_atomic_compare_swap_nbi, (T * f, T * d, T c, T v, int pe), (f, d, c, v, pe), \
             *f = kd::amo<T>(KS, kd::Amo::cswap, d, v, c, pe, "shmem_" #N "_atomic_compare_swap_nbi"); return) \
    K_DEV_FN2(void, N##_atomic_fetch_inc_nbi, (T * f, T * d, int pe), (f, d, pe),                  \
             *f = kd::amo<T>(KS, kd::Amo::fetch_add, d, static_cast<T>(1), static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_inc_nbi"); return) \
    K_DEV_FN2(void, N##_atomic_fetch_add_nbi, (T * f, T * d, T v, int pe), (f, d, v, pe),          \
             *f = kd::amo<T>(KS, kd::Amo::fetch_add, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_add_nbi"); return) \
    K_DEV_FN2(T, N##_atomic_compare_swap, (T * d, T c, T v, int pe), (d, c, v, pe),                \
             return kd::amo<T>(KS, kd::Amo::cswap, d, v, c, pe, "shmem_" #N "_atomic_compare_swap")) \
    K_DEV_FN2(T, N##_atomic_fetch_inc, (T * d, int pe), (d, pe),                                   \
             return kd::amo<T>(KS, kd::Amo::fetch_add, d, static_cast<T>(1), static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_inc")) \
    K_DEV_FN2(void, N##_atomic_inc, (T * d, int pe), (d, pe),                                      \
             kd::amo<T>(KS, kd::Amo::add, d, static_cast<T>(1), static_cast<T>(0), pe, "shmem_" #N "_atomic_inc"); return) \
    K_DEV_FN2(T, N##_atomic_fetch_add, (T * d, T v, int pe), (d, v, pe),                           \
             return kd::amo<T>(KS, kd::Amo::fetch_add, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_add")) \
    K_DEV_FN2(void, N##_atomic_add, (T * d, T v, int pe), (d, v, pe),                              \
             kd::amo<T>(KS, kd::Amo::add, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_add"); return)
#define K_DEV_AMO_BIT(T, N)                                                                       \
    K_DEV_FN2(T, N##_atomic_fetch_and, (T * d, T v, int pe), (d, v, pe),                           \
             return kd::amo<T>(KS, kd::Amo::and_, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_and")) \
    K_DEV_FN2(void, N##_atomic_and, (T * d, T v, int pe), (d, v, pe),                              \
             kd::amo<T>(KS, kd::Amo::and_, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_and"); return)     \
    K_DEV_FN2(T, N##_atomic_fetch_or, (T * d, T v, int pe), (d, v, pe),                            \
             return kd::amo<T>(KS, kd::Amo::or_, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_or"))  \
    K_DEV_FN2(void, N##_atomic_or, (T * d, T v, int pe), (d, v, pe),                               \
             kd::amo<T>(KS, kd::Amo::or_, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_or"); return)       \
    K_DEV_FN2(T, N##_atomic_fetch_xor, (T * d, T v, int pe), (d, v, pe),                           \
             return kd::amo<T>(KS, kd::Amo::xor_, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_xor")) \
    K_DEV_FN2(void, N##_atomic_xor, (T * d, T v, int pe), (d, v, pe),                              \
             kd::amo<T>(KS, kd::Amo::xor_, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_xor"); return)
#define K_DEV_AMO_BIT_NBI(T, N)                                                                   \
    K_DEV_FN2(void, N##_atomic_fetch_and_nbi, (T * f, T * d, T v, int pe), (f, d, v, pe),          \
             *f = kd::amo<T>(KS, kd::Amo::and_, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_and_nbi"); return) \
    K_DEV_FN2(void, N##_atomic_fetch_or_nbi, (T * f, T * d, T v, int pe), (f, d, v, pe),           \
             *f = kd::amo<T>(KS, kd::Amo::or_, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_or_nbi"); return) \
    K_DEV_FN2(void, N##_atomic_fetch_xor_nbi, (T * f, T * d, T v, int pe), (f, d, v, pe),          \
             *f = kd::amo<T>(KS, kd::Amo::xor_, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_xor_nbi"); return)
KISHMEM_AMO_STD_TYPES(K_DEV_AMO_STD)
KISHMEM_AMO_BIT_TYPES(K_DEV_AMO_BIT_NBI)
KISHMEM_AMO_EXT_ONLY_TYPES(K_DEV_AMO_EXT)
KISHMEM_AMO_BIT_TYPES(K_DEV_AMO_BIT)

#define K_DEV_SYNC(T, N)                                                                          \
    K_DEV_FN(void, N##_wait_until, (T * v, int cmp, T x), (v, cmp, x),                            \
             kd::wait_until<T>(KS, v, cmp, x, "shmem_" #N "_wait_until"); return)                 \
    K_DEV_FN(int, N##_test, (T * v, int cmp, T x), (v, cmp, x),                                   \
             return kd::cmp<T>(kd::load_acquire(KS, v), cmp, x) ? 1 : 0)
KISHMEM_SYNC_TYPES(K_DEV_SYNC)

/* The array forms: K_CONDS(T, refs, ref) builds the condition set over ivars. */
#define K_CONDS(T, REFS, REF) (kd::Conds<T>{KS, v, n, st, cmp, REFS, REF})
#define K_DEV_SYNC_ARRAYS(T, N)                                                                   \
    K_DEV_FN(void, N##_wait_until_all, (T * v, size_t n, const int *st, int cmp, T x), (v, n, st, cmp, x), \
             kd::wait_all(K_CONDS(T, nullptr, x), "shmem_" #N "_wait_until_all"); return)            \
    K_DEV_FN(size_t, N##_wait_until_any, (T * v, size_t n, const int *st, int cmp, T x), (v, n, st, cmp, x), \
             return kd::wait_any(K_CONDS(T, nullptr, x), "shmem_" #N "_wait_until_any"))             \
    K_DEV_FN(size_t, N##_wait_until_some, (T * v, size_t n, size_t *ix, const int *st, int cmp, T x), \
             (v, n, ix, st, cmp, x), return kd::wait_some(K_CONDS(T, nullptr, x), ix, "shmem_" #N "_wait_until_some")) \
    K_DEV_FN(void, N##_wait_until_all_vector, (T * v, size_t n, const int *st, int cmp, T *xs), (v, n, st, cmp, xs), \
             kd::wait_all(K_CONDS(T, xs, static_cast<T>(0)), "shmem_" #N "_wait_until_all_vector"); return) \
    K_DEV_FN(size_t, N##_wait_until_any_vector, (T * v, size_t n, const int *st, int cmp, T *xs), \
             (v, n, st, cmp, xs), return kd::wait_any(K_CONDS(T, xs, static_cast<T>(0)), "shmem_" #N "_wait_until_any_vector")) \
    K_DEV_FN(size_t, N##_wait_until_some_vector, (T * v, size_t n, size_t *ix, const int *st, int cmp, T *xs), \
             (v, n, ix, st, cmp, xs), return kd::wait_some(K_CONDS(T, xs, static_cast<T>(0)), ix, "shmem_" #N "_wait_until_some_vector")) \
    K_DEV_FN(int, N##_test_all, (T * v, size_t n, const int *st, int cmp, T x), (v, n, st, cmp, x), \
             return K_CONDS(T, nullptr, x).all())                                                    \
    K_DEV_FN(size_t, N##_test_any, (T * v, size_t n, const int *st, int cmp, T x), (v, n, st, cmp, x), \
             return K_CONDS(T, nullptr, x).any())                                                    \
    K_DEV_FN(size_t, N##_test_some, (T * v, size_t n, size_t *ix, const int *st, int cmp, T x),   \
             (v, n, ix, st, cmp, x), return K_CONDS(T, nullptr, x).some(ix))                         \
    K_DEV_FN(int, N##_test_all_vector, (T * v, size_t n, const int *st, int cmp, T *xs), (v, n, st, cmp, xs), \
             return K_CONDS(T, xs, static_cast<T>(0)).all())                                         \
    K_DEV_FN(size_t, N##_test_any_vector, (T * v, size_t n, const int *st, int cmp, T *xs), (v, n, st, cmp, xs), \
             return K_CONDS(T, xs, static_cast<T>(0)).any())                                         \
    K_DEV_FN(size_t, N##_test_some_vector, (T * v, size_t n, size_t *ix, const int *st, int cmp, T *xs), \
             (v, n, ix, st, cmp, xs), return K_CONDS(T, xs, static_cast<T>(0)).some(ix))
KISHMEM_SYNC_TYPES(K_DEV_SYNC_ARRAYS)

K_DEV_FN(uint64_t, signal_fetch, (const uint64_t *sig), (sig), return *reinterpret_cast<const volatile uint64_t *>(sig))
K_DEV_FN(uint64_t, signal_wait_until, (uint64_t * sig, int cmp, uint64_t x), (sig, cmp, x),
         return kd::wait_until<uint64_t>(KS, sig, cmp, x, "shmem_signal_wait_until"))
K_DEV_FN2(void, signal_add, (uint64_t * sig, uint64_t v, int pe), (sig, v, pe),
         kd::amo<uint64_t>(KS, kd::Amo::add, sig, v, 0, pe, "shmem_signal_add"); return)
K_DEV_FN2(void, signal_set, (uint64_t * sig, uint64_t v, int pe), (sig, v, pe),
         kd::amo<uint64_t>(KS, kd::Amo::set, sig, v, 0, pe, "shmem_signal_set"); return)
K_DEV_FN(void, fence, (void), (), kd::fence(KS); return)
K_DEV_FN(void, quiet, (void), (), kd::fence(KS); return)
K_DEV_FN(void, ctx_fence, (shmem_ctx_t c), (c), (void)c; kd::fence(KS); return)
K_DEV_FN(void, ctx_quiet, (shmem_ctx_t c), (c), (void)c; kd::fence(KS); return)
K_DEV_FN(void, barrier_all, (void), (), kd::sync_all<kd::Thread>(KS); return)
K_DEV_FN(void, sync_all, (void), (), kd::sync_all<kd::Thread>(KS); return)
K_DEV_FN(int, my_pe, (void), (), return KS.my_pe)
K_DEV_FN(int, n_pes, (void), (), return KS.n_pes)
K_DEV_FN(void *, ptr, (const void *d, int pe), (d, pe),
         return (pe >= 0 && pe < KS.n_pes && pe < kd::kMaxPes && KS.peer_base[pe])
                    ? static_cast<void *>(KS.peer_base[pe] + (static_cast<const char *>(d) - KS.heap_base))
                    : nullptr)

/* Teams in kernels: a handle is the host's shmem_team_t, looked up in the device state's team
 * table (the runtime publishes every team it makes).  SHMEM_TEAM_WORLD / SHARED name the same
 * objects on the host and the device. */
K_HD shmem_team_t kishmem_predefined_team(int slot) {
#if defined(__CUDA_ARCH__)
    return (shmem_team_t)KS.teams[slot].key;
#else
    return slot == 0 ? &kishmem_team_world_obj : &kishmem_team_shared_obj;
#endif
}
K_HD shmem_ctx_t kishmem_predefined_ctx(void) {
#if defined(__CUDA_ARCH__)
    return (shmem_ctx_t)KS.ctx_default;
#else
    return &kishmem_ctx_default_obj;
#endif
}
#undef SHMEM_CTX_DEFAULT
#define SHMEM_CTX_DEFAULT (kishmem_predefined_ctx())
#undef SHMEM_TEAM_WORLD
#undef SHMEM_TEAM_SHARED
#define SHMEM_TEAM_WORLD (kishmem_predefined_team(0))
#define SHMEM_TEAM_SHARED (kishmem_predefined_team(1))

K_DEV_FN(int, team_my_pe, (shmem_team_t t), (t),
         const int slot = kd::team_slot(KS, t); return slot < 0 ? -1 : KS.teams[slot].my_index)
K_DEV_FN(int, team_n_pes, (shmem_team_t t), (t),
         const int slot = kd::team_slot(KS, t); return slot < 0 ? -1 : KS.teams[slot].size)
K_DEV_FN(int, team_sync, (shmem_team_t t), (t), const int slot = kd::team_slot(KS, t);
         if (slot < 0) kd::trap_bad(KS, "shmem_team_sync", -1, t); kd::sync_team<kd::Thread>(KS, slot, "shmem_team_sync");
         return 0)

/* Team collectives (device/include/kishmem/device/coll.h): alltoall(s), broadcast, fcollect,
 * reductions and sum scans for the device types; collect (sizes differ per PE) is host-only. */
#define K_DEV_COLL(T, N)                                                                          \
    K_DEV_FN(int, N##_broadcast, (shmem_team_t t, T * d, const T *s, size_t n, int root), (t, d, s, n, root), \
             return kd::broadcast<kd::Thread>(KS, t, d, s, n * sizeof(T), root, "shmem_" #N "_broadcast")) \
    K_DEV_FN(int, N##_fcollect, (shmem_team_t t, T * d, const T *s, size_t n), (t, d, s, n),      \
             return kd::fcollect<kd::Thread>(KS, t, d, s, n * sizeof(T), "shmem_" #N "_fcollect")) \
    K_DEV_FN(int, N##_alltoall, (shmem_team_t t, T * d, const T *s, size_t n), (t, d, s, n),      \
             return kd::alltoall<kd::Thread>(KS, t, d, s, n * sizeof(T), "shmem_" #N "_alltoall")) \
    K_DEV_FN(int, N##_alltoalls, (shmem_team_t t, T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n), \
             (t, d, s, dst, sst, n),                                                              \
             return kd::alltoalls<kd::Thread, T>(KS, t, d, s, dst, sst, n, "shmem_" #N "_alltoalls"))
KISHMEM_RMA_TYPES_DEV(K_DEV_COLL)
K_DEV_FN(int, broadcastmem, (shmem_team_t t, void *d, const void *s, size_t n, int root), (t, d, s, n, root),
         return kd::broadcast<kd::Thread>(KS, t, d, s, n, root, "shmem_broadcastmem"))
K_DEV_FN(int, fcollectmem, (shmem_team_t t, void *d, const void *s, size_t n), (t, d, s, n),
         return kd::fcollect<kd::Thread>(KS, t, d, s, n, "shmem_fcollectmem"))
K_DEV_FN(int, alltoallmem, (shmem_team_t t, void *d, const void *s, size_t n), (t, d, s, n),
         return kd::alltoall<kd::Thread>(KS, t, d, s, n, "shmem_alltoallmem"))
K_DEV_FN(int, alltoallsmem, (shmem_team_t t, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n),
         (t, d, s, dst, sst, n),
         return kd::alltoalls<kd::Thread, unsigned char>(KS, t, static_cast<unsigned char *>(d),
                                                         static_cast<const unsigned char *>(s), dst, sst, n,
                                                         "shmem_alltoallsmem"))

#define K_DEV_REDUCE(T, N, OP, OPT)                                                               \
    K_DEV_FN(int, N##_##OP##_reduce, (shmem_team_t t, T * d, const T *s, size_t n), (t, d, s, n), \
             return kd::reduce<kd::Thread, T, kd::OPT>(KS, t, d, s, n, "shmem_" #N "_" #OP "_reduce"))
#define K_DEV_REDUCE_BIT(T, N) K_DEV_REDUCE(T, N, and, OpAnd) K_DEV_REDUCE(T, N, or, OpOr) K_DEV_REDUCE(T, N, xor, OpXor)
#define K_DEV_REDUCE_ARITH(T, N)                                                                  \
    K_DEV_REDUCE(T, N, max, OpMax) K_DEV_REDUCE(T, N, min, OpMin) K_DEV_REDUCE(T, N, sum, OpSum)  \
    K_DEV_REDUCE(T, N, prod, OpProd)                                                              \
    K_DEV_FN(int, N##_sum_inscan, (shmem_team_t t, T * d, const T *s, size_t n), (t, d, s, n),    \
             return kd::sum_scan<kd::Thread, T>(KS, t, d, s, n, true, "shmem_" #N "_sum_inscan")) \
    K_DEV_FN(int, N##_sum_exscan, (shmem_team_t t, T * d, const T *s, size_t n), (t, d, s, n),    \
             return kd::sum_scan<kd::Thread, T>(KS, t, d, s, n, false, "shmem_" #N "_sum_exscan"))
KISHMEM_REDUCE_BIT_TYPES(K_DEV_REDUCE_BIT)
KISHMEM_REDUCE_MINMAX_TYPES_DEV(K_DEV_REDUCE_ARITH)

/* Warp and block variants (shmemx.h names), device only: the same templates, another scope. */
#define K_DEV_COOP(SUFFIX, COOP)                                                                  \
    static __device__ inline void shmemx_putmem_##SUFFIX(void *d, const void *s, size_t n, int pe) { \
        kd::put<COOP>(KS, d, s, n, pe, "shmemx_putmem_" #SUFFIX);                                 \
    }                                                                                             \
    static __device__ inline void shmemx_getmem_##SUFFIX(void *d, const void *s, size_t n, int pe) { \
        kd::get<COOP>(KS, d, s, n, pe, "shmemx_getmem_" #SUFFIX);                                 \
    }                                                                                             \
    static __device__ inline void shmemx_putmem_nbi_##SUFFIX(void *d, const void *s, size_t n, int pe) { \
        kd::put_nbi<COOP>(KS, d, s, n, pe, "shmemx_putmem_nbi_" #SUFFIX);                             \
    }                                                                                             \
    static __device__ inline void shmemx_putmem_signal_##SUFFIX(void *d, const void *s, size_t n, uint64_t *sig, \
                                                                uint64_t v, int op, int pe) {     \
        kd::put_signal<COOP>(KS, d, s, n, sig, v, op, pe, "shmemx_putmem_signal_" #SUFFIX);       \
    }                                                                                             \
    static __device__ inline int shmemx_alltoallmem_##SUFFIX(shmem_team_t t, void *d, const void *s, size_t n) { \
        return kd::alltoall<COOP>(KS, t, d, s, n, "shmemx_alltoallmem_" #SUFFIX);                 \
    }                                                                                             \
    static __device__ inline int shmemx_fcollectmem_##SUFFIX(shmem_team_t t, void *d, const void *s, size_t n) { \
        return kd::fcollect<COOP>(KS, t, d, s, n, "shmemx_fcollectmem_" #SUFFIX);                 \
    }                                                                                             \
    static __device__ inline int shmemx_broadcastmem_##SUFFIX(shmem_team_t t, void *d, const void *s, size_t n, \
                                                              int root) {                         \
        return kd::broadcast<COOP>(KS, t, d, s, n, root, "shmemx_broadcastmem_" #SUFFIX);         \
    }                                                                                             \
    static __device__ inline void shmemx_barrier_all_##SUFFIX(void) { kd::sync_all<COOP>(KS); }  \
    static __device__ inline void shmemx_sync_all_##SUFFIX(void) { kd::sync_all<COOP>(KS); }       \
    static __device__ inline int shmemx_team_sync_##SUFFIX(shmem_team_t t) {                     \
        const int slot = kd::team_slot(KS, t);                                                    \
        if (slot < 0) kd::trap_bad(KS, "shmemx_team_sync_" #SUFFIX, -1, t);                       \
        kd::sync_team<COOP>(KS, slot, "shmemx_team_sync_" #SUFFIX);                               \
        return 0;                                                                                 \
    }
K_DEV_COOP(warp, kd::Warp)
K_DEV_COOP(block, kd::Block)

/* Reductions by a warp or a block: shmemx_TYPENAME_OP_reduce_warp / _block. */
#define K_DEV_COOP_REDUCE(T, N, OP, OPT, SUFFIX, COOP)                                            \
    static __device__ inline int shmemx_##N##_##OP##_reduce_##SUFFIX(shmem_team_t t, T *d, const T *s, size_t n) { \
        return kd::reduce<COOP, T, kd::OPT>(KS, t, d, s, n, "shmemx_" #N "_" #OP "_reduce_" #SUFFIX); \
    }
#define K_DEV_COOP_REDUCE_SCOPES(T, N, OP, OPT)                                                   \
    K_DEV_COOP_REDUCE(T, N, OP, OPT, warp, kd::Warp) K_DEV_COOP_REDUCE(T, N, OP, OPT, block, kd::Block)
#define K_DEV_COOP_REDUCE_BIT(T, N)                                                               \
    K_DEV_COOP_REDUCE_SCOPES(T, N, and, OpAnd) K_DEV_COOP_REDUCE_SCOPES(T, N, or, OpOr)           \
    K_DEV_COOP_REDUCE_SCOPES(T, N, xor, OpXor)
#define K_DEV_COOP_REDUCE_ARITH(T, N)                                                             \
    K_DEV_COOP_REDUCE_SCOPES(T, N, max, OpMax) K_DEV_COOP_REDUCE_SCOPES(T, N, min, OpMin)         \
    K_DEV_COOP_REDUCE_SCOPES(T, N, sum, OpSum) K_DEV_COOP_REDUCE_SCOPES(T, N, prod, OpProd)
KISHMEM_REDUCE_BIT_TYPES(K_DEV_COOP_REDUCE_BIT)
KISHMEM_REDUCE_MINMAX_TYPES_DEV(K_DEV_COOP_REDUCE_ARITH)

#endif /* __CUDACC__ */
#endif /* KISHMEM_SHMEM_DEVICE_H */
