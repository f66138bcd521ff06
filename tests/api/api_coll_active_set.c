/* Active-set collectives conformance (OpenSHMEM 1.5, the deprecated forms that old codes still
 * use): shmem_barrier, shmem_sync, shmem_broadcast32/64, shmem_collect32/64,
 * shmem_fcollect32/64, shmem_alltoall32/64, shmem_alltoalls32/64 and the *_to_all reductions
 * with pWrk / pSync, over active sets (PE_start, logPE_stride, PE_size) that leave PEs out.
 *
 * Rules exercised:
 *  - pSync arrays are initialized to SHMEM_SYNC_VALUE once, sized by the SHMEM_*_SYNC_SIZE
 *    constants, reused after a barrier, and hold SHMEM_SYNC_VALUE again after every call;
 *  - broadcast: dest is updated on every PE of the set except the root (PE_root is an index in
 *    the active set); the root's dest is untouched;
 *  - collect / fcollect: concatenation in active-set order; alltoall(s) as for teams;
 *  - to_all reductions: every PE of the set gets the fold, pWrk of
 *    max(nreduce / 2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements;
 *  - shmem_barrier completes the puts issued before it; shmem_sync after shmem_quiet likewise;
 *  - PEs outside the active set do not call the routine and are left alone. */
#include "api_check.h"

#define SENT 0x5A5A5A5A

static int me, npes;
static long *ps_bcast, *ps_coll, *ps_red, *ps_bar, *ps_a2a, *ps_a2as, *ps_sync;
static void *g_src, *g_dst, *g_wrk;

typedef struct {
    int start, logstride, size;
} aset;

static int member(aset a, int pe) {
    int st = 1 << a.logstride;
    if (pe < a.start || (pe - a.start) % st) return -1;
    int i = (pe - a.start) / st;
    return i < a.size ? i : -1;
}
static int pe_of(aset a, int i) { return a.start + i * (1 << a.logstride); }

static void check_psync(const char *call, const long *ps, int n) {
    for (int i = 0; i < n; ++i)
        CHECK(ps[i] == SHMEM_SYNC_VALUE, "%s left pSync[%d] = %ld, not SHMEM_SYNC_VALUE", call, i, ps[i]);
}

static int f3(int s, int r, int i) { return (s * 11 + r * 5 + i) % 60 + 1; }

static void sized_collectives(aset a) {
    int idx = member(a, me);
    uint32_t *s32 = g_src, *d32 = g_dst;
    uint64_t *s64 = g_src, *d64 = g_dst;
    for (int bits = 32; bits <= 64; bits += 32) {
        const size_t n = 11;
        /* broadcast: the root's dest stays as it was */
        for (int root = 0; root < a.size; root += (a.size > 1 ? a.size - 1 : 1)) {
            for (size_t i = 0; i < n + 2; ++i) {
                if (bits == 32) { s32[i] = (uint32_t)(me * 1000 + i); d32[i] = SENT; }
                else { s64[i] = ((uint64_t)me << 40) + i; d64[i] = SENT; }
            }
            shmem_barrier_all();
            if (idx >= 0) {
                if (bits == 32) shmem_broadcast32(g_dst, g_src, n, root, a.start, a.logstride, a.size, ps_bcast);
                else shmem_broadcast64(g_dst, g_src, n, root, a.start, a.logstride, a.size, ps_bcast);
                int rpe = pe_of(a, root);
                for (size_t i = 0; i < n + 2; ++i) {
                    int want_data = (idx != root && i < n);
                    if (bits == 32) CHECK(d32[i] == (want_data ? (uint32_t)(rpe * 1000 + i) : (uint32_t)SENT), "shmem_broadcast32 root %d element %zu: %u", root, i, d32[i]);
                    else CHECK(d64[i] == (want_data ? ((uint64_t)rpe << 40) + i : (uint64_t)SENT), "shmem_broadcast64 root %d element %zu", root, i);
                }
            }
            shmem_barrier_all();
            check_psync("shmem_broadcast", ps_bcast, SHMEM_BCAST_SYNC_SIZE);
        }
        /* collect: set member k gives k + 1 elements; fcollect: n each */
        for (int fixed = 0; fixed < 2; ++fixed) {
            size_t mine = fixed ? n : (size_t)idx + 1, total = 0;
            for (int k = 0; k < a.size; ++k) total += fixed ? n : (size_t)k + 1;
            for (size_t i = 0; i < total + 2; ++i) {
                if (bits == 32) d32[i] = SENT;
                else d64[i] = SENT;
            }
            for (size_t i = 0; i < n + a.size; ++i) {
                if (bits == 32) s32[i] = (uint32_t)(me * 100 + i);
                else s64[i] = ((uint64_t)me << 33) + i;
            }
            shmem_barrier_all();
            if (idx >= 0) {
                if (fixed && bits == 32) shmem_fcollect32(g_dst, g_src, n, a.start, a.logstride, a.size, ps_coll);
                if (fixed && bits == 64) shmem_fcollect64(g_dst, g_src, n, a.start, a.logstride, a.size, ps_coll);
                if (!fixed && bits == 32) shmem_collect32(g_dst, g_src, mine, a.start, a.logstride, a.size, ps_coll);
                if (!fixed && bits == 64) shmem_collect64(g_dst, g_src, mine, a.start, a.logstride, a.size, ps_coll);
                size_t at = 0;
                for (int k = 0; k < a.size; ++k) {
                    size_t cnt = fixed ? n : (size_t)k + 1;
                    int p = pe_of(a, k);
                    for (size_t i = 0; i < cnt; ++i, ++at) {
                        if (bits == 32) CHECK(d32[at] == (uint32_t)(p * 100 + i), "shmem_%scollect32: element %zu", fixed ? "f" : "", at);
                        else CHECK(d64[at] == ((uint64_t)p << 33) + i, "shmem_%scollect64: element %zu", fixed ? "f" : "", at);
                    }
                }
                if (bits == 32) CHECK(d32[at] == SENT, "shmem_%scollect32 wrote past the end", fixed ? "f" : "");
                else CHECK(d64[at] == SENT, "shmem_%scollect64 wrote past the end", fixed ? "f" : "");
            }
            shmem_barrier_all();
            check_psync("shmem_[f]collect", ps_coll, SHMEM_COLLECT_SYNC_SIZE);
        }
        /* alltoall: 3 elements per pair; alltoalls: dst 2, sst 3, 2 elements */
        for (int strided = 0; strided < 2; ++strided) {
            size_t m = strided ? 2 : 3, ds = strided ? 2 : 1, ss = strided ? 3 : 1;
            for (size_t i = 0; i < ds * m * a.size + 2; ++i) {
                if (bits == 32) d32[i] = SENT;
                else d64[i] = SENT;
            }
            for (size_t i = 0; i < ss * m * a.size; ++i) {
                if (bits == 32) s32[i] = SENT;
                else s64[i] = SENT;
            }
            for (int j = 0; j < a.size; ++j)
                for (size_t e = 0; e < m; ++e) {
                    if (bits == 32) s32[(j * m + e) * ss] = (uint32_t)f3(me, pe_of(a, j), (int)e);
                    else s64[(j * m + e) * ss] = (uint64_t)f3(me, pe_of(a, j), (int)e) << 32;
                }
            shmem_barrier_all();
            if (idx >= 0) {
                if (!strided && bits == 32) shmem_alltoall32(g_dst, g_src, m, a.start, a.logstride, a.size, ps_a2a);
                if (!strided && bits == 64) shmem_alltoall64(g_dst, g_src, m, a.start, a.logstride, a.size, ps_a2a);
                if (strided && bits == 32) shmem_alltoalls32(g_dst, g_src, 2, 3, m, a.start, a.logstride, a.size, ps_a2as);
                if (strided && bits == 64) shmem_alltoalls64(g_dst, g_src, 2, 3, m, a.start, a.logstride, a.size, ps_a2as);
                for (size_t i = 0; i < ds * m * a.size + 2; ++i) {
                    uint64_t want = SENT;
                    if (i % ds == 0 && i / ds < m * a.size) {
                        size_t blk = i / ds / m, e = i / ds % m;
                        want = (uint64_t)f3(pe_of(a, (int)blk), me, (int)e);
                        if (bits == 64) want <<= 32;
                    }
                    uint64_t got = bits == 32 ? d32[i] : d64[i];
                    CHECK(got == want, "shmem_alltoall%s%d: element %zu = %llx, want %llx", strided ? "s" : "", bits, i,
                          (unsigned long long)got, (unsigned long long)want);
                }
            }
            shmem_barrier_all();
            check_psync("shmem_alltoall[s]", strided ? ps_a2as : ps_a2a, strided ? SHMEM_ALLTOALLS_SYNC_SIZE : SHMEM_ALLTOALL_SYNC_SIZE);
        }
        /* zero elements: nothing changes */
        for (size_t i = 0; i < 4; ++i) {
            if (bits == 32) d32[i] = SENT;
            else d64[i] = SENT;
        }
        shmem_barrier_all();
        if (idx >= 0) {
            if (bits == 32) {
                shmem_broadcast32(g_dst, g_src, 0, 0, a.start, a.logstride, a.size, ps_bcast);
                shmem_barrier(a.start, a.logstride, a.size, ps_bar);
                shmem_fcollect32(g_dst, g_src, 0, a.start, a.logstride, a.size, ps_coll);
                shmem_barrier(a.start, a.logstride, a.size, ps_bar);
                shmem_alltoall32(g_dst, g_src, 0, a.start, a.logstride, a.size, ps_a2a);
                for (int i = 0; i < 4; ++i) CHECK(d32[i] == SENT, "zero-element active-set collective wrote element %d", i);
            } else {
                shmem_collect64(g_dst, g_src, 0, a.start, a.logstride, a.size, ps_coll);
                shmem_barrier(a.start, a.logstride, a.size, ps_bar);
                shmem_alltoalls64(g_dst, g_src, 1, 1, 0, a.start, a.logstride, a.size, ps_a2as);
                for (int i = 0; i < 4; ++i) CHECK(d64[i] == SENT, "zero-element active-set collective wrote element %d", i);
            }
        }
        shmem_barrier_all();
    }
}

#define RV_min(pe, i) (((pe) * 13 + (i) * 7) % 97 - 40)

#define NRED 23
#define TOALL_DEF(T, NAME, OP)                                                                     \
    static void toall_##OP##_##NAME(aset a) {                                                      \
        int idx = member(a, me);                                                                   \
        T *src = (T *)g_src, *dst = (T *)g_dst, *wrk = (T *)g_wrk;                                 \
        for (int i = 0; i < NRED + 1; ++i) {                                                       \
            src[i] = (T)RV_##OP(me, i);                                                            \
            dst[i] = (T)77;                                                                        \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        if (idx >= 0) {                                                                            \
            shmem_##NAME##_##OP##_to_all(dst, src, NRED, a.start, a.logstride, a.size, wrk, ps_red); \
            for (int i = 0; i <= NRED; ++i) {                                                      \
                T want = (T)77;                                                                    \
                if (i < NRED) {                                                                    \
                    want = (T)RV_##OP(pe_of(a, 0), i);                                             \
                    for (int k = 1; k < a.size; ++k) want = (T)FOLD_##OP(want, (T)RV_##OP(pe_of(a, k), i)); \
                }                                                                                  \
                CHECK(dst[i] == want, "shmem_" #NAME "_" #OP "_to_all over (%d, %d, %d): element %d", a.start, \
                      a.logstride, a.size, i);                                                     \
            }                                                                                      \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        check_psync("shmem_" #NAME "_" #OP "_to_all", ps_red, SHMEM_REDUCE_SYNC_SIZE);             \
    }
#define TOALL_AND(T, NAME) TOALL_DEF(T, NAME, and)
#define TOALL_OR(T, NAME) TOALL_DEF(T, NAME, or)
#define TOALL_XOR(T, NAME) TOALL_DEF(T, NAME, xor)
#define TOALL_MAX(T, NAME) TOALL_DEF(T, NAME, max)
#define TOALL_MIN(T, NAME) TOALL_DEF(T, NAME, min)
#define TOALL_SUM(T, NAME) TOALL_DEF(T, NAME, sum)
#define TOALL_PROD(T, NAME) TOALL_DEF(T, NAME, prod)
API_TOALL_BITWISE_TYPES(TOALL_AND)
API_TOALL_BITWISE_TYPES(TOALL_OR)
API_TOALL_BITWISE_TYPES(TOALL_XOR)
API_TOALL_MINMAX_TYPES(TOALL_MAX)
API_TOALL_MINMAX_TYPES(TOALL_MIN)
API_TOALL_MINMAX_TYPES(TOALL_SUM)
API_TOALL_MINMAX_TYPES(TOALL_PROD)

#if API_HAVE_COMPLEX
#include <complex.h>
#define TOALL_CPLX(T, NAME)                                                                        \
    static void toall_cplx_##NAME(aset a) {                                                        \
        int idx = member(a, me);                                                                   \
        T *src = (T *)g_src, *dst = (T *)g_dst, *wrk = (T *)g_wrk;                                 \
        for (int op = 0; op < 2; ++op) {                                                           \
            for (int i = 0; i < NRED; ++i) src[i] = op ? (((me + i) % 2) ? (T)I : (T)1) : (T)(me + i * I); \
            shmem_barrier_all();                                                                   \
            if (idx >= 0) {                                                                        \
                if (op) shmem_##NAME##_prod_to_all(dst, src, NRED, a.start, a.logstride, a.size, wrk, ps_red); \
                else shmem_##NAME##_sum_to_all(dst, src, NRED, a.start, a.logstride, a.size, wrk, ps_red); \
                for (int i = 0; i < NRED; ++i) {                                                   \
                    T want = op ? (T)1 : (T)0;                                                     \
                    for (int k = 0; k < a.size; ++k) {                                             \
                        int p = pe_of(a, k);                                                       \
                        T v = op ? (((p + i) % 2) ? (T)I : (T)1) : (T)(p + i * I);                 \
                        want = op ? want * v : want + v;                                           \
                    }                                                                              \
                    CHECK(dst[i] == want, "shmem_" #NAME "_%s_to_all: element %d", op ? "prod" : "sum", i); \
                }                                                                                  \
            }                                                                                      \
            shmem_barrier_all();                                                                   \
            check_psync("complex _to_all", ps_red, SHMEM_REDUCE_SYNC_SIZE);                        \
        }                                                                                          \
    }
API_REDUCE_COMPLEX_TYPES(TOALL_CPLX)
#endif

/* shmem_barrier: completes prior puts; nobody leaves before the late PE arrived.  shmem_sync:
 * synchronizes only, so the puts are quieted first. */
static void barrier_and_sync(aset a) {
    int idx = member(a, me);
    long *count = (long *)g_dst;
    for (int round = 0; round < 4; ++round) {
        *count = 0;
        shmem_barrier_all();
        if (idx >= 0) {
            if (idx == round % a.size) api_sleep_us(10000);
            for (int k = 0; k < a.size; ++k) shmem_long_p(&count[1 + idx], round + 1, pe_of(a, k));
            shmem_long_atomic_inc(count, pe_of(a, (idx + 1) % a.size));
            if (round % 2 == 0) shmem_barrier(a.start, a.logstride, a.size, ps_bar);
            else {
                shmem_quiet();
                shmem_sync(a.start, a.logstride, a.size, ps_sync);
            }
            for (int k = 0; k < a.size; ++k)
                CHECK(count[1 + k] == round + 1, "round %d: member %d's put not complete after shmem_%s", round, k,
                      round % 2 ? "sync" : "barrier");
            CHECK(*count == 1, "round %d: the increment from the left member is missing", round);
        }
        shmem_barrier_all();
        check_psync("shmem_barrier / shmem_sync", round % 2 ? ps_sync : ps_bar, round % 2 ? SHMEM_SYNC_SIZE : SHMEM_BARRIER_SYNC_SIZE);
    }
    /* consecutive barriers on one pSync need no other synchronization */
    if (idx >= 0)
        for (int i = 0; i < 20; ++i) shmem_barrier(a.start, a.logstride, a.size, ps_bar);
    shmem_barrier_all();
}

static long *psync_array(int n) {
    long *p = shmem_malloc(sizeof(long) * (size_t)n);
    for (int i = 0; i < n; ++i) p[i] = SHMEM_SYNC_VALUE;
    return p;
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= 16, "the values of this test stay in range for at most 16 PEs");

    /* the constants: SHMEM_SYNC_SIZE fits any collective */
    CHECK(SHMEM_SYNC_SIZE >= SHMEM_BCAST_SYNC_SIZE && SHMEM_SYNC_SIZE >= SHMEM_REDUCE_SYNC_SIZE &&
              SHMEM_SYNC_SIZE >= SHMEM_BARRIER_SYNC_SIZE && SHMEM_SYNC_SIZE >= SHMEM_COLLECT_SYNC_SIZE &&
              SHMEM_SYNC_SIZE >= SHMEM_ALLTOALL_SYNC_SIZE && SHMEM_SYNC_SIZE >= SHMEM_ALLTOALLS_SYNC_SIZE,
          "SHMEM_SYNC_SIZE %d is smaller than a specific pSync size", (int)SHMEM_SYNC_SIZE);
    CHECK(SHMEM_REDUCE_MIN_WRKDATA_SIZE >= 1, "SHMEM_REDUCE_MIN_WRKDATA_SIZE");
    CHECK(_SHMEM_SYNC_VALUE == SHMEM_SYNC_VALUE && _SHMEM_BCAST_SYNC_SIZE == SHMEM_BCAST_SYNC_SIZE &&
              _SHMEM_REDUCE_SYNC_SIZE == SHMEM_REDUCE_SYNC_SIZE && _SHMEM_BARRIER_SYNC_SIZE == SHMEM_BARRIER_SYNC_SIZE &&
              _SHMEM_COLLECT_SYNC_SIZE == SHMEM_COLLECT_SYNC_SIZE &&
              _SHMEM_REDUCE_MIN_WRKDATA_SIZE == SHMEM_REDUCE_MIN_WRKDATA_SIZE,
          "a deprecated _SHMEM_* constant differs from its SHMEM_* replacement");

    ps_bcast = psync_array(SHMEM_BCAST_SYNC_SIZE);
    ps_coll = psync_array(SHMEM_COLLECT_SYNC_SIZE);
    ps_red = psync_array(SHMEM_REDUCE_SYNC_SIZE);
    ps_bar = psync_array(SHMEM_BARRIER_SYNC_SIZE);
    ps_a2a = psync_array(SHMEM_ALLTOALL_SYNC_SIZE);
    ps_a2as = psync_array(SHMEM_ALLTOALLS_SYNC_SIZE);
    ps_sync = psync_array(SHMEM_SYNC_SIZE);
    g_src = shmem_malloc(1 << 16);
    g_dst = shmem_malloc(1 << 16);
    size_t wrk_elems = NRED / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? NRED / 2 + 1 : SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    g_wrk = shmem_malloc(wrk_elems * 16);
    shmem_barrier_all(); /* every pSync is initialized before anyone uses one */

    aset sets[8];
    int ns = 0;
    sets[ns++] = (aset){0, 0, npes};
    sets[ns++] = (aset){0, 1, (npes + 1) / 2};
    if (npes >= 2) sets[ns++] = (aset){1, 1, npes / 2};
    if (npes >= 2) sets[ns++] = (aset){1, 0, npes - 1};
    if (npes >= 4) sets[ns++] = (aset){0, 2, (npes + 3) / 4};
    sets[ns++] = (aset){npes - 1, 0, 1};

    for (int s = 0; s < ns; ++s) {
        aset a = sets[s];
        barrier_and_sync(a);
        sized_collectives(a);
#define CALL_AND(T, NAME) toall_and_##NAME(a);
#define CALL_OR(T, NAME) toall_or_##NAME(a);
#define CALL_XOR(T, NAME) toall_xor_##NAME(a);
#define CALL_MAX(T, NAME) toall_max_##NAME(a);
#define CALL_MIN(T, NAME) toall_min_##NAME(a);
#define CALL_SUM(T, NAME) toall_sum_##NAME(a);
#define CALL_PROD(T, NAME) toall_prod_##NAME(a);
        API_TOALL_BITWISE_TYPES(CALL_AND)
        API_TOALL_BITWISE_TYPES(CALL_OR)
        API_TOALL_BITWISE_TYPES(CALL_XOR)
        API_TOALL_MINMAX_TYPES(CALL_MAX)
        API_TOALL_MINMAX_TYPES(CALL_MIN)
        API_TOALL_MINMAX_TYPES(CALL_SUM)
        API_TOALL_MINMAX_TYPES(CALL_PROD)
#if API_HAVE_COMPLEX
#define CALL_CPLX(T, NAME) toall_cplx_##NAME(a);
        API_REDUCE_COMPLEX_TYPES(CALL_CPLX)
#endif
    }

    mp_pass("api_coll_active_set");
    shmem_finalize();
    return 0;
}
