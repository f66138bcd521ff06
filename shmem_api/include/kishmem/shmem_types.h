/* The one type table of the OpenSHMEM API.  Every typed family (put/get/p/g, AMOs, wait/test,
 * and later reductions and the C11 / C++ generic forms) is generated from these lists, in the
 * declarations (shmem.h) and in the definitions (shmem_api/src) alike.
 * Each entry is X(TYPE, TYPENAME) with TYPENAME as in the OpenSHMEM 1.5 tables. */
#ifndef KISHMEM_SHMEM_TYPES_H
#define KISHMEM_SHMEM_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Standard RMA types (OpenSHMEM 1.5, Table 5).  long double has no device form (device code
 * computes it as double), hence the two parts. */
#define KISHMEM_RMA_TYPES_DEV(X)                                                                  \
    X(float, float) X(double, double) X(char, char)                                               \
    X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)        \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)          \
    X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) \
    X(size_t, size) X(ptrdiff_t, ptrdiff)
#define KISHMEM_RMA_TYPES_HOST_ONLY(X) X(long double, longdouble)
#define KISHMEM_RMA_TYPES(X) KISHMEM_RMA_TYPES_DEV(X) KISHMEM_RMA_TYPES_HOST_ONLY(X)

/* Sized RMA: X(BITS) for shmem_putBITS / shmem_getBITS / ... (bytes = BITS / 8). */
#define KISHMEM_RMA_SIZES(X) X(8) X(16) X(32) X(64) X(128)

/* Standard AMO types (Table 6): every AMO. */
#define KISHMEM_AMO_STD_TYPES(X)                                                                  \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong) \
    X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32)      \
    X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Extended AMO types beyond the standard ones (fetch, set, swap only). */
#define KISHMEM_AMO_EXT_ONLY_TYPES(X) X(float, float) X(double, double)

/* Bitwise AMO types (Table 7): and, or, xor and their fetching forms. */
#define KISHMEM_AMO_BIT_TYPES(X)                                                                  \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) \
    X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

/* Point-to-point synchronization types (Table 11). */
#define KISHMEM_SYNC_TYPES(X)                                                                     \
    X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort)    \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) \
    X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)


/* Signatures shared by the shmem_ names (kishmem/shmem_decl.h) and the shmemx_ names of Sandia
 * OpenSHMEM (kishmem/shmemx_sos.h): D(RET, NAME, PARAMS...) for each routine of a family. */
#define KISHMEM_SIG_AMO_EXT_NBI(D, T, N)                                                          \
    D(void, N##_atomic_fetch_nbi, T *fetch, const T *source, int pe)                              \
    D(void, N##_atomic_swap_nbi, T *fetch, T *dest, T value, int pe)
#define KISHMEM_SIG_AMO_STD_NBI(D, T, N)                                                          \
    D(void, N##_atomic_compare_swap_nbi, T *fetch, T *dest, T cond, T value, int pe)              \
    D(void, N##_atomic_fetch_inc_nbi, T *fetch, T *dest, int pe)                                  \
    D(void, N##_atomic_fetch_add_nbi, T *fetch, T *dest, T value, int pe)
#define KISHMEM_SIG_AMO_BIT_NBI(D, T, N)                                                          \
    D(void, N##_atomic_fetch_and_nbi, T *fetch, T *dest, T value, int pe)                         \
    D(void, N##_atomic_fetch_or_nbi, T *fetch, T *dest, T value, int pe)                          \
    D(void, N##_atomic_fetch_xor_nbi, T *fetch, T *dest, T value, int pe)
/* Blocked-strided put and get of elements of type P under the names PUT and GET. */
#define KISHMEM_SIG_IB(D, P, PUT, GET)                                                            \
    D(void, PUT, P *dest, const P *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) \
    D(void, GET, P *dest, const P *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe)

/* Complex types for sum/prod reductions: C's _Complex; in C++ the GNU __complex__, declared
 * under __extension__ so that -pedantic builds (g++, clang++) stay quiet. */
#ifdef __cplusplus
__extension__ typedef __complex__ float kishmem_complexf_t;
__extension__ typedef __complex__ double kishmem_complexd_t;
#define KISHMEM_COMPLEXF kishmem_complexf_t
#define KISHMEM_COMPLEXD kishmem_complexd_t
#else
#define KISHMEM_COMPLEXF float _Complex
#define KISHMEM_COMPLEXD double _Complex
#endif

/* Team-based reduction types (Table 10).  and/or/xor: */
#define KISHMEM_REDUCE_BIT_TYPES(X)                                                               \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)          \
    X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) \
    X(size_t, size)

/* max/min (and, with the complex types below, sum/prod); long double has no device form: */
#define KISHMEM_REDUCE_MINMAX_TYPES_DEV(X)                                                        \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)                 \
    X(long long, longlong) X(ptrdiff_t, ptrdiff) X(unsigned char, uchar) X(unsigned short, ushort) \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8) \
    X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16)  \
    X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(float, float) X(double, double)
#define KISHMEM_REDUCE_MINMAX_TYPES_HOST_ONLY(X) X(long double, longdouble)
#define KISHMEM_REDUCE_MINMAX_TYPES(X) KISHMEM_REDUCE_MINMAX_TYPES_DEV(X) KISHMEM_REDUCE_MINMAX_TYPES_HOST_ONLY(X)

#define KISHMEM_REDUCE_COMPLEX_TYPES(X) X(KISHMEM_COMPLEXD, complexd) X(KISHMEM_COMPLEXF, complexf)

/* Deprecated active-set reductions (shmem_TYPENAME_OP_to_all). */
#define KISHMEM_TOALL_BIT_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define KISHMEM_TOALL_MINMAX_TYPES(X) \
    KISHMEM_TOALL_BIT_TYPES(X) X(float, float) X(double, double) X(long double, longdouble)

/* Deprecated AMO names (shmem_TYPENAME_fadd, ...): X(TYPE, TYPENAME). */
#define KISHMEM_DEPR_AMO_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define KISHMEM_DEPR_AMO_EXT_TYPES(X) X(float, float) X(double, double)

/* Deprecated shmem_TYPENAME_wait types. */
#define KISHMEM_DEPR_WAIT_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)

/* Distinct C base types for the C11 generic selections and C++ overloads (the fixed-width
 * typedefs above are aliases of these, and _Generic rejects duplicate associations).  Entries are
 * X(TYPE, TYPENAME, F): F is passed through, naming the family being generated. */
#define KISHMEM_GENERIC_RMA_TYPES(X, F)                                                              \
    X(float, float, F) X(double, double, F) X(long double, longdouble, F) X(char, char, F)                    \
    X(signed char, schar, F) X(short, short, F) X(int, int, F) X(long, long, F) X(long long, longlong, F)        \
    X(unsigned char, uchar, F) X(unsigned short, ushort, F) X(unsigned int, uint, F) X(unsigned long, ulong, F) \
    X(unsigned long long, ulonglong, F)
#define KISHMEM_GENERIC_AMO_STD_TYPES(X, F)                                                          \
    X(int, int, F) X(long, long, F) X(long long, longlong, F) X(unsigned int, uint, F) X(unsigned long, ulong, F) \
    X(unsigned long long, ulonglong, F)
#define KISHMEM_GENERIC_AMO_EXT_TYPES(X, F) KISHMEM_GENERIC_AMO_STD_TYPES(X, F) X(float, float, F) X(double, double, F)
#define KISHMEM_GENERIC_AMO_BIT_TYPES(X, F)                                                          \
    X(unsigned int, uint, F) X(unsigned long, ulong, F) X(unsigned long long, ulonglong, F) X(int, int32, F)  \
    X(long, int64, F)
#define KISHMEM_GENERIC_SYNC_TYPES(X, F)                                                             \
    X(short, short, F) X(int, int, F) X(long, long, F) X(long long, longlong, F) X(unsigned short, ushort, F)    \
    X(unsigned int, uint, F) X(unsigned long, ulong, F) X(unsigned long long, ulonglong, F)
#define KISHMEM_GENERIC_REDUCE_BIT_TYPES(X, F)                                                       \
    X(unsigned char, uchar, F) X(unsigned short, ushort, F) X(unsigned int, uint, F) X(unsigned long, ulong, F) \
    X(unsigned long long, ulonglong, F) X(signed char, int8, F) X(short, int16, F) X(int, int32, F) X(long, int64, F)
#define KISHMEM_GENERIC_REDUCE_MINMAX_TYPES(X, F)                                                    \
    X(char, char, F) X(signed char, schar, F) X(short, short, F) X(int, int, F) X(long, long, F)                 \
    X(long long, longlong, F) X(unsigned char, uchar, F) X(unsigned short, ushort, F) X(unsigned int, uint, F) \
    X(unsigned long, ulong, F) X(unsigned long long, ulonglong, F) X(float, float, F) X(double, double, F)    \
    X(long double, longdouble, F)
#define KISHMEM_GENERIC_DEPR_AMO_TYPES(X, F) X(int, int, F) X(long, long, F) X(long long, longlong, F)
#define KISHMEM_GENERIC_DEPR_AMO_EXT_TYPES(X, F) KISHMEM_GENERIC_DEPR_AMO_TYPES(X, F) X(float, float, F) X(double, double, F)
#define KISHMEM_GENERIC_DEPR_WAIT_TYPES(X, F) X(short, short, F) KISHMEM_GENERIC_DEPR_AMO_TYPES(X, F)
#define KISHMEM_GENERIC_REDUCE_ARITH_TYPES(X, F) KISHMEM_GENERIC_REDUCE_MINMAX_TYPES(X, F) X(KISHMEM_COMPLEXD, complexd, F) X(KISHMEM_COMPLEXF, complexf, F)

#endif
