/* The one type table of the OpenSHMEM API.  Every typed family (put/get/p/g, AMOs, wait/test,
 * and later reductions and the C11 / C++ generic forms) is generated from these lists, in the
 * declarations (shmem.h) and in the definitions (shmem_api/src) alike.
 * Each entry is X(TYPE, TYPENAME) with TYPENAME as in the OpenSHMEM 1.5 tables. */
#ifndef KISHMEM_SHMEM_TYPES_H
#define KISHMEM_SHMEM_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Standard RMA types (OpenSHMEM 1.5, Table 5). */
#define KISHMEM_RMA_TYPES(X)                                                                      \
    X(float, float) X(double, double) X(long double, longdouble) X(char, char)                    \
    X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)        \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)          \
    X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) \
    X(size_t, size) X(ptrdiff_t, ptrdiff)

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

#endif
