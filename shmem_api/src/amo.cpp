// Atomic memory operations: values travel to the runtime as their bit patterns.
#include <cstring>

#include "check.h"
#include "shmem.h"

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
inline T amo(const char* call, AmoOp op, const T* target, T value, T cond, int pe) {
    check_pe_sym(call, pe, "dest", target, sizeof(T));
    return from_bits<T>(rt::amo(op, const_cast<T*>(target), sizeof(T), bits(value), bits(cond), pe));
}

}  // namespace kishmem::api

using namespace kishmem::api;

extern "C" {

#define DEFINE_AMO_EXT(T, N)                                                                                   \
    T shmem_##N##_atomic_fetch(const T* s, int pe) { return amo<T>("shmem_" #N "_atomic_fetch", AmoOp::fetch, s, static_cast<T>(0), static_cast<T>(0), pe); } \
    void shmem_##N##_atomic_set(T* d, T v, int pe) { amo<T>("shmem_" #N "_atomic_set", AmoOp::set, d, v, static_cast<T>(0), pe); } \
    T shmem_##N##_atomic_swap(T* d, T v, int pe) { return amo<T>("shmem_" #N "_atomic_swap", AmoOp::swap, d, v, static_cast<T>(0), pe); }

#define DEFINE_AMO_STD(T, N)                                                                                   \
    DEFINE_AMO_EXT(T, N)                                                                                       \
    T shmem_##N##_atomic_compare_swap(T* d, T c, T v, int pe) { return amo<T>("shmem_" #N "_atomic_compare_swap", AmoOp::cswap, d, v, c, pe); } \
    T shmem_##N##_atomic_fetch_inc(T* d, int pe) { return amo<T>("shmem_" #N "_atomic_fetch_inc", AmoOp::fetch_add, d, static_cast<T>(1), static_cast<T>(0), pe); } \
    void shmem_##N##_atomic_inc(T* d, int pe) { amo<T>("shmem_" #N "_atomic_inc", AmoOp::add, d, static_cast<T>(1), static_cast<T>(0), pe); } \
    T shmem_##N##_atomic_fetch_add(T* d, T v, int pe) { return amo<T>("shmem_" #N "_atomic_fetch_add", AmoOp::fetch_add, d, v, static_cast<T>(0), pe); } \
    void shmem_##N##_atomic_add(T* d, T v, int pe) { amo<T>("shmem_" #N "_atomic_add", AmoOp::add, d, v, static_cast<T>(0), pe); }

#define DEFINE_AMO_BIT(T, N)                                                                                   \
    T shmem_##N##_atomic_fetch_and(T* d, T v, int pe) { return amo<T>("shmem_" #N "_atomic_fetch_and", AmoOp::fetch_and, d, v, static_cast<T>(0), pe); } \
    void shmem_##N##_atomic_and(T* d, T v, int pe) { amo<T>("shmem_" #N "_atomic_and", AmoOp::and_, d, v, static_cast<T>(0), pe); } \
    T shmem_##N##_atomic_fetch_or(T* d, T v, int pe) { return amo<T>("shmem_" #N "_atomic_fetch_or", AmoOp::fetch_or, d, v, static_cast<T>(0), pe); } \
    void shmem_##N##_atomic_or(T* d, T v, int pe) { amo<T>("shmem_" #N "_atomic_or", AmoOp::or_, d, v, static_cast<T>(0), pe); } \
    T shmem_##N##_atomic_fetch_xor(T* d, T v, int pe) { return amo<T>("shmem_" #N "_atomic_fetch_xor", AmoOp::fetch_xor, d, v, static_cast<T>(0), pe); } \
    void shmem_##N##_atomic_xor(T* d, T v, int pe) { amo<T>("shmem_" #N "_atomic_xor", AmoOp::xor_, d, v, static_cast<T>(0), pe); }

KISHMEM_AMO_STD_TYPES(DEFINE_AMO_STD)
KISHMEM_AMO_EXT_ONLY_TYPES(DEFINE_AMO_EXT)
KISHMEM_AMO_BIT_TYPES(DEFINE_AMO_BIT)

}  // extern "C"
