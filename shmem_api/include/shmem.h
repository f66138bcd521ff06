/* kishmem: the OpenSHMEM API.  C and C++.  Declarations of typed families are generated from
 * the type table in kishmem/shmem_types.h. */
#ifndef KISHMEM_SHMEM_H
#define KISHMEM_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#include "kishmem/shmem_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- constants ------------------------------------------------------------------------- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "kishmem"
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

/* ---- library setup, exit and query ----------------------------------------------------- */
void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
int shmem_query_initialized(int *initialized);
int shmem_query_finalized(int *finalized);
void shmem_finalize(void);
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);

/* ---- memory management ----------------------------------------------------------------- */
void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void shmem_free(void *ptr);

/* ---- RMA --------------------------------------------------------------------------------- */
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);

#define KISHMEM_DECL_RMA(T, N)                                                   \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);       \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);       \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);   \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);   \
    void shmem_##N##_p(T *dest, T value, int pe);                                \
    T shmem_##N##_g(const T *source, int pe);
KISHMEM_RMA_TYPES(KISHMEM_DECL_RMA)

#define KISHMEM_DECL_RMA_SIZE(B)                                                      \
    void shmem_put##B(void *dest, const void *source, size_t nelems, int pe);         \
    void shmem_get##B(void *dest, const void *source, size_t nelems, int pe);         \
    void shmem_put##B##_nbi(void *dest, const void *source, size_t nelems, int pe);   \
    void shmem_get##B##_nbi(void *dest, const void *source, size_t nelems, int pe);
KISHMEM_RMA_SIZES(KISHMEM_DECL_RMA_SIZE)

/* ---- atomic memory operations ----------------------------------------------------------- */
#define KISHMEM_DECL_AMO_EXT(T, N)                                               \
    T shmem_##N##_atomic_fetch(const T *source, int pe);                         \
    void shmem_##N##_atomic_set(T *dest, T value, int pe);                       \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe);
#define KISHMEM_DECL_AMO_STD(T, N)                                               \
    KISHMEM_DECL_AMO_EXT(T, N)                                                   \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);         \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                             \
    void shmem_##N##_atomic_inc(T *dest, int pe);                                \
    T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                    \
    void shmem_##N##_atomic_add(T *dest, T value, int pe);
#define KISHMEM_DECL_AMO_BIT(T, N)                                               \
    T shmem_##N##_atomic_fetch_and(T *dest, T value, int pe);                    \
    void shmem_##N##_atomic_and(T *dest, T value, int pe);                       \
    T shmem_##N##_atomic_fetch_or(T *dest, T value, int pe);                     \
    void shmem_##N##_atomic_or(T *dest, T value, int pe);                        \
    T shmem_##N##_atomic_fetch_xor(T *dest, T value, int pe);                    \
    void shmem_##N##_atomic_xor(T *dest, T value, int pe);
KISHMEM_AMO_STD_TYPES(KISHMEM_DECL_AMO_STD)
KISHMEM_AMO_EXT_ONLY_TYPES(KISHMEM_DECL_AMO_EXT)
KISHMEM_AMO_BIT_TYPES(KISHMEM_DECL_AMO_BIT)

/* ---- memory ordering and collectives ---------------------------------------------------- */
void shmem_fence(void);
void shmem_quiet(void);
void shmem_barrier_all(void);
void shmem_sync_all(void);

/* ---- point-to-point synchronization ----------------------------------------------------- */
#define KISHMEM_DECL_SYNC(T, N)                                                  \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                  \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value);
KISHMEM_SYNC_TYPES(KISHMEM_DECL_SYNC)

#ifdef __cplusplus
}
#endif

#endif /* KISHMEM_SHMEM_H */
