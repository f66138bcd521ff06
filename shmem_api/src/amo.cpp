// Atomic memory operations, with and without a context, blocking and _nbi (the _nbi forms
// complete before they return, which the spec allows), and the deprecated 1.3 names.  Values
// travel to the runtime as their bit patterns.
#include <cstring>

#include "check.h"

namespace kishmem::api {

using rt::AmoOp;

template <class T>
inline uint64_t bits(T v) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "AMO types are 4 or 8 bytes");
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}

template <class T>
inline T from_bits(uint64_t b) {
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
}

template <class T>
inline T amo(const char* call, shmem_ctx_t ctx, AmoOp op, const T* target, T value, T cond, int pe) {
    Target t = target_amo(call, ctx, pe, "dest", target, sizeof(T));
    ApiCallScope scope(call, ApiArgs::amo, target, sizeof(T), pe, bits(value));
    const T v = from_bits<T>(rt::amo(t.chan, op, const_cast<T*>(target), sizeof(T), bits(value), bits(cond), t.pe));
    // A fetching atomic is a read complete on return; the others are writes.
    const bool fetches = op != AmoOp::set && op != AmoOp::add && op != AmoOp::and_ && op != AmoOp::or_ && op != AmoOp::xor_;
    t.count(fetches ? rt::OpKind::read_now : rt::OpKind::write);
    return v;
}

template <class T>
inline void amo_nbi(const char* call, shmem_ctx_t ctx, AmoOp op, T* fetch, const T* target, T value, T cond, int pe) {
    check_local(call, "fetch", fetch, sizeof(T));
    *fetch = amo<T>(call, ctx, op, target, value, cond, pe);
}

}  // namespace kishmem::api

using namespace kishmem::api;


extern "C" {

// The non-blocking fetching atomics (K: K_BOTH for the spec's names, K_X for the shmemx_ names
// Sandia OpenSHMEM gave them before OpenSHMEM 1.5, the same routines).
#define DEFINE_AMO_EXT_NBI(K, T, N)                                                                               \
    K(void, N##_atomic_fetch_nbi, (amo_nbi<T>(call_, ctx_, AmoOp::fetch, f, s, static_cast<T>(0), static_cast<T>(0), pe)), T* f, \
      const T* s, int pe)                                                                                         \
    K(void, N##_atomic_swap_nbi, (amo_nbi<T>(call_, ctx_, AmoOp::swap, f, d, v, static_cast<T>(0), pe)), T* f, T* d, T v, int pe)
#define DEFINE_AMO_STD_NBI(K, T, N)                                                                               \
    K(void, N##_atomic_compare_swap_nbi, (amo_nbi<T>(call_, ctx_, AmoOp::cswap, f, d, v, c, pe)), T* f, T* d, T c, T v, int pe) \
    K(void, N##_atomic_fetch_inc_nbi, (amo_nbi<T>(call_, ctx_, AmoOp::fetch_add, f, d, static_cast<T>(1), static_cast<T>(0), pe)), \
      T* f, T* d, int pe)                                                                                         \
    K(void, N##_atomic_fetch_add_nbi, (amo_nbi<T>(call_, ctx_, AmoOp::fetch_add, f, d, v, static_cast<T>(0), pe)), T* f, T* d, \
      T v, int pe)
#define DEFINE_AMO_BIT_NBI(K, T, N)                                                                               \
    K(void, N##_atomic_fetch_and_nbi, (amo_nbi<T>(call_, ctx_, AmoOp::fetch_and, f, d, v, static_cast<T>(0), pe)), T* f, T* d, \
      T v, int pe)                                                                                                \
    K(void, N##_atomic_fetch_or_nbi, (amo_nbi<T>(call_, ctx_, AmoOp::fetch_or, f, d, v, static_cast<T>(0), pe)), T* f, T* d, \
      T v, int pe)                                                                                                \
    K(void, N##_atomic_fetch_xor_nbi, (amo_nbi<T>(call_, ctx_, AmoOp::fetch_xor, f, d, v, static_cast<T>(0), pe)), T* f, T* d, \
      T v, int pe)

#define DEFINE_AMO_EXT(T, N)                                                                                      \
    K_BOTH(T, N##_atomic_fetch, (return amo<T>(call_, ctx_, AmoOp::fetch, s, static_cast<T>(0), static_cast<T>(0), pe)), const T* s, int pe)      \
    K_BOTH(void, N##_atomic_set, (amo<T>(call_, ctx_, AmoOp::set, d, v, static_cast<T>(0), pe)), T* d, T v, int pe)              \
    K_BOTH(T, N##_atomic_swap, (return amo<T>(call_, ctx_, AmoOp::swap, d, v, static_cast<T>(0), pe)), T* d, T v, int pe)        \
    DEFINE_AMO_EXT_NBI(K_BOTH, T, N)

#define DEFINE_AMO_STD(T, N)                                                                                      \
    DEFINE_AMO_EXT(T, N)                                                                                          \
    K_BOTH(T, N##_atomic_compare_swap, (return amo<T>(call_, ctx_, AmoOp::cswap, d, v, c, pe)), T* d, T c, T v, int pe) \
    K_BOTH(T, N##_atomic_fetch_inc, (return amo<T>(call_, ctx_, AmoOp::fetch_add, d, static_cast<T>(1), static_cast<T>(0), pe)), T* d, int pe) \
    K_BOTH(void, N##_atomic_inc, (amo<T>(call_, ctx_, AmoOp::add, d, static_cast<T>(1), static_cast<T>(0), pe)), T* d, int pe)   \
    K_BOTH(T, N##_atomic_fetch_add, (return amo<T>(call_, ctx_, AmoOp::fetch_add, d, v, static_cast<T>(0), pe)), T* d, T v, int pe) \
    K_BOTH(void, N##_atomic_add, (amo<T>(call_, ctx_, AmoOp::add, d, v, static_cast<T>(0), pe)), T* d, T v, int pe)              \
    DEFINE_AMO_STD_NBI(K_BOTH, T, N)

#define DEFINE_AMO_BIT(T, N)                                                                                      \
    K_BOTH(T, N##_atomic_fetch_and, (return amo<T>(call_, ctx_, AmoOp::fetch_and, d, v, static_cast<T>(0), pe)), T* d, T v, int pe) \
    K_BOTH(void, N##_atomic_and, (amo<T>(call_, ctx_, AmoOp::and_, d, v, static_cast<T>(0), pe)), T* d, T v, int pe)             \
    K_BOTH(T, N##_atomic_fetch_or, (return amo<T>(call_, ctx_, AmoOp::fetch_or, d, v, static_cast<T>(0), pe)), T* d, T v, int pe) \
    K_BOTH(void, N##_atomic_or, (amo<T>(call_, ctx_, AmoOp::or_, d, v, static_cast<T>(0), pe)), T* d, T v, int pe)               \
    K_BOTH(T, N##_atomic_fetch_xor, (return amo<T>(call_, ctx_, AmoOp::fetch_xor, d, v, static_cast<T>(0), pe)), T* d, T v, int pe) \
    K_BOTH(void, N##_atomic_xor, (amo<T>(call_, ctx_, AmoOp::xor_, d, v, static_cast<T>(0), pe)), T* d, T v, int pe)             \
    DEFINE_AMO_BIT_NBI(K_BOTH, T, N)

KISHMEM_AMO_STD_TYPES(DEFINE_AMO_STD)
KISHMEM_AMO_EXT_ONLY_TYPES(DEFINE_AMO_EXT)
KISHMEM_AMO_BIT_TYPES(DEFINE_AMO_BIT)

#define DEFINE_X_AMO_EXT(T, N) DEFINE_AMO_EXT_NBI(K_X, T, N)
#define DEFINE_X_AMO_STD(T, N) DEFINE_AMO_EXT_NBI(K_X, T, N) DEFINE_AMO_STD_NBI(K_X, T, N)
#define DEFINE_X_AMO_BIT(T, N) DEFINE_AMO_BIT_NBI(K_X, T, N)
KISHMEM_AMO_STD_TYPES(DEFINE_X_AMO_STD)
KISHMEM_AMO_EXT_ONLY_TYPES(DEFINE_X_AMO_EXT)
KISHMEM_AMO_BIT_TYPES(DEFINE_X_AMO_BIT)

// Deprecated names: the same operations on the default context.
#define D SHMEM_CTX_DEFAULT
#define DEFINE_DEPR_AMO(T, N)                                                                                     \
    T shmem_##N##_fadd(T* d, T v, int pe) { return amo<T>("shmem_" #N "_fadd", D, AmoOp::fetch_add, d, v, static_cast<T>(0), pe); } \
    T shmem_##N##_finc(T* d, int pe) { return amo<T>("shmem_" #N "_finc", D, AmoOp::fetch_add, d, static_cast<T>(1), static_cast<T>(0), pe); } \
    void shmem_##N##_add(T* d, T v, int pe) { amo<T>("shmem_" #N "_add", D, AmoOp::add, d, v, static_cast<T>(0), pe); }           \
    void shmem_##N##_inc(T* d, int pe) { amo<T>("shmem_" #N "_inc", D, AmoOp::add, d, static_cast<T>(1), static_cast<T>(0), pe); } \
    T shmem_##N##_cswap(T* d, T c, T v, int pe) { return amo<T>("shmem_" #N "_cswap", D, AmoOp::cswap, d, v, c, pe); }
#define DEFINE_DEPR_AMO_EXT(T, N)                                                                                 \
    T shmem_##N##_fetch(const T* s, int pe) { return amo<T>("shmem_" #N "_fetch", D, AmoOp::fetch, s, static_cast<T>(0), static_cast<T>(0), pe); } \
    void shmem_##N##_set(T* d, T v, int pe) { amo<T>("shmem_" #N "_set", D, AmoOp::set, d, v, static_cast<T>(0), pe); }           \
    T shmem_##N##_swap(T* d, T v, int pe) { return amo<T>("shmem_" #N "_swap", D, AmoOp::swap, d, v, static_cast<T>(0), pe); }
KISHMEM_DEPR_AMO_TYPES(DEFINE_DEPR_AMO)
KISHMEM_DEPR_AMO_TYPES(DEFINE_DEPR_AMO_EXT)
KISHMEM_DEPR_AMO_EXT_TYPES(DEFINE_DEPR_AMO_EXT)

}  // extern "C"
