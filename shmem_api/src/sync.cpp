// Ordering, barriers and point-to-point synchronization.
#include "check.h"
#include "kishmem/log.h"
#include "shmem.h"

namespace kishmem::api {

template <class T>
inline bool compare(T v, int cmp, T ref) {
    switch (cmp) {
        case SHMEM_CMP_EQ: return v == ref;
        case SHMEM_CMP_NE: return v != ref;
        case SHMEM_CMP_GT: return v > ref;
        case SHMEM_CMP_GE: return v >= ref;
        case SHMEM_CMP_LT: return v < ref;
        case SHMEM_CMP_LE: return v <= ref;
    }
    return false;
}

[[noreturn]] void fail_cmp(const char* call, int cmp) {
    kishmem::fatal(call, "comparison operator %d is not one of SHMEM_CMP_EQ/NE/GT/GE/LT/LE", cmp);
}

inline void check_cmp(const char* call, int cmp) {
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE) fail_cmp(call, cmp);
}

template <class T>
inline void wait_until(const char* call, T* ivar, int cmp, T ref) {
    check_sym(call, "ivar", ivar, sizeof(T));
    check_cmp(call, cmp);
    if (compare(__atomic_load_n(ivar, __ATOMIC_ACQUIRE), cmp, ref)) return;
    rt::Waiter w(call, "the value at %#llx to satisfy comparison %lld against %lld",
                 static_cast<long long>(reinterpret_cast<uintptr_t>(ivar)), cmp, static_cast<long long>(ref));
    do w.spin();
    while (!compare(__atomic_load_n(ivar, __ATOMIC_ACQUIRE), cmp, ref));
}

template <class T>
inline int test(const char* call, T* ivar, int cmp, T ref) {
    check_sym(call, "ivar", ivar, sizeof(T));
    check_cmp(call, cmp);
    rt::progress();
    return compare(__atomic_load_n(ivar, __ATOMIC_ACQUIRE), cmp, ref) ? 1 : 0;
}

}  // namespace kishmem::api

using namespace kishmem;
using namespace kishmem::api;

extern "C" {

void shmem_fence(void) {
    check_init("shmem_fence");
    rt::fence();
}

void shmem_quiet(void) {
    check_init("shmem_quiet");
    rt::quiet();
}

void shmem_barrier_all(void) {
    check_init("shmem_barrier_all");
    rt::barrier_all();
}

void shmem_sync_all(void) {
    check_init("shmem_sync_all");
    rt::sync_all();
}

#define DEFINE_SYNC(T, N)                                                                                      \
    void shmem_##N##_wait_until(T* ivar, int cmp, T v) { wait_until<T>("shmem_" #N "_wait_until", ivar, cmp, v); } \
    int shmem_##N##_test(T* ivar, int cmp, T v) { return test<T>("shmem_" #N "_test", ivar, cmp, v); }
KISHMEM_SYNC_TYPES(DEFINE_SYNC)

}  // extern "C"
