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

#define KISHMEM_D_HD static inline __host__ __device__

/* One routine: device body DEV; on the host, a call of kishmem_h_shmem_NAME(ARGS). */
#if defined(__CUDA_ARCH__)
#define KISHMEM_D_FN(RET, NAME, PARAMS, ARGS, ...)                                                \
    extern "C" RET kishmem_h_shmem_##NAME PARAMS;                                                 \
    KISHMEM_D_HD RET shmem_##NAME PARAMS { __VA_ARGS__; }
#else
#define KISHMEM_D_FN(RET, NAME, PARAMS, ARGS, ...)                                                \
    extern "C" RET kishmem_h_shmem_##NAME PARAMS;                                                 \
    KISHMEM_D_HD RET shmem_##NAME PARAMS { return kishmem_h_shmem_##NAME ARGS; }
#endif

/* A routine with a context form too: shmem_NAME and shmem_ctx_NAME(shmem_ctx_t, ...). In kernels
 * every context behaves as the default one (the body ignores it); on the host each form calls
 * its own entry point. */
#define KISHMEM_D_CTX_PARAMS(...) (shmem_ctx_t ctx_, __VA_ARGS__)
#define KISHMEM_D_CTX_ARGS(...) (ctx_, __VA_ARGS__)
#if defined(__CUDA_ARCH__)
#define KISHMEM_D_FN2(RET, NAME, PARAMS, ARGS, ...)                                               \
    KISHMEM_D_FN(RET, NAME, PARAMS, ARGS, __VA_ARGS__)                                            \
    extern "C" RET kishmem_h_shmem_ctx_##NAME KISHMEM_D_CTX_PARAMS PARAMS;                        \
    KISHMEM_D_HD RET shmem_ctx_##NAME KISHMEM_D_CTX_PARAMS PARAMS {                               \
        (void)ctx_;                                                                               \
        __VA_ARGS__;                                                                              \
    }
#else
#define KISHMEM_D_FN2(RET, NAME, PARAMS, ARGS, ...)                                               \
    KISHMEM_D_FN(RET, NAME, PARAMS, ARGS, __VA_ARGS__)                                            \
    extern "C" RET kishmem_h_shmem_ctx_##NAME KISHMEM_D_CTX_PARAMS PARAMS;                        \
    KISHMEM_D_HD RET shmem_ctx_##NAME KISHMEM_D_CTX_PARAMS PARAMS { return kishmem_h_shmem_ctx_##NAME KISHMEM_D_CTX_ARGS ARGS; }
#endif

/* Shorthands of the bodies below (undefined at the end of this file: no namespace alias and no
 * short macro reaches the user's code). */
#define KISHMEM_D ::kishmem::device
#define KISHMEM_D_STATE kishmem_dstate

#define KISHMEM_D_RMA(T, N)                                                                       \
    KISHMEM_D_FN2(void, N##_put, (T * d, const T *s, size_t n, int pe), (d, s, n, pe),             \
             return KISHMEM_D::put<KISHMEM_D::Thread>(KISHMEM_D_STATE, d, s, n * sizeof(T), pe, "shmem_" #N "_put")) \
    KISHMEM_D_FN2(void, N##_get, (T * d, const T *s, size_t n, int pe), (d, s, n, pe),             \
             return KISHMEM_D::get<KISHMEM_D::Thread>(KISHMEM_D_STATE, d, s, n * sizeof(T), pe, "shmem_" #N "_get")) \
    KISHMEM_D_FN2(void, N##_put_nbi, (T * d, const T *s, size_t n, int pe), (d, s, n, pe),         \
             return KISHMEM_D::put_nbi<KISHMEM_D::Thread>(KISHMEM_D_STATE, d, s, n * sizeof(T), pe, "shmem_" #N "_put_nbi")) \
    KISHMEM_D_FN2(void, N##_get_nbi, (T * d, const T *s, size_t n, int pe), (d, s, n, pe),         \
             return KISHMEM_D::get<KISHMEM_D::Thread>(KISHMEM_D_STATE, d, s, n * sizeof(T), pe, "shmem_" #N "_get_nbi")) \
    KISHMEM_D_FN2(void, N##_p, (T * d, T v, int pe), (d, v, pe), return KISHMEM_D::p<T>(KISHMEM_D_STATE, d, v, pe, "shmem_" #N "_p")) \
    KISHMEM_D_FN2(T, N##_g, (const T *s, int pe), (s, pe), return KISHMEM_D::g<T>(KISHMEM_D_STATE, s, pe, "shmem_" #N "_g")) \
    KISHMEM_D_FN2(void, N##_put_signal, (T * d, const T *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe), \
             (d, s, n, sig, v, op, pe),                                                           \
             return KISHMEM_D::put_signal<KISHMEM_D::Thread>(KISHMEM_D_STATE, d, s, n * sizeof(T), sig, v, op, pe, "shmem_" #N "_put_signal")) \
    KISHMEM_D_FN2(void, N##_put_signal_nbi, (T * d, const T *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe), \
             (d, s, n, sig, v, op, pe),                                                           \
             return KISHMEM_D::put_signal_nbi<KISHMEM_D::Thread>(KISHMEM_D_STATE, d, s, n * sizeof(T), sig, v, op, pe, "shmem_" #N "_put_signal_nbi"))
KISHMEM_RMA_TYPES_DEV(KISHMEM_D_RMA)

#define KISHMEM_D_STRIDED(T, N)                                                                   \
    KISHMEM_D_FN2(void, N##_iput, (T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe), \
             (d, s, dst, sst, n, pe), KISHMEM_D::iput<T>(KISHMEM_D_STATE, d, s, dst, sst, n, pe, "shmem_" #N "_iput"); return) \
    KISHMEM_D_FN2(void, N##_iget, (T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe), \
             (d, s, dst, sst, n, pe), KISHMEM_D::iget<T>(KISHMEM_D_STATE, d, s, dst, sst, n, pe, "shmem_" #N "_iget"); return)
KISHMEM_RMA_TYPES_DEV(KISHMEM_D_STRIDED)

#define KISHMEM_D_BLOCKED(T, N)                                                                   \
    KISHMEM_D_FN2(void, N##_ibput, (T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe), \
             (d, s, dst, sst, b, nb, pe), KISHMEM_D::ibput<T>(KISHMEM_D_STATE, d, s, dst, sst, b, nb, pe, "shmem_" #N "_ibput"); return) \
    KISHMEM_D_FN2(void, N##_ibget, (T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe), \
             (d, s, dst, sst, b, nb, pe), KISHMEM_D::ibget<T>(KISHMEM_D_STATE, d, s, dst, sst, b, nb, pe, "shmem_" #N "_ibget"); return)
KISHMEM_RMA_TYPES_DEV(KISHMEM_D_BLOCKED)

/* The sized strided, blocked and signalling forms: element type KISHMEM_D::Sized<B>::type. */
#define KISHMEM_D_SIZED(B)                                                                        \
    KISHMEM_D_FN2(void, iput##B, (void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe), \
             (d, s, dst, sst, n, pe),                                                             \
             KISHMEM_D::iput(KISHMEM_D_STATE, static_cast<KISHMEM_D::Sized<B>::type *>(d), static_cast<const KISHMEM_D::Sized<B>::type *>(s), dst, sst, n, \
                      pe, "shmem_iput" #B); return)                                               \
    KISHMEM_D_FN2(void, iget##B, (void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe), \
             (d, s, dst, sst, n, pe),                                                             \
             KISHMEM_D::iget(KISHMEM_D_STATE, static_cast<KISHMEM_D::Sized<B>::type *>(d), static_cast<const KISHMEM_D::Sized<B>::type *>(s), dst, sst, n, \
                      pe, "shmem_iget" #B); return)                                               \
    KISHMEM_D_FN2(void, ibput##B, (void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe), \
             (d, s, dst, sst, b, nb, pe),                                                         \
             KISHMEM_D::ibput(KISHMEM_D_STATE, static_cast<KISHMEM_D::Sized<B>::type *>(d), static_cast<const KISHMEM_D::Sized<B>::type *>(s), dst, sst, b, \
                       nb, pe, "shmem_ibput" #B); return)                                          \
    KISHMEM_D_FN2(void, ibget##B, (void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe), \
             (d, s, dst, sst, b, nb, pe),                                                         \
             KISHMEM_D::ibget(KISHMEM_D_STATE, static_cast<KISHMEM_D::Sized<B>::type *>(d), static_cast<const KISHMEM_D::Sized<B>::type *>(s), dst, sst, b, \
                       nb, pe, "shmem_ibget" #B); return)                                          \
    KISHMEM_D_FN2(void, put##B##_signal, (void *d, const void *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe), \
             (d, s, n, sig, v, op, pe),                                                           \
             return KISHMEM_D::put_signal<KISHMEM_D::Thread>(KISHMEM_D_STATE, d, s, n * (B / 8), sig, v, op, pe, "shmem_put" #B "_signal")) \
    KISHMEM_D_FN2(void, put##B##_signal_nbi, (void *d, const void *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe), \
             (d, s, n, sig, v, op, pe),                                                           \
             return KISHMEM_D::put_signal_nbi<KISHMEM_D::Thread>(KISHMEM_D_STATE, d, s, n * (B / 8), sig, v, op, pe, "shmem_put" #B "_signal_nbi"))
KISHMEM_RMA_SIZES(KISHMEM_D_SIZED)

#define KISHMEM_D_MEM(NAME, B, OP)                                                                \
    KISHMEM_D_FN2(void, NAME, (void *d, const void *s, size_t n, int pe), (d, s, n, pe),           \
             return KISHMEM_D::OP<KISHMEM_D::Thread>(KISHMEM_D_STATE, d, s, n * (B), pe, "shmem_" #NAME))
KISHMEM_D_MEM(putmem, 1, put)
KISHMEM_D_MEM(getmem, 1, get)
KISHMEM_D_MEM(putmem_nbi, 1, put_nbi)
KISHMEM_D_MEM(getmem_nbi, 1, get)
#define KISHMEM_D_SIZE(B)                                                                         \
    KISHMEM_D_MEM(put##B, B / 8, put) KISHMEM_D_MEM(get##B, B / 8, get) KISHMEM_D_MEM(put##B##_nbi, B / 8, put_nbi) \
    KISHMEM_D_MEM(get##B##_nbi, B / 8, get)
KISHMEM_RMA_SIZES(KISHMEM_D_SIZE)
KISHMEM_D_FN2(void, putmem_signal, (void *d, const void *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe),
         (d, s, n, sig, v, op, pe), return KISHMEM_D::put_signal<KISHMEM_D::Thread>(KISHMEM_D_STATE, d, s, n, sig, v, op, pe, "shmem_putmem_signal"))
KISHMEM_D_FN2(void, putmem_signal_nbi, (void *d, const void *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe),
         (d, s, n, sig, v, op, pe),
         return KISHMEM_D::put_signal_nbi<KISHMEM_D::Thread>(KISHMEM_D_STATE, d, s, n, sig, v, op, pe, "shmem_putmem_signal_nbi"))

#define KISHMEM_D_AMO_EXT(T, N)                                                                   \
    KISHMEM_D_FN2(T, N##_atomic_fetch, (const T *s, int pe), (s, pe),                              \
             return KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::fetch, const_cast<T *>(s), static_cast<T>(0), static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch")) \
    KISHMEM_D_FN2(void, N##_atomic_set, (T * d, T v, int pe), (d, v, pe),                          \
             KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::set, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_set"); return) \
    KISHMEM_D_FN2(T, N##_atomic_swap, (T * d, T v, int pe), (d, v, pe),                            \
             return KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::swap, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_swap")) \
    KISHMEM_D_FN2(void, N##_atomic_fetch_nbi, (T * f, const T *s, int pe), (f, s, pe),             \
             *f = KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::fetch, const_cast<T *>(s), static_cast<T>(0), static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_nbi"); return) \
    KISHMEM_D_FN2(void, N##_atomic_swap_nbi, (T * f, T * d, T v, int pe), (f, d, v, pe),           \
             *f = KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::swap, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_swap_nbi"); return)
#define KISHMEM_D_AMO_STD(T, N)                                                                   \
    KISHMEM_D_AMO_EXT(T, N)                                                                       \
    KISHMEM_D_FN2(void, N##_atomic_compare_swap_nbi, (T * f, T * d, T c, T v, int pe), (f, d, c, v, pe), \
             *f = KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::cswap, d, v, c, pe, "shmem_" #N "_atomic_compare_swap_nbi"); return) \
    KISHMEM_D_FN2(void, N##_atomic_fetch_inc_nbi, (T * f, T * d, int pe), (f, d, pe),              \
             *f = KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::fetch_add, d, static_cast<T>(1), static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_inc_nbi"); return) \
    KISHMEM_D_FN2(void, N##_atomic_fetch_add_nbi, (T * f, T * d, T v, int pe), (f, d, v, pe),      \
             *f = KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::fetch_add, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_add_nbi"); return) \
    KISHMEM_D_FN2(T, N##_atomic_compare_swap, (T * d, T c, T v, int pe), (d, c, v, pe),            \
             return KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::cswap, d, v, c, pe, "shmem_" #N "_atomic_compare_swap")) \
    KISHMEM_D_FN2(T, N##_atomic_fetch_inc, (T * d, int pe), (d, pe),                               \
             return KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::fetch_add, d, static_cast<T>(1), static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_inc")) \
    KISHMEM_D_FN2(void, N##_atomic_inc, (T * d, int pe), (d, pe),                                  \
             KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::add, d, static_cast<T>(1), static_cast<T>(0), pe, "shmem_" #N "_atomic_inc"); return) \
    KISHMEM_D_FN2(T, N##_atomic_fetch_add, (T * d, T v, int pe), (d, v, pe),                       \
             return KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::fetch_add, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_add")) \
    KISHMEM_D_FN2(void, N##_atomic_add, (T * d, T v, int pe), (d, v, pe),                          \
             KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::add, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_add"); return)
#define KISHMEM_D_AMO_BIT(T, N)                                                                   \
    KISHMEM_D_FN2(T, N##_atomic_fetch_and, (T * d, T v, int pe), (d, v, pe),                       \
             return KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::fetch_and, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_and")) \
    KISHMEM_D_FN2(void, N##_atomic_and, (T * d, T v, int pe), (d, v, pe),                          \
             KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::and_, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_and"); return) \
    KISHMEM_D_FN2(T, N##_atomic_fetch_or, (T * d, T v, int pe), (d, v, pe),                        \
             return KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::fetch_or, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_or")) \
    KISHMEM_D_FN2(void, N##_atomic_or, (T * d, T v, int pe), (d, v, pe),                           \
             KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::or_, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_or"); return) \
    KISHMEM_D_FN2(T, N##_atomic_fetch_xor, (T * d, T v, int pe), (d, v, pe),                       \
             return KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::fetch_xor, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_xor")) \
    KISHMEM_D_FN2(void, N##_atomic_xor, (T * d, T v, int pe), (d, v, pe),                          \
             KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::xor_, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_xor"); return)
#define KISHMEM_D_AMO_BIT_NBI(T, N)                                                               \
    KISHMEM_D_FN2(void, N##_atomic_fetch_and_nbi, (T * f, T * d, T v, int pe), (f, d, v, pe),      \
             *f = KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::fetch_and, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_and_nbi"); return) \
    KISHMEM_D_FN2(void, N##_atomic_fetch_or_nbi, (T * f, T * d, T v, int pe), (f, d, v, pe),       \
             *f = KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::fetch_or, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_or_nbi"); return) \
    KISHMEM_D_FN2(void, N##_atomic_fetch_xor_nbi, (T * f, T * d, T v, int pe), (f, d, v, pe),      \
             *f = KISHMEM_D::amo<T>(KISHMEM_D_STATE, ::kishmem::AmoOp::fetch_xor, d, v, static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_xor_nbi"); return)
KISHMEM_AMO_STD_TYPES(KISHMEM_D_AMO_STD)
KISHMEM_AMO_BIT_TYPES(KISHMEM_D_AMO_BIT_NBI)
KISHMEM_AMO_EXT_ONLY_TYPES(KISHMEM_D_AMO_EXT)
KISHMEM_AMO_BIT_TYPES(KISHMEM_D_AMO_BIT)

#define KISHMEM_D_SYNC(T, N)                                                                      \
    KISHMEM_D_FN(void, N##_wait_until, (T * v, int cmp, T x), (v, cmp, x),                        \
             KISHMEM_D::wait_until<T>(KISHMEM_D_STATE, v, cmp, x, "shmem_" #N "_wait_until"); return) \
    KISHMEM_D_FN(int, N##_test, (T * v, int cmp, T x), (v, cmp, x),                               \
             return KISHMEM_D::cmp<T>(KISHMEM_D::load_acquire(KISHMEM_D_STATE, v), cmp, x) ? 1 : 0)
KISHMEM_SYNC_TYPES(KISHMEM_D_SYNC)

/* The array forms: KISHMEM_D_CONDS(T, refs, ref) builds the condition set over ivars. */
#define KISHMEM_D_CONDS(T, REFS, REF) (KISHMEM_D::Conds<T>{KISHMEM_D_STATE, v, n, st, cmp, REFS, REF})
#define KISHMEM_D_SYNC_ARRAYS(T, N)                                                               \
    KISHMEM_D_FN(void, N##_wait_until_all, (T * v, size_t n, const int *st, int cmp, T x), (v, n, st, cmp, x), \
             KISHMEM_D::wait_all(KISHMEM_D_CONDS(T, nullptr, x), "shmem_" #N "_wait_until_all"); return) \
    KISHMEM_D_FN(size_t, N##_wait_until_any, (T * v, size_t n, const int *st, int cmp, T x), (v, n, st, cmp, x), \
             return KISHMEM_D::wait_any(KISHMEM_D_CONDS(T, nullptr, x), "shmem_" #N "_wait_until_any")) \
    KISHMEM_D_FN(size_t, N##_wait_until_some, (T * v, size_t n, size_t *ix, const int *st, int cmp, T x), \
             (v, n, ix, st, cmp, x), return KISHMEM_D::wait_some(KISHMEM_D_CONDS(T, nullptr, x), ix, "shmem_" #N "_wait_until_some")) \
    KISHMEM_D_FN(void, N##_wait_until_all_vector, (T * v, size_t n, const int *st, int cmp, T *xs), (v, n, st, cmp, xs), \
             KISHMEM_D::wait_all(KISHMEM_D_CONDS(T, xs, static_cast<T>(0)), "shmem_" #N "_wait_until_all_vector"); return) \
    KISHMEM_D_FN(size_t, N##_wait_until_any_vector, (T * v, size_t n, const int *st, int cmp, T *xs), \
             (v, n, st, cmp, xs), return KISHMEM_D::wait_any(KISHMEM_D_CONDS(T, xs, static_cast<T>(0)), "shmem_" #N "_wait_until_any_vector")) \
    KISHMEM_D_FN(size_t, N##_wait_until_some_vector, (T * v, size_t n, size_t *ix, const int *st, int cmp, T *xs), \
             (v, n, ix, st, cmp, xs), return KISHMEM_D::wait_some(KISHMEM_D_CONDS(T, xs, static_cast<T>(0)), ix, "shmem_" #N "_wait_until_some_vector")) \
    KISHMEM_D_FN(int, N##_test_all, (T * v, size_t n, const int *st, int cmp, T x), (v, n, st, cmp, x), \
             return KISHMEM_D_CONDS(T, nullptr, x).all())                                            \
    KISHMEM_D_FN(size_t, N##_test_any, (T * v, size_t n, const int *st, int cmp, T x), (v, n, st, cmp, x), \
             return KISHMEM_D_CONDS(T, nullptr, x).any())                                            \
    KISHMEM_D_FN(size_t, N##_test_some, (T * v, size_t n, size_t *ix, const int *st, int cmp, T x), \
             (v, n, ix, st, cmp, x), return KISHMEM_D_CONDS(T, nullptr, x).some(ix))                 \
    KISHMEM_D_FN(int, N##_test_all_vector, (T * v, size_t n, const int *st, int cmp, T *xs), (v, n, st, cmp, xs), \
             return KISHMEM_D_CONDS(T, xs, static_cast<T>(0)).all())                                 \
    KISHMEM_D_FN(size_t, N##_test_any_vector, (T * v, size_t n, const int *st, int cmp, T *xs), (v, n, st, cmp, xs), \
             return KISHMEM_D_CONDS(T, xs, static_cast<T>(0)).any())                                 \
    KISHMEM_D_FN(size_t, N##_test_some_vector, (T * v, size_t n, size_t *ix, const int *st, int cmp, T *xs), \
             (v, n, ix, st, cmp, xs), return KISHMEM_D_CONDS(T, xs, static_cast<T>(0)).some(ix))
KISHMEM_SYNC_TYPES(KISHMEM_D_SYNC_ARRAYS)

KISHMEM_D_FN(uint64_t, signal_fetch, (const uint64_t *sig), (sig), return *reinterpret_cast<const volatile uint64_t *>(sig))
KISHMEM_D_FN(uint64_t, signal_wait_until, (uint64_t * sig, int cmp, uint64_t x), (sig, cmp, x),
         return KISHMEM_D::wait_until<uint64_t>(KISHMEM_D_STATE, sig, cmp, x, "shmem_signal_wait_until"))
KISHMEM_D_FN2(void, signal_add, (uint64_t * sig, uint64_t v, int pe), (sig, v, pe),
         KISHMEM_D::amo<uint64_t>(KISHMEM_D_STATE, ::kishmem::AmoOp::add, sig, v, 0, pe, "shmem_signal_add"); return)
KISHMEM_D_FN2(void, signal_set, (uint64_t * sig, uint64_t v, int pe), (sig, v, pe),
         KISHMEM_D::amo<uint64_t>(KISHMEM_D_STATE, ::kishmem::AmoOp::set, sig, v, 0, pe, "shmem_signal_set"); return)
KISHMEM_D_FN(void, fence, (void), (), KISHMEM_D::fence(KISHMEM_D_STATE); return)
KISHMEM_D_FN(void, quiet, (void), (), KISHMEM_D::fence(KISHMEM_D_STATE); return)
KISHMEM_D_FN(void, ctx_fence, (shmem_ctx_t c), (c), (void)c; KISHMEM_D::fence(KISHMEM_D_STATE); return)
KISHMEM_D_FN(void, ctx_quiet, (shmem_ctx_t c), (c), (void)c; KISHMEM_D::fence(KISHMEM_D_STATE); return)
KISHMEM_D_FN(void, barrier_all, (void), (), KISHMEM_D::sync_all<KISHMEM_D::Thread>(KISHMEM_D_STATE); return)
KISHMEM_D_FN(void, sync_all, (void), (), KISHMEM_D::sync_all<KISHMEM_D::Thread>(KISHMEM_D_STATE); return)
KISHMEM_D_FN(int, my_pe, (void), (), return KISHMEM_D_STATE.my_pe)
KISHMEM_D_FN(int, n_pes, (void), (), return KISHMEM_D_STATE.n_pes)
KISHMEM_D_FN(void *, ptr, (const void *d, int pe), (d, pe),
         return (pe >= 0 && pe < KISHMEM_D_STATE.n_pes && pe < KISHMEM_D::kMaxPes && KISHMEM_D_STATE.peer_base[pe])
                    ? static_cast<void *>(KISHMEM_D_STATE.peer_base[pe] + (static_cast<const char *>(d) - KISHMEM_D_STATE.heap_base))
                    : nullptr)

/* Teams in kernels: a handle is the host's shmem_team_t, looked up in the device state's team
 * table (the runtime publishes every team it makes).  SHMEM_TEAM_WORLD / SHARED name the same
 * objects on the host and the device. */
KISHMEM_D_HD shmem_team_t kishmem_predefined_team(int slot) {
#if defined(__CUDA_ARCH__)
    return (shmem_team_t)KISHMEM_D_STATE.teams[slot].key;
#else
    return slot == 0 ? &kishmem_team_world_obj : &kishmem_team_shared_obj;
#endif
}
KISHMEM_D_HD shmem_ctx_t kishmem_predefined_ctx(void) {
#if defined(__CUDA_ARCH__)
    return (shmem_ctx_t)KISHMEM_D_STATE.ctx_default;
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

KISHMEM_D_FN(int, team_my_pe, (shmem_team_t t), (t),
         const int slot = KISHMEM_D::team_slot(KISHMEM_D_STATE, t); return slot < 0 ? -1 : KISHMEM_D_STATE.teams[slot].my_index)
KISHMEM_D_FN(int, team_n_pes, (shmem_team_t t), (t),
         const int slot = KISHMEM_D::team_slot(KISHMEM_D_STATE, t); return slot < 0 ? -1 : KISHMEM_D_STATE.teams[slot].size)
KISHMEM_D_FN(int, team_sync, (shmem_team_t t), (t), const int slot = KISHMEM_D::team_slot(KISHMEM_D_STATE, t);
         if (slot < 0) KISHMEM_D::trap_bad(KISHMEM_D_STATE, "shmem_team_sync", -1, t); KISHMEM_D::sync_team<KISHMEM_D::Thread>(KISHMEM_D_STATE, slot, "shmem_team_sync");
         return 0)

/* Team collectives (device/include/kishmem/device/coll.h): alltoall(s), broadcast, fcollect,
 * reductions and sum scans for the device types; collect (sizes differ per PE) is host-only. */
#define KISHMEM_D_COLL(T, N)                                                                      \
    KISHMEM_D_FN(int, N##_broadcast, (shmem_team_t t, T * d, const T *s, size_t n, int root), (t, d, s, n, root), \
             return KISHMEM_D::broadcast<KISHMEM_D::Thread>(KISHMEM_D_STATE, t, d, s, n * sizeof(T), root, "shmem_" #N "_broadcast")) \
    KISHMEM_D_FN(int, N##_fcollect, (shmem_team_t t, T * d, const T *s, size_t n), (t, d, s, n),  \
             return KISHMEM_D::fcollect<KISHMEM_D::Thread>(KISHMEM_D_STATE, t, d, s, n * sizeof(T), "shmem_" #N "_fcollect")) \
    KISHMEM_D_FN(int, N##_alltoall, (shmem_team_t t, T * d, const T *s, size_t n), (t, d, s, n),  \
             return KISHMEM_D::alltoall<KISHMEM_D::Thread>(KISHMEM_D_STATE, t, d, s, n * sizeof(T), "shmem_" #N "_alltoall")) \
    KISHMEM_D_FN(int, N##_alltoalls, (shmem_team_t t, T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n), \
             (t, d, s, dst, sst, n),                                                              \
             return KISHMEM_D::alltoalls<KISHMEM_D::Thread, T>(KISHMEM_D_STATE, t, d, s, dst, sst, n, "shmem_" #N "_alltoalls"))
KISHMEM_RMA_TYPES_DEV(KISHMEM_D_COLL)
KISHMEM_D_FN(int, broadcastmem, (shmem_team_t t, void *d, const void *s, size_t n, int root), (t, d, s, n, root),
         return KISHMEM_D::broadcast<KISHMEM_D::Thread>(KISHMEM_D_STATE, t, d, s, n, root, "shmem_broadcastmem"))
KISHMEM_D_FN(int, fcollectmem, (shmem_team_t t, void *d, const void *s, size_t n), (t, d, s, n),
         return KISHMEM_D::fcollect<KISHMEM_D::Thread>(KISHMEM_D_STATE, t, d, s, n, "shmem_fcollectmem"))
KISHMEM_D_FN(int, alltoallmem, (shmem_team_t t, void *d, const void *s, size_t n), (t, d, s, n),
         return KISHMEM_D::alltoall<KISHMEM_D::Thread>(KISHMEM_D_STATE, t, d, s, n, "shmem_alltoallmem"))
KISHMEM_D_FN(int, alltoallsmem, (shmem_team_t t, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n),
         (t, d, s, dst, sst, n),
         return KISHMEM_D::alltoalls<KISHMEM_D::Thread, unsigned char>(KISHMEM_D_STATE, t, static_cast<unsigned char *>(d),
                                                         static_cast<const unsigned char *>(s), dst, sst, n,
                                                         "shmem_alltoallsmem"))

/* Reductions (device): dest is complete on return and source may be reused; one of at most 512
   bytes in a team of at most 16 does not synchronize the team (kishmem/device/coll.h,
   reduce_push): before putting into another member's dest or source, pass a barrier. */
#define KISHMEM_D_REDUCE(T, N, OP, OPT)                                                           \
    KISHMEM_D_FN(int, N##_##OP##_reduce, (shmem_team_t t, T * d, const T *s, size_t n), (t, d, s, n), \
             return KISHMEM_D::reduce<KISHMEM_D::Thread, T, KISHMEM_D::OPT>(KISHMEM_D_STATE, t, d, s, n, "shmem_" #N "_" #OP "_reduce"))
#define KISHMEM_D_REDUCE_BIT(T, N) KISHMEM_D_REDUCE(T, N, and, OpAnd) KISHMEM_D_REDUCE(T, N, or, OpOr) KISHMEM_D_REDUCE(T, N, xor, OpXor)
#define KISHMEM_D_REDUCE_ARITH(T, N)                                                              \
    KISHMEM_D_REDUCE(T, N, max, OpMax) KISHMEM_D_REDUCE(T, N, min, OpMin) KISHMEM_D_REDUCE(T, N, sum, OpSum) \
    KISHMEM_D_REDUCE(T, N, prod, OpProd)                                                          \
    KISHMEM_D_FN(int, N##_sum_inscan, (shmem_team_t t, T * d, const T *s, size_t n), (t, d, s, n), \
             return KISHMEM_D::sum_scan<KISHMEM_D::Thread, T>(KISHMEM_D_STATE, t, d, s, n, true, "shmem_" #N "_sum_inscan")) \
    KISHMEM_D_FN(int, N##_sum_exscan, (shmem_team_t t, T * d, const T *s, size_t n), (t, d, s, n), \
             return KISHMEM_D::sum_scan<KISHMEM_D::Thread, T>(KISHMEM_D_STATE, t, d, s, n, false, "shmem_" #N "_sum_exscan"))
KISHMEM_REDUCE_BIT_TYPES(KISHMEM_D_REDUCE_BIT)
KISHMEM_REDUCE_MINMAX_TYPES_DEV(KISHMEM_D_REDUCE_ARITH)

/* Warp and block variants (shmemx.h names), device only: the same templates, another scope. */
#define KISHMEM_D_COOP(SUFFIX, COOP)                                                              \
    static __device__ inline void shmemx_putmem_##SUFFIX(void *d, const void *s, size_t n, int pe) { \
        KISHMEM_D::put<COOP>(KISHMEM_D_STATE, d, s, n, pe, "shmemx_putmem_" #SUFFIX);             \
    }                                                                                             \
    static __device__ inline void shmemx_getmem_##SUFFIX(void *d, const void *s, size_t n, int pe) { \
        KISHMEM_D::get<COOP>(KISHMEM_D_STATE, d, s, n, pe, "shmemx_getmem_" #SUFFIX);             \
    }                                                                                             \
    static __device__ inline void shmemx_putmem_nbi_##SUFFIX(void *d, const void *s, size_t n, int pe) { \
        KISHMEM_D::put_nbi<COOP>(KISHMEM_D_STATE, d, s, n, pe, "shmemx_putmem_nbi_" #SUFFIX);         \
    }                                                                                             \
    static __device__ inline void shmemx_putmem_signal_##SUFFIX(void *d, const void *s, size_t n, uint64_t *sig, \
                                                                uint64_t v, int op, int pe) {     \
        KISHMEM_D::put_signal<COOP>(KISHMEM_D_STATE, d, s, n, sig, v, op, pe, "shmemx_putmem_signal_" #SUFFIX); \
    }                                                                                             \
    static __device__ inline int shmemx_alltoallmem_##SUFFIX(shmem_team_t t, void *d, const void *s, size_t n) { \
        return KISHMEM_D::alltoall<COOP>(KISHMEM_D_STATE, t, d, s, n, "shmemx_alltoallmem_" #SUFFIX); \
    }                                                                                             \
    static __device__ inline int shmemx_fcollectmem_##SUFFIX(shmem_team_t t, void *d, const void *s, size_t n) { \
        return KISHMEM_D::fcollect<COOP>(KISHMEM_D_STATE, t, d, s, n, "shmemx_fcollectmem_" #SUFFIX); \
    }                                                                                             \
    static __device__ inline int shmemx_broadcastmem_##SUFFIX(shmem_team_t t, void *d, const void *s, size_t n, \
                                                              int root) {                         \
        return KISHMEM_D::broadcast<COOP>(KISHMEM_D_STATE, t, d, s, n, root, "shmemx_broadcastmem_" #SUFFIX); \
    }                                                                                             \
    static __device__ inline void shmemx_barrier_all_##SUFFIX(void) { KISHMEM_D::sync_all<COOP>(KISHMEM_D_STATE); } \
    static __device__ inline void shmemx_sync_all_##SUFFIX(void) { KISHMEM_D::sync_all<COOP>(KISHMEM_D_STATE); } \
    static __device__ inline int shmemx_team_sync_##SUFFIX(shmem_team_t t) {                     \
        const int slot = KISHMEM_D::team_slot(KISHMEM_D_STATE, t);                                \
        if (slot < 0) KISHMEM_D::trap_bad(KISHMEM_D_STATE, "shmemx_team_sync_" #SUFFIX, -1, t);   \
        KISHMEM_D::sync_team<COOP>(KISHMEM_D_STATE, slot, "shmemx_team_sync_" #SUFFIX);           \
        return 0;                                                                                 \
    }
KISHMEM_D_COOP(warp, KISHMEM_D::Warp)
KISHMEM_D_COOP(block, KISHMEM_D::Block)

/* Reductions by a warp or a block: shmemx_TYPENAME_OP_reduce_warp / _block. */
#define KISHMEM_D_COOP_REDUCE(T, N, OP, OPT, SUFFIX, COOP)                                        \
    static __device__ inline int shmemx_##N##_##OP##_reduce_##SUFFIX(shmem_team_t t, T *d, const T *s, size_t n) { \
        return KISHMEM_D::reduce<COOP, T, KISHMEM_D::OPT>(KISHMEM_D_STATE, t, d, s, n, "shmemx_" #N "_" #OP "_reduce_" #SUFFIX); \
    }
#define KISHMEM_D_COOP_REDUCE_SCOPES(T, N, OP, OPT)                                               \
    KISHMEM_D_COOP_REDUCE(T, N, OP, OPT, warp, KISHMEM_D::Warp) KISHMEM_D_COOP_REDUCE(T, N, OP, OPT, block, KISHMEM_D::Block)
#define KISHMEM_D_COOP_REDUCE_BIT(T, N)                                                           \
    KISHMEM_D_COOP_REDUCE_SCOPES(T, N, and, OpAnd) KISHMEM_D_COOP_REDUCE_SCOPES(T, N, or, OpOr)   \
    KISHMEM_D_COOP_REDUCE_SCOPES(T, N, xor, OpXor)
#define KISHMEM_D_COOP_REDUCE_ARITH(T, N)                                                         \
    KISHMEM_D_COOP_REDUCE_SCOPES(T, N, max, OpMax) KISHMEM_D_COOP_REDUCE_SCOPES(T, N, min, OpMin) \
    KISHMEM_D_COOP_REDUCE_SCOPES(T, N, sum, OpSum) KISHMEM_D_COOP_REDUCE_SCOPES(T, N, prod, OpProd)
KISHMEM_REDUCE_BIT_TYPES(KISHMEM_D_COOP_REDUCE_BIT)
KISHMEM_REDUCE_MINMAX_TYPES_DEV(KISHMEM_D_COOP_REDUCE_ARITH)

/* The helpers above are this file's own. */
#undef KISHMEM_D_HD
#undef KISHMEM_D_FN
#undef KISHMEM_D_CTX_PARAMS
#undef KISHMEM_D_CTX_ARGS
#undef KISHMEM_D_FN2
#undef KISHMEM_D
#undef KISHMEM_D_STATE
#undef KISHMEM_D_RMA
#undef KISHMEM_D_STRIDED
#undef KISHMEM_D_BLOCKED
#undef KISHMEM_D_SIZED
#undef KISHMEM_D_MEM
#undef KISHMEM_D_SIZE
#undef KISHMEM_D_AMO_EXT
#undef KISHMEM_D_AMO_STD
#undef KISHMEM_D_AMO_BIT
#undef KISHMEM_D_AMO_BIT_NBI
#undef KISHMEM_D_SYNC
#undef KISHMEM_D_CONDS
#undef KISHMEM_D_SYNC_ARRAYS
#undef KISHMEM_D_COLL
#undef KISHMEM_D_REDUCE
#undef KISHMEM_D_REDUCE_BIT
#undef KISHMEM_D_REDUCE_ARITH
#undef KISHMEM_D_COOP
#undef KISHMEM_D_COOP_REDUCE
#undef KISHMEM_D_COOP_REDUCE_SCOPES
#undef KISHMEM_D_COOP_REDUCE_BIT
#undef KISHMEM_D_COOP_REDUCE_ARITH

#endif /* __CUDACC__ */
#endif /* KISHMEM_SHMEM_DEVICE_H */
