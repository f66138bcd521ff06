// RMA routines: every typed and sized form is one line over these templates.
#include "check.h"
#include "shmem.h"

namespace kishmem::api {

inline void put_bytes(const char* call, void* dest, const void* src, std::size_t bytes, int pe, bool nbi) {
    check_pe_sym(call, pe, "dest", dest, bytes);
    rt::put(dest, src, bytes, pe, nbi);
}

inline void get_bytes(const char* call, void* dest, const void* src, std::size_t bytes, int pe, bool nbi) {
    check_pe_sym(call, pe, "source", src, bytes);
    rt::get(dest, src, bytes, pe, nbi);
}

template <class T>
inline void p(const char* call, T* dest, T value, int pe) {
    put_bytes(call, dest, &value, sizeof(T), pe, false);
}

template <class T>
inline T g(const char* call, const T* src, int pe) {
    T v;
    get_bytes(call, &v, src, sizeof(T), pe, false);
    return v;
}

}  // namespace kishmem::api

using namespace kishmem::api;

extern "C" {

void shmem_putmem(void* d, const void* s, size_t n, int pe) { put_bytes("shmem_putmem", d, s, n, pe, false); }
void shmem_getmem(void* d, const void* s, size_t n, int pe) { get_bytes("shmem_getmem", d, s, n, pe, false); }
void shmem_putmem_nbi(void* d, const void* s, size_t n, int pe) { put_bytes("shmem_putmem_nbi", d, s, n, pe, true); }
void shmem_getmem_nbi(void* d, const void* s, size_t n, int pe) { get_bytes("shmem_getmem_nbi", d, s, n, pe, true); }

#define DEFINE_RMA(T, N)                                                                                          \
    void shmem_##N##_put(T* d, const T* s, size_t n, int pe) { put_bytes("shmem_" #N "_put", d, s, n * sizeof(T), pe, false); } \
    void shmem_##N##_get(T* d, const T* s, size_t n, int pe) { get_bytes("shmem_" #N "_get", d, s, n * sizeof(T), pe, false); } \
    void shmem_##N##_put_nbi(T* d, const T* s, size_t n, int pe) { put_bytes("shmem_" #N "_put_nbi", d, s, n * sizeof(T), pe, true); } \
    void shmem_##N##_get_nbi(T* d, const T* s, size_t n, int pe) { get_bytes("shmem_" #N "_get_nbi", d, s, n * sizeof(T), pe, true); } \
    void shmem_##N##_p(T* d, T v, int pe) { p<T>("shmem_" #N "_p", d, v, pe); }                                 \
    T shmem_##N##_g(const T* s, int pe) { return g<T>("shmem_" #N "_g", s, pe); }
KISHMEM_RMA_TYPES(DEFINE_RMA)

#define DEFINE_RMA_SIZE(B)                                                                                        \
    void shmem_put##B(void* d, const void* s, size_t n, int pe) { put_bytes("shmem_put" #B, d, s, n * (B / 8), pe, false); } \
    void shmem_get##B(void* d, const void* s, size_t n, int pe) { get_bytes("shmem_get" #B, d, s, n * (B / 8), pe, false); } \
    void shmem_put##B##_nbi(void* d, const void* s, size_t n, int pe) { put_bytes("shmem_put" #B "_nbi", d, s, n * (B / 8), pe, true); } \
    void shmem_get##B##_nbi(void* d, const void* s, size_t n, int pe) { get_bytes("shmem_get" #B "_nbi", d, s, n * (B / 8), pe, true); }
KISHMEM_RMA_SIZES(DEFINE_RMA_SIZE)

}  // extern "C"
