/* Helpers shared by the API conformance tests (tests/api).  CHECK and mp_pass come from the
 * multi-process tests; this adds the type lists of the spec tables that shmem_types.h does not
 * carry yet, and small utilities every family uses. */
#ifndef API_CHECK_H
#define API_CHECK_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* nanosleep under -std=c11 */
#endif
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <time.h>

#include "../mp/mp_check.h"

/* Sleep for us microseconds (to make a PE arrive late). */
static inline void api_sleep_us(long us) {
    struct timespec ts;
    ts.tv_sec = us / 1000000;
    ts.tv_nsec = (us % 1000000) * 1000;
    nanosleep(&ts, NULL);
}

/* Team-based reduction types, OpenSHMEM 1.5 Table "Reduction Types, Names and Supporting
 * Operations for Team-Based Reductions".  Written from the spec table, not from
 * kishmem/shmem_types.h, so the tests do not depend on how the library names its lists. */
#define API_REDUCE_BITWISE_TYPES(X)                                                               \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)          \
    X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) \
    X(size_t, size)

/* MAX, MIN (and, with the complex types below, SUM, PROD). */
#define API_REDUCE_MINMAX_TYPES(X)                                                                \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)                 \
    X(long long, longlong) X(ptrdiff_t, ptrdiff) API_REDUCE_BITWISE_TYPES(X) X(float, float)      \
    X(double, double) X(long double, longdouble)

#define API_REDUCE_ARITH_TYPES(X) API_REDUCE_MINMAX_TYPES(X)

/* SUM and PROD only (optional where the C translation environment has no complex types). */
#if !defined(__cplusplus) && !defined(__STDC_NO_COMPLEX__)
#define API_HAVE_COMPLEX 1
#define API_REDUCE_COMPLEX_TYPES(X) X(double _Complex, complexd) X(float _Complex, complexf)
#else
#define API_HAVE_COMPLEX 0
#define API_REDUCE_COMPLEX_TYPES(X)
#endif

/* Active-set reductions (deprecated *_to_all), Table "... for Active-Set-Based Reductions". */
#define API_TOALL_BITWISE_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define API_TOALL_MINMAX_TYPES(X)                                                                 \
    API_TOALL_BITWISE_TYPES(X) X(float, float) X(double, double) X(long double, longdouble)

/* Deterministic test values: small, positive, exactly representable in every type. */
static inline int api_val(int pe, int i) { return (pe * 7 + i * 3) % 50 + 1; }

/* Teams used by several tests: the (start, stride, size) triplets of SHMEM_TEAM_WORLD that are
 * valid for npes PEs, including strides that leave PEs out.  Returns how many were written. */
typedef struct {
    int start, stride, size;
} api_triplet;

static inline api_triplet api_trip(int start, int stride, int size) {
    api_triplet t;
    t.start = start;
    t.stride = stride;
    t.size = size;
    return t;
}

static inline int api_triplets(int npes, api_triplet *t) {
    int n = 0;
    t[n++] = api_trip(0, 1, npes);                        /* everyone */
    t[n++] = api_trip(0, 2, (npes + 1) / 2);              /* even PEs */
    if (npes >= 2) t[n++] = api_trip(1, 2, npes / 2);     /* odd PEs */
    if (npes >= 2) t[n++] = api_trip(1, 1, npes - 1);     /* all but PE 0 */
    if (npes >= 3) t[n++] = api_trip(0, npes - 1, 2);     /* first and last */
    if (npes >= 4) t[n++] = api_trip(1, 2, 2);            /* PEs 1 and 3 */
    t[n++] = api_trip(npes - 1, 0, 1);                    /* stride 0: one PE, the last */
    return n;
}

/* World PE number of member i of the team of triplet t. */
static inline int api_triplet_pe(api_triplet t, int i) { return t.start + i * t.stride; }

/* The index of world PE `pe` in the team of triplet t, or -1. */
static inline int api_triplet_index(api_triplet t, int pe) {
    if (t.stride == 0) return pe == t.start ? 0 : -1;
    if (pe < t.start || (pe - t.start) % t.stride) return -1;
    int i = (pe - t.start) / t.stride;
    return i < t.size ? i : -1;
}

/* Reference values and folds for the reduction tests (RV_min differs per test: each file
 * defines its own). */
#define RV_and(pe, i) (0x7F ^ (1 << (((pe) + (i)) % 7)))
#define RV_or(pe, i) (1 << (((pe) + (i)) % 7))
#define RV_xor(pe, i) (((pe) * 5 + (i) * 3 + 1) & 0x7F)
#define RV_max(pe, i) (((pe) * 13 + (i) * 7) % 97)
#define RV_sum(pe, i) (((pe) + (i)) % 5 + 1)
#define RV_prod(pe, i) ((((pe) + (i)) % 4 == 0) ? 2 : 1)
#define FOLD_and(a, b) ((a) & (b))
#define FOLD_or(a, b) ((a) | (b))
#define FOLD_xor(a, b) ((a) ^ (b))
#define FOLD_max(a, b) ((a) > (b) ? (a) : (b))
#define FOLD_min(a, b) ((a) < (b) ? (a) : (b))
#define FOLD_sum(a, b) ((a) + (b))
#define FOLD_prod(a, b) ((a) * (b))

#endif
