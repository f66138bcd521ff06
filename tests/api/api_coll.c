/* Team-based collectives conformance (OpenSHMEM 1.5 "Collective Routines"): broadcast, collect,
 * fcollect, alltoall, alltoalls (typed and mem) for every standard RMA type, and the and / or /
 * xor / max / min / sum / prod reductions for every type of the team reduction table, over the
 * world team and over teams whose members are not consecutive world PEs.
 *
 * What lands where is computed here from the team's membership (world PE numbers known to the
 * test), never from the library's answers:
 *  - broadcast: dest on every member, the root included, gets the root's source;
 *  - collect / fcollect: dest is the concatenation in team order; collect allows a different
 *    nelems on every PE (here team PE k gives k % 3 elements, so PE 0 gives none);
 *  - alltoall: block j of PE i's source lands in block i of PE j's dest;
 *  - alltoalls: element e of the block for PE j sits at source[(j * nelems + e) * sst] and lands at
 *    dest[(i * nelems + e) * dst] on PE j; the elements in between are not written;
 *  - reductions: element-wise fold over the members, against a serial fold done here; in place
 *    (dest == source) too and nreduce == 0 writes nothing (both on the world team);
 *  - every routine returns 0; nothing past the end of a result is written. */
#include "api_check.h"

#define SENT 99
#define BN 37  /* broadcast elements */
#define RN 13  /* reduced elements */
#define CAP 4096

static int me, npes;
static void *g_src, *g_dst; /* symmetric, CAP * 16 bytes each */

static int f3(int s, int r, int i) { return (s * 11 + r * 5 + i) % 60 + 1; }

/* Values per reduction: results stay within every type's range for up to 16 PEs. */
#define RV_min(pe, i) (((pe) * 13 + (i) * 7) % 97)

#define RED_DEF(T, NAME, OP)                                                                       \
    static void red_##OP##_##NAME(shmem_team_t team, const int *wpe, int tn, int tme) {           \
        T *src = (T *)g_src, *dst = (T *)g_dst;                                                    \
        static const size_t ns[2] = {0, RN};                                                       \
        /* nreduce 0 and in place on the world team only: every case once, and a quick suite */    \
        int all_cases = (team == SHMEM_TEAM_WORLD);                                                \
        for (int k = all_cases ? 0 : 1; k < (all_cases ? 3 : 2); ++k) {                           \
            size_t n = k < 2 ? ns[k] : RN;                                                         \
            int inplace = (k == 2);                                                                \
            T *d = inplace ? src : dst;                                                            \
            for (int i = 0; i < RN + 2; ++i) {                                                     \
                src[i] = (T)RV_##OP(wpe[tme], i);                                                  \
                dst[i] = (T)SENT;                                                                  \
            }                                                                                      \
            shmem_team_sync(team);                                                                 \
            int rc = shmem_##NAME##_##OP##_reduce(team, d, src, n);                                \
            CHECK(rc == 0, "shmem_" #NAME "_" #OP "_reduce returned %d", rc);                      \
            for (size_t i = 0; i < RN + 2; ++i) {                                                  \
                T want;                                                                            \
                if (i < n) {                                                                       \
                    want = (T)RV_##OP(wpe[0], (int)i);                                             \
                    for (int m = 1; m < tn; ++m) want = (T)FOLD_##OP(want, (T)RV_##OP(wpe[m], (int)i)); \
                } else                                                                             \
                    want = inplace ? (T)RV_##OP(wpe[tme], (int)i) : (T)SENT;                       \
                CHECK(d[i] == want, "shmem_" #NAME "_" #OP "_reduce(nreduce %zu%s) over %d PEs: element %zu wrong", \
                      n, inplace ? ", in place" : "", tn, i);                                      \
            }                                                                                      \
        }                                                                                          \
    }
#define RED_AND(T, NAME) RED_DEF(T, NAME, and)
#define RED_OR(T, NAME) RED_DEF(T, NAME, or)
#define RED_XOR(T, NAME) RED_DEF(T, NAME, xor)
#define RED_MAX(T, NAME) RED_DEF(T, NAME, max)
#define RED_MIN(T, NAME) RED_DEF(T, NAME, min)
#define RED_SUM(T, NAME) RED_DEF(T, NAME, sum)
#define RED_PROD(T, NAME) RED_DEF(T, NAME, prod)
API_REDUCE_BITWISE_TYPES(RED_AND)
API_REDUCE_BITWISE_TYPES(RED_OR)
API_REDUCE_BITWISE_TYPES(RED_XOR)
API_REDUCE_MINMAX_TYPES(RED_MAX)
API_REDUCE_MINMAX_TYPES(RED_MIN)
API_REDUCE_ARITH_TYPES(RED_SUM)
API_REDUCE_ARITH_TYPES(RED_PROD)

#if API_HAVE_COMPLEX
#include <complex.h>
/* complex sum and prod: Gaussian integers, exact in float */
#define CPLX_RED(T, NAME)                                                                          \
    static void red_cplx_##NAME(shmem_team_t team, const int *wpe, int tn, int tme) {             \
        T *src = (T *)g_src, *dst = (T *)g_dst;                                                    \
        for (int op = 0; op < 2; ++op) {                                                           \
            for (int i = 0; i < RN + 1; ++i) {                                                     \
                int pe = wpe[tme];                                                                 \
                src[i] = op == 0 ? (T)((pe + i) % 3 + ((pe * 2 + i) % 2) * I) : (((pe + i) % 2) ? (T)I : (T)1); \
                dst[i] = (T)SENT;                                                                  \
            }                                                                                      \
            shmem_team_sync(team);                                                                 \
            int rc = op == 0 ? shmem_##NAME##_sum_reduce(team, dst, src, RN)                       \
                             : shmem_##NAME##_prod_reduce(team, dst, src, RN);                     \
            CHECK(rc == 0, "shmem_" #NAME " %s reduction returned %d", op ? "prod" : "sum", rc);  \
            for (int i = 0; i < RN; ++i) {                                                         \
                T want = op == 0 ? (T)0 : (T)1;                                                    \
                for (int m = 0; m < tn; ++m) {                                                     \
                    int pe = wpe[m];                                                               \
                    T v = op == 0 ? (T)((pe + i) % 3 + ((pe * 2 + i) % 2) * I) : (((pe + i) % 2) ? (T)I : (T)1); \
                    want = op == 0 ? want + v : want * v;                                          \
                }                                                                                  \
                CHECK(dst[i] == want, "shmem_" #NAME "_%s_reduce: element %d", op ? "prod" : "sum", i); \
            }                                                                                      \
            CHECK(dst[RN] == (T)SENT, "shmem_" #NAME " reduction wrote past nreduce");             \
        }                                                                                          \
    }
API_REDUCE_COMPLEX_TYPES(CPLX_RED)
#endif

/* broadcast, collect, fcollect, alltoall, alltoalls for one type */
#define COLL_TYPED(T, NAME)                                                                        \
    static void coll_##NAME(shmem_team_t team, const int *wpe, int tn, int tme) {                 \
        T *src = (T *)g_src, *dst = (T *)g_dst;                                                    \
        int mype = wpe[tme];                                                                       \
        /* broadcast from the first and from the last member; 0, 1 and BN elements */             \
        static const int cases[3][2] = {{0, BN}, {0, 0}, {1, 1}};                                  \
        for (int c = 0; c < 3; ++c) {                                                              \
            int root = cases[c][0] ? tn - 1 : 0;                                                   \
            size_t n = (size_t)cases[c][1];                                                        \
            for (int i = 0; i < BN + 3; ++i) {                                                     \
                src[i] = (T)api_val(mype, i + c);                                                  \
                dst[i] = (T)SENT;                                                                  \
            }                                                                                      \
            shmem_team_sync(team);                                                                 \
            int rc = shmem_##NAME##_broadcast(team, dst, src, n, root);                            \
            CHECK(rc == 0, "shmem_" #NAME "_broadcast returned %d", rc);                           \
            for (size_t i = 0; i < BN + 3; ++i) {                                                  \
                T want = i < n ? (T)api_val(wpe[root], (int)i + c) : (T)SENT;                      \
                CHECK(dst[i] == want, "shmem_" #NAME "_broadcast(%zu elements, root %d = world PE %d) element %zu", \
                      n, root, wpe[root], i);                                                      \
            }                                                                                      \
        }                                                                                          \
        /* collect: team PE k contributes k % 3 elements */                                        \
        {                                                                                          \
            size_t mine = (size_t)(tme % 3), total = 0;                                            \
            for (int k = 0; k < tn; ++k) total += (size_t)(k % 3);                                 \
            for (size_t i = 0; i < total + 4; ++i) dst[i] = (T)SENT;                               \
            for (size_t i = 0; i < 3; ++i) src[i] = (T)api_val(mype, (int)i + 20);                 \
            shmem_team_sync(team);                                                                 \
            int rc = shmem_##NAME##_collect(team, dst, src, mine);                                 \
            CHECK(rc == 0, "shmem_" #NAME "_collect returned %d", rc);                             \
            size_t at = 0;                                                                         \
            for (int k = 0; k < tn; ++k)                                                           \
                for (int i = 0; i < k % 3; ++i, ++at)                                              \
                    CHECK(dst[at] == (T)api_val(wpe[k], i + 20), "shmem_" #NAME "_collect: element %zu (team PE %d's %d)", at, k, i); \
            for (size_t i = total; i < total + 4; ++i) CHECK(dst[i] == (T)SENT, "shmem_" #NAME "_collect wrote past the end"); \
        }                                                                                          \
        /* fcollect: 0 and 5 elements each */                                                      \
        for (size_t n = 0; n <= 5; n += 5) {                                                       \
            for (size_t i = 0; i < n * (size_t)tn + 4; ++i) dst[i] = (T)SENT;                      \
            for (size_t i = 0; i < n; ++i) src[i] = (T)api_val(mype, (int)i + 30);                 \
            shmem_team_sync(team);                                                                 \
            int rc = shmem_##NAME##_fcollect(team, dst, src, n);                                   \
            CHECK(rc == 0, "shmem_" #NAME "_fcollect returned %d", rc);                            \
            for (int k = 0; k < tn; ++k)                                                           \
                for (size_t i = 0; i < n; ++i)                                                     \
                    CHECK(dst[k * n + i] == (T)api_val(wpe[k], (int)i + 30), "shmem_" #NAME "_fcollect: team PE %d element %zu", k, i); \
            for (size_t i = n * tn; i < n * tn + 4; ++i) CHECK(dst[i] == (T)SENT, "shmem_" #NAME "_fcollect wrote past the end"); \
        }                                                                                          \
        /* alltoall: 0 and 3 elements per pair */                                                  \
        for (size_t n = 0; n <= 3; n += 3) {                                                       \
            for (size_t i = 0; i < n * (size_t)tn + 4; ++i) dst[i] = (T)SENT;                      \
            for (int j = 0; j < tn; ++j)                                                           \
                for (size_t i = 0; i < n; ++i) src[j * n + i] = (T)f3(mype, wpe[j], (int)i);       \
            shmem_team_sync(team);                                                                 \
            int rc = shmem_##NAME##_alltoall(team, dst, src, n);                                   \
            CHECK(rc == 0, "shmem_" #NAME "_alltoall returned %d", rc);                            \
            for (int k = 0; k < tn; ++k)                                                           \
                for (size_t i = 0; i < n; ++i)                                                     \
                    CHECK(dst[k * n + i] == (T)f3(wpe[k], mype, (int)i), "shmem_" #NAME "_alltoall: block %d element %zu", k, i); \
            for (size_t i = n * tn; i < n * tn + 4; ++i) CHECK(dst[i] == (T)SENT, "shmem_" #NAME "_alltoall wrote past the end"); \
        }                                                                                          \
        /* alltoalls: dst stride 2, sst 3 */                                                       \
        for (size_t n = 0; n <= 2; n += 2) {                                                       \
            const ptrdiff_t ds = 2, ss = 3;                                                        \
            for (size_t i = 0; i < (size_t)ds * n * tn + 4; ++i) dst[i] = (T)SENT;                 \
            for (size_t i = 0; i < (size_t)ss * n * tn; ++i) src[i] = (T)SENT;                     \
            for (int j = 0; j < tn; ++j)                                                           \
                for (size_t e = 0; e < n; ++e) src[(j * n + e) * ss] = (T)f3(mype, wpe[j], (int)e + 7); \
            shmem_team_sync(team);                                                                 \
            int rc = shmem_##NAME##_alltoalls(team, dst, src, ds, ss, n);                          \
            CHECK(rc == 0, "shmem_" #NAME "_alltoalls returned %d", rc);                           \
            for (size_t i = 0; i < (size_t)ds * n * tn + 4; ++i) {                                 \
                T want = (T)SENT;                                                                  \
                if (i % ds == 0 && i / ds < n * tn) {                                              \
                    size_t blk = i / ds / n, e = i / ds % n;                                       \
                    want = (T)f3(wpe[blk], mype, (int)e + 7);                                      \
                }                                                                                  \
                CHECK(dst[i] == want, "shmem_" #NAME "_alltoalls(dst 2, sst 3, %zu): dest element %zu", n, i); \
            }                                                                                      \
        }                                                                                          \
    }
KISHMEM_RMA_TYPES(COLL_TYPED)

/* The mem forms: bytes. */
static void coll_mem(shmem_team_t team, const int *wpe, int tn, int tme) {
    unsigned char *src = g_src, *dst = g_dst;
    int mype = wpe[tme];
    const size_t n = 45;
    int rc;
    memset(dst, SENT, n * tn * 3 + 8);
    for (size_t i = 0; i < n * tn * 3; ++i) src[i] = (unsigned char)(mype * 17 + i);
    shmem_team_sync(team);
    rc = shmem_broadcastmem(team, dst, src, n, tn / 2);
    CHECK(rc == 0, "shmem_broadcastmem returned %d", rc);
    for (size_t i = 0; i < n; ++i) CHECK(dst[i] == (unsigned char)(wpe[tn / 2] * 17 + i), "shmem_broadcastmem byte %zu", i);
    CHECK(dst[n] == SENT, "shmem_broadcastmem wrote past the end");

    memset(dst, SENT, n * tn * 3 + 8);
    shmem_team_sync(team);
    rc = shmem_collectmem(team, dst, src, (size_t)tme + 1);
    CHECK(rc == 0, "shmem_collectmem returned %d", rc);
    size_t at = 0;
    for (int k = 0; k < tn; ++k)
        for (int i = 0; i <= k; ++i, ++at) CHECK(dst[at] == (unsigned char)(wpe[k] * 17 + i), "shmem_collectmem byte %zu", at);
    CHECK(dst[at] == SENT, "shmem_collectmem wrote past the end");

    memset(dst, SENT, n * tn * 3 + 8);
    shmem_team_sync(team);
    rc = shmem_fcollectmem(team, dst, src, n);
    CHECK(rc == 0, "shmem_fcollectmem returned %d", rc);
    for (int k = 0; k < tn; ++k)
        for (size_t i = 0; i < n; ++i) CHECK(dst[k * n + i] == (unsigned char)(wpe[k] * 17 + i), "shmem_fcollectmem: PE %d byte %zu", k, i);
    CHECK(dst[n * tn] == SENT, "shmem_fcollectmem wrote past the end");

    memset(dst, SENT, n * tn * 3 + 8);
    for (int j = 0; j < tn; ++j)
        for (size_t i = 0; i < n; ++i) src[j * n + i] = (unsigned char)f3(mype, wpe[j], (int)i);
    shmem_team_sync(team);
    rc = shmem_alltoallmem(team, dst, src, n);
    CHECK(rc == 0, "shmem_alltoallmem returned %d", rc);
    for (int k = 0; k < tn; ++k)
        for (size_t i = 0; i < n; ++i) CHECK(dst[k * n + i] == (unsigned char)f3(wpe[k], mype, (int)i), "shmem_alltoallmem: block %d byte %zu", k, i);
    CHECK(dst[n * tn] == SENT, "shmem_alltoallmem wrote past the end");

    /* alltoallsmem: elements are bytes, strides in bytes */
    const size_t m = 4;
    memset(dst, SENT, n * tn * 3 + 8);
    memset(src, SENT, n * tn * 3);
    for (int j = 0; j < tn; ++j)
        for (size_t e = 0; e < m; ++e) src[(j * m + e) * 2] = (unsigned char)f3(mype, wpe[j], (int)e);
    shmem_team_sync(team);
    rc = shmem_alltoallsmem(team, dst, src, 3, 2, m);
    CHECK(rc == 0, "shmem_alltoallsmem returned %d", rc);
    for (size_t i = 0; i < 3 * m * tn + 4; ++i) {
        unsigned char want = SENT;
        if (i % 3 == 0 && i / 3 < m * tn) want = (unsigned char)f3(wpe[i / 3 / m], mype, (int)(i / 3 % m));
        CHECK(dst[i] == want, "shmem_alltoallsmem(dst 3, sst 2): byte %zu", i);
    }
    shmem_team_sync(team);
}

static void run_team(const char *name, shmem_team_t team, const int *wpe, int tn, int full) {
    if (team == SHMEM_TEAM_INVALID) return;
    int tme = shmem_team_my_pe(team);
    CHECK(tme >= 0 && tme < tn && wpe[tme] == me, "%s: team PE %d is not this PE", name, tme);
    if (full) {
#define CALL_COLL(T, NAME) coll_##NAME(team, wpe, tn, tme);
        KISHMEM_RMA_TYPES(CALL_COLL)
#define CALL_AND(T, NAME) red_and_##NAME(team, wpe, tn, tme);
#define CALL_OR(T, NAME) red_or_##NAME(team, wpe, tn, tme);
#define CALL_XOR(T, NAME) red_xor_##NAME(team, wpe, tn, tme);
#define CALL_MAX(T, NAME) red_max_##NAME(team, wpe, tn, tme);
#define CALL_MIN(T, NAME) red_min_##NAME(team, wpe, tn, tme);
#define CALL_SUM(T, NAME) red_sum_##NAME(team, wpe, tn, tme);
#define CALL_PROD(T, NAME) red_prod_##NAME(team, wpe, tn, tme);
        API_REDUCE_BITWISE_TYPES(CALL_AND)
        API_REDUCE_BITWISE_TYPES(CALL_OR)
        API_REDUCE_BITWISE_TYPES(CALL_XOR)
        API_REDUCE_MINMAX_TYPES(CALL_MAX)
        API_REDUCE_MINMAX_TYPES(CALL_MIN)
        API_REDUCE_ARITH_TYPES(CALL_SUM)
        API_REDUCE_ARITH_TYPES(CALL_PROD)
#if API_HAVE_COMPLEX
#define CALL_CPLX(T, NAME) red_cplx_##NAME(team, wpe, tn, tme);
        API_REDUCE_COMPLEX_TYPES(CALL_CPLX)
#endif
    } else {
        coll_long(team, wpe, tn, tme);
        coll_schar(team, wpe, tn, tme);
        coll_double(team, wpe, tn, tme);
        red_xor_uint64(team, wpe, tn, tme);
        red_max_int(team, wpe, tn, tme);
        red_min_float(team, wpe, tn, tme);
        red_sum_long(team, wpe, tn, tme);
        red_prod_double(team, wpe, tn, tme);
    }
    coll_mem(team, wpe, tn, tme);
    shmem_team_sync(team);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= 16, "the values of this test stay in range for at most 16 PEs");
    g_src = shmem_malloc(CAP * 16);
    g_dst = shmem_malloc(CAP * 16);
    int wpe[64];

    for (int i = 0; i < npes; ++i) wpe[i] = i;
    run_team("WORLD", SHMEM_TEAM_WORLD, wpe, npes, 1);
    shmem_barrier_all();

    /* strided teams, members not consecutive in the world; one with every type */
    api_triplet trip[16];
    int nt = api_triplets(npes, trip);
    for (int k = 1; k < nt; ++k) {
        shmem_team_t t;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, trip[k].start, trip[k].stride, trip[k].size, NULL, 0, &t) == 0,
              "split_strided(%d, %d, %d)", trip[k].start, trip[k].stride, trip[k].size);
        for (int i = 0; i < trip[k].size; ++i) wpe[i] = api_triplet_pe(trip[k], i);
        char name[64];
        snprintf(name, sizeof name, "team (%d, %d, %d)", trip[k].start, trip[k].stride, trip[k].size);
        run_team(name, t, wpe, trip[k].size, k == 1);
        shmem_team_destroy(t);
        shmem_barrier_all();
    }

    /* the x-teams of a 2D split with xrange 2: {0, 1}, {2, 3}, ... */
    if (npes >= 2) {
        shmem_team_t xt, yt;
        CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt) == 0, "split_2d");
        int y = me / 2, xn = 0;
        for (int q = 2 * y; q < 2 * y + 2 && q < npes; ++q) wpe[xn++] = q;
        run_team("2D x-team", xt, wpe, xn, 0);
        shmem_team_sync(SHMEM_TEAM_WORLD);
        int yn = 0;
        for (int q = me % 2; q < npes; q += 2) wpe[yn++] = q;
        run_team("2D y-team", yt, wpe, yn, 0);
        shmem_team_destroy(xt);
        shmem_team_destroy(yt);
        shmem_barrier_all();
    }

    shmem_free(g_dst);
    shmem_free(g_src);
    mp_pass("api_coll");
    shmem_finalize();
    return 0;
}
