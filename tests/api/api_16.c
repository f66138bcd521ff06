/* The OpenSHMEM 1.6 additions: shmem_query_initialized, shmem_team_ptr, shmem_pe_quiet /
 * shmem_ctx_pe_quiet, shmem_signal_set / shmem_signal_add (and the shmem_ctx_ forms), the scan
 * collectives shmem_TYPENAME_sum_inscan / shmem_TYPENAME_sum_exscan (and the C11 generic
 * shmem_sum_inscan / shmem_sum_exscan), and the block-strided shmem_ibput / shmem_ibget for every
 * standard RMA type and size.
 *
 * Rules exercised (1.6 text):
 *  - shmem_query_initialized gives nonzero between initialization and shmem_finalize and zero
 *    before and after;
 *  - shmem_team_ptr(team, dest, pe) is shmem_ptr for the team's PE pe: non-null for every PE of
 *    SHMEM_TEAM_SHARED, usable for loads and stores; null for SHMEM_TEAM_INVALID;
 *  - shmem_pe_quiet(target_pes, npes) completes the puts to those PEs (npes == 0 is allowed and
 *    does nothing);
 *  - signal_set writes, signal_add adds atomically (from every PE at once);
 *  - inscan: dest on team PE i = sum of source over team PEs 0..i; exscan: over 0..i-1, and 0
 *    on team PE 0; in place too; nelems == 0 writes nothing;
 *  - ibput / ibget copy nblocks blocks of bsize elements; block b starts at b * sst in the
 *    source and at b * dst in the dest (strides counted in elements between block starts), the
 *    elements between blocks are not written;
 *  - shmem_ctx_session_start / shmem_ctx_session_stop (1.6 "SHMEM_CTX_SESSION_START",
 *    "SHMEM_CTX_SESSION_STOP", "shmem_ctx_session_config_t"): hints only; RMA and AMOs issued
 *    in a session on a created context and on SHMEM_CTX_DEFAULT complete as always (quiet, then
 *    the data is there); a second start ORs its options in; a second stop has no effect; on
 *    SHMEM_CTX_INVALID start does nothing and returns; config_mask 0 with a NULL config and
 *    SHMEM_CTX_SESSION_TOTAL_OPS with total_ops are accepted. */
#include "api_check.h"

#define SENT 99

static int me, npes, right, left;

/* -------- ibput / ibget -------- */
enum { BS = 3, NB = 4, SST = 5, DST = 4 };

#define IB_TYPED(T, NAME)                                                                          \
    static void ib_##NAME(shmem_ctx_t ctx) {                                                       \
        T *sym = (T *)shmem_malloc(3 * SST * NB * sizeof(T));                                      \
        T src[SST * NB], back[SST * NB];                                                           \
        for (int i = 0; i < 3 * SST * NB; ++i) sym[i] = (T)SENT;                                   \
        for (int i = 0; i < SST * NB; ++i) src[i] = (T)api_val(me, i);                             \
        shmem_barrier_all();                                                                       \
        shmem_##NAME##_ibput(sym, src, DST, SST, BS, NB, right);                                   \
        shmem_ctx_##NAME##_ibput(ctx, sym + SST * NB, src, DST, SST, BS, NB, right);               \
        shmem_##NAME##_ibput(sym + 2 * SST * NB, src, DST, SST, BS, 0, right);                     \
        shmem_##NAME##_ibput(sym + 2 * SST * NB, src, DST, SST, 0, NB, right);                     \
        shmem_ctx_quiet(ctx);                                                                      \
        shmem_barrier_all();                                                                       \
        for (int r = 0; r < 3; ++r)                                                                \
            for (int i = 0; i < SST * NB; ++i) {                                                   \
                int b = i / DST, e = i % DST;                                                      \
                T want = (r < 2 && b < NB && e < BS) ? (T)api_val(left, b * SST + e) : (T)SENT;    \
                CHECK(sym[r * SST * NB + i] == want, "shmem_%s" #NAME "_ibput: dest element %d", r == 1 ? "ctx_" : "", i); \
            }                                                                                      \
        for (int form = 0; form < 2; ++form) {                                                     \
            for (int i = 0; i < SST * NB; ++i) back[i] = (T)SENT;                                  \
            /* right's sym holds my blocks at stride DST; read them back to stride SST */          \
            if (form == 0) shmem_##NAME##_ibget(back, sym, SST, DST, BS, NB, right);               \
            else shmem_ctx_##NAME##_ibget(ctx, back, sym, SST, DST, BS, NB, right);                \
            for (int i = 0; i < SST * NB; ++i) {                                                   \
                int b = i / SST, e = i % SST;                                                      \
                T want = (e < BS) ? (T)api_val(me, b * SST + e) : (T)SENT;                         \
                CHECK(back[i] == want, "shmem_%s" #NAME "_ibget: element %d", form ? "ctx_" : "", i); \
            }                                                                                      \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        shmem_free(sym);                                                                           \
    }
KISHMEM_RMA_TYPES(IB_TYPED)

#define IB_SIZED(BITS)                                                                             \
    static void ib_size##BITS(shmem_ctx_t ctx) {                                                   \
        enum { B = BITS / 8 };                                                                     \
        unsigned char *sym = (unsigned char *)shmem_malloc(2 * SST * NB * B);                      \
        unsigned char src[SST * NB * B], back[SST * NB * B];                                       \
        memset(sym, SENT, 2 * SST * NB * B);                                                       \
        for (int i = 0; i < SST * NB * B; ++i) src[i] = (unsigned char)(me * 5 + i + BITS);        \
        shmem_barrier_all();                                                                       \
        shmem_ibput##BITS(sym, src, DST, SST, BS, NB, right);                                      \
        shmem_ctx_ibput##BITS(ctx, sym + SST * NB * B, src, DST, SST, BS, NB, right);              \
        shmem_ctx_quiet(ctx);                                                                      \
        shmem_barrier_all();                                                                       \
        for (int r = 0; r < 2; ++r)                                                                \
            for (int el = 0; el < SST * NB; ++el)                                                  \
                for (int k = 0; k < B; ++k) {                                                      \
                    int b = el / DST, e = el % DST;                                                \
                    unsigned char want = (b < NB && e < BS) ? (unsigned char)(left * 5 + (b * SST + e) * B + k + BITS) \
                                                            : (unsigned char)SENT;                 \
                    CHECK(sym[(r * SST * NB + el) * B + k] == want, "shmem_%sibput" #BITS ": element %d byte %d", r ? "ctx_" : "", el, k); \
                }                                                                                  \
        memset(back, SENT, sizeof back);                                                           \
        shmem_ibget##BITS(back, sym, SST, DST, BS, NB, right);                                     \
        for (int el = 0; el < SST * NB; ++el)                                                      \
            for (int k = 0; k < B; ++k) {                                                          \
                unsigned char want = (el % SST < BS) ? (unsigned char)(me * 5 + el * B + k + BITS) : (unsigned char)SENT; \
                CHECK(back[el * B + k] == want, "shmem_ibget" #BITS ": element %d byte %d", el, k); \
            }                                                                                      \
        memset(back, SENT, sizeof back);                                                           \
        shmem_ctx_ibget##BITS(ctx, back, sym + SST * NB * B, SST, DST, BS, NB, right);             \
        for (int el = 0; el < SST * NB; ++el)                                                      \
            for (int k = 0; k < B; ++k) {                                                          \
                unsigned char want = (el % SST < BS) ? (unsigned char)(me * 5 + el * B + k + BITS) : (unsigned char)SENT; \
                CHECK(back[el * B + k] == want, "shmem_ctx_ibget" #BITS ": element %d byte %d", el, k); \
            }                                                                                      \
        shmem_barrier_all();                                                                       \
        shmem_free(sym);                                                                           \
    }
KISHMEM_RMA_SIZES(IB_SIZED)

/* -------- scans -------- */
#define SCAN_N 7
static void *g_scan; /* symmetric, 2 * SCAN_N elements of the largest type */
#define SV(pe, i) (((pe) + (i)) % 5 + 1)
#define SCAN_TYPED(T, NAME)                                                                        \
    static void scan_##NAME(shmem_team_t team, const int *wpe, int tn, int tme) {                  \
        T *src = (T *)g_scan, *dst = src + SCAN_N;                                                 \
        for (int k = 0; k < 4; ++k) {                                                              \
            int ex = k % 2, inplace = (k == 3);                                                    \
            size_t n = (k == 2) ? 0 : SCAN_N;                                                      \
            T *d = inplace ? src : dst;                                                            \
            for (int i = 0; i < SCAN_N; ++i) {                                                     \
                src[i] = (T)SV(wpe[tme], i);                                                       \
                dst[i] = (T)SENT;                                                                  \
            }                                                                                      \
            shmem_team_sync(team);                                                                 \
            int rc = ex ? shmem_##NAME##_sum_exscan(team, d, src, n) : shmem_##NAME##_sum_inscan(team, d, src, n); \
            CHECK(rc == 0, "shmem_" #NAME "_sum_%sscan returned %d", ex ? "ex" : "in", rc);        \
            for (int i = 0; i < SCAN_N; ++i) {                                                     \
                T want = (T)0;                                                                     \
                for (int m = 0; m < (ex ? tme : tme + 1); ++m) want += (T)SV(wpe[m], i);           \
                if ((size_t)i >= n) want = inplace ? (T)SV(wpe[tme], i) : (T)SENT;                 \
                CHECK(d[i] == want, "shmem_" #NAME "_sum_%sscan%s (nelems %zu) on team PE %d of %d: element %d", \
                      ex ? "ex" : "in", inplace ? " in place" : "", n, tme, tn, i);                \
            }                                                                                      \
        }                                                                                          \
        shmem_team_sync(team);                                                                     \
    }
API_REDUCE_ARITH_TYPES(SCAN_TYPED)
API_REDUCE_COMPLEX_TYPES(SCAN_TYPED)

static void scans(void) {
    g_scan = shmem_malloc(2 * SCAN_N * 32);
    api_triplet trip[16];
    int nt = api_triplets(npes, trip);
    for (int k = 0; k < nt; ++k) {
        if (k > 2) break; /* the world, the even PEs and the odd PEs */
        shmem_team_t t;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, trip[k].start, trip[k].stride, trip[k].size, NULL, 0, &t) == 0, "split");
        int wpe[64];
        for (int i = 0; i < trip[k].size; ++i) wpe[i] = api_triplet_pe(trip[k], i);
        int tme = api_triplet_index(trip[k], me);
#define CALL_SCAN(T, NAME) \
        if (tme >= 0) scan_##NAME(t, wpe, trip[k].size, tme);
        API_REDUCE_ARITH_TYPES(CALL_SCAN)
        API_REDUCE_COMPLEX_TYPES(CALL_SCAN)
        shmem_team_destroy(t);
        shmem_barrier_all();
    }
    /* the generic names */
    long *ls = shmem_malloc(4 * sizeof(long));
    double *ds = shmem_malloc(4 * sizeof(double));
    ls[0] = me + 1;
    ds[0] = 0.5 * (me + 1);
    shmem_barrier_all();
    CHECK(shmem_sum_inscan(SHMEM_TEAM_WORLD, &ls[1], &ls[0], 1) == 0, "generic shmem_sum_inscan");
    CHECK(shmem_sum_exscan(SHMEM_TEAM_WORLD, &ds[1], &ds[0], 1) == 0, "generic shmem_sum_exscan");
    CHECK(ls[1] == (long)(me + 1) * (me + 2) / 2, "generic inscan: %ld", ls[1]);
    CHECK(ds[1] == 0.25 * me * (me + 1), "generic exscan: %g", ds[1]);
    shmem_barrier_all();
    shmem_free(ds);
    shmem_free(ls);
    shmem_free(g_scan);
}

/* -------- team_ptr -------- */
static void team_ptr(void) {
    long *x = shmem_calloc((size_t)npes, sizeof(long));
    CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, x, 0) == NULL, "shmem_team_ptr(SHMEM_TEAM_INVALID) is not NULL");
    for (int p = 0; p < npes; ++p)
        CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, x, p) == shmem_ptr(x, p), "team_ptr(WORLD, %d) != shmem_ptr", p);
    CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, x, me) == x, "team_ptr to myself is not my own address");
    int sn = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    shmem_barrier_all();
    for (int i = 0; i < sn; ++i) {
        long *q = shmem_team_ptr(SHMEM_TEAM_SHARED, x, i);
        int w = shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD);
        CHECK(q != NULL, "shmem_team_ptr(SHMEM_TEAM_SHARED, x, %d) is NULL", i);
        CHECK(q == shmem_ptr(x, w), "team_ptr(SHARED, %d) != shmem_ptr(world %d)", i, w);
        q[me] = 1000 + me; /* a store through the pointer */
    }
    shmem_barrier_all();
    for (int i = 0; i < sn; ++i) {
        int w = shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD);
        CHECK(x[w] == 1000 + w, "store through team_ptr from world PE %d: %ld", w, x[w]);
    }
    shmem_barrier_all();
    /* a strided team: team PE i is world PE start + i * stride */
    if (npes >= 2) {
        shmem_team_t t;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, npes - 1, NULL, 0, &t) == 0, "split");
        if (t != SHMEM_TEAM_INVALID)
            for (int i = 0; i < npes - 1; ++i)
                CHECK(shmem_team_ptr(t, x, i) == shmem_ptr(x, i + 1), "team_ptr(team 1..N-1, %d) != shmem_ptr(%d)", i, i + 1);
        shmem_team_destroy(t);
    }
    shmem_barrier_all();
    shmem_free(x);
}

/* -------- pe_quiet -------- */
static void pe_quiet(void) {
    const size_t n = 1 << 15;
    long *data = shmem_calloc(n * 2, sizeof(long));
    long *flag = shmem_calloc(4, sizeof(long));
    long *src = malloc(n * sizeof(long));
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "ctx_create");
    shmem_pe_quiet(NULL, 0); /* nothing to complete */
    shmem_ctx_pe_quiet(ctx, NULL, 0);
    for (int round = 1; round <= 2; ++round) {
        for (size_t i = 0; i < n; ++i) src[i] = (long)i * 5 + me + round;
        shmem_barrier_all();
        if (round == 1) {
            shmem_long_put_nbi(data, src, n, right);
            shmem_pe_quiet(&right, 1);
            shmem_long_atomic_set(&flag[0], round, right);
        } else {
            shmem_ctx_long_put_nbi(ctx, data, src, n, right);
            shmem_ctx_pe_quiet(ctx, &right, 1);
            shmem_long_atomic_set(&flag[0], round, right);
        }
        shmem_long_wait_until(&flag[0], SHMEM_CMP_EQ, round);
        for (size_t i = 0; i < n; ++i)
            if (data[i] != (long)i * 5 + left + round) CHECK(0, "pe_quiet round %d: element %zu not complete", round, i);
        shmem_barrier_all();
    }
    /* several targets at once: a put to every PE, one pe_quiet for the whole list */
    int *all = malloc(sizeof(int) * (size_t)npes);
    for (int p = 0; p < npes; ++p) all[p] = (me + p) % npes;
    long mark = 7000 + me;
    for (int p = 0; p < npes; ++p) shmem_long_put_nbi(&data[n + me], &mark, 1, p);
    shmem_pe_quiet(all, (size_t)npes);
    for (int p = 0; p < npes; ++p) shmem_long_atomic_inc(&flag[1], p);
    shmem_long_wait_until(&flag[1], SHMEM_CMP_EQ, npes);
    for (int p = 0; p < npes; ++p) CHECK(data[n + p] == 7000 + p, "pe_quiet of a list: slot of PE %d = %ld", p, data[n + p]);
    shmem_barrier_all();
    free(all);
    free(src);
    shmem_ctx_destroy(ctx);
    shmem_free(flag);
    shmem_free(data);
}

/* -------- signal_set / signal_add -------- */
static void signals(void) {
    uint64_t *s = shmem_calloc(6, sizeof(uint64_t));
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "ctx_create");
    shmem_barrier_all();
    shmem_signal_set(&s[0], 0x1234 + me, right);
    shmem_ctx_signal_set(ctx, &s[1], 0x5678 + me, right);
    for (int p = 0; p < npes; ++p) {
        shmem_signal_add(&s[2], 3, p);
        shmem_ctx_signal_add(ctx, &s[3], 5, p);
    }
    shmem_ctx_quiet(ctx);
    CHECK(shmem_signal_wait_until(&s[0], SHMEM_CMP_EQ, 0x1234 + (uint64_t)left) == 0x1234 + (uint64_t)left, "shmem_signal_set");
    CHECK(shmem_signal_wait_until(&s[1], SHMEM_CMP_EQ, 0x5678 + (uint64_t)left) == 0x5678 + (uint64_t)left, "shmem_ctx_signal_set");
    CHECK(shmem_signal_wait_until(&s[2], SHMEM_CMP_GE, 3 * (uint64_t)npes) == 3 * (uint64_t)npes, "shmem_signal_add from %d PEs", npes);
    CHECK(shmem_signal_wait_until(&s[3], SHMEM_CMP_GE, 5 * (uint64_t)npes) == 5 * (uint64_t)npes, "shmem_ctx_signal_add from %d PEs", npes);
    CHECK(shmem_signal_fetch(&s[2]) == 3 * (uint64_t)npes, "signal_fetch after signal_add");
    shmem_barrier_all();
    /* set then add on one signal word */
    shmem_signal_set(&s[4], 100, right);
    shmem_quiet();
    shmem_signal_wait_until(&s[4], SHMEM_CMP_EQ, 100);
    shmem_barrier_all();
    shmem_signal_add(&s[4], 11, right);
    CHECK(shmem_signal_wait_until(&s[4], SHMEM_CMP_NE, 100) == 111, "signal_add after signal_set");
    shmem_barrier_all();
    shmem_ctx_destroy(ctx);
    shmem_free(s);
}

static void generic_ib(void) {
    int *sym = shmem_malloc(32 * sizeof(int));
    int src[32], back[32];
    for (int i = 0; i < 32; ++i) {
        sym[i] = SENT;
        src[i] = me * 100 + i;
    }
    shmem_barrier_all();
    shmem_ibput(sym, src, 8, 4, 2, 4, right); /* 4 blocks of 2: source blocks at 0, 4, 8, 12 */
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < 32; ++i) {
        int b = i / 8, e = i % 8;
        int want = (e < 2) ? left * 100 + b * 4 + e : SENT;
        CHECK(sym[i] == want, "generic shmem_ibput element %d = %d", i, sym[i]);
    }
    for (int i = 0; i < 32; ++i) back[i] = -1;
    shmem_ibget(back, sym, 2, 8, 2, 4, right); /* dest blocks contiguous (stride == bsize) */
    for (int i = 0; i < 8; ++i) CHECK(back[i] == me * 100 + (i / 2) * 4 + i % 2, "generic shmem_ibget element %d", i);
    CHECK(back[8] == -1, "generic shmem_ibget wrote past its end");
    shmem_barrier_all();
    shmem_free(sym);
}

static void sessions(void) {
    long *dst = (long *)shmem_calloc(64, sizeof(long));
    long src[64];
    for (int i = 0; i < 64; ++i) src[i] = me * 1000 + i;
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "ctx_create");
    shmem_ctx_session_config_t cfg;
    cfg.total_ops = 64;
    shmem_ctx_session_start(SHMEM_CTX_INVALID, SHMEM_CTX_SESSION_BATCH, NULL, 0); /* no action */
    shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, &cfg, SHMEM_CTX_SESSION_TOTAL_OPS);
    shmem_ctx_session_start(ctx, 0, NULL, 0); /* a second start combines (nothing new here) */
    for (int i = 0; i < 32; ++i) shmem_ctx_long_p(ctx, &dst[i], src[i], right);
    shmem_ctx_long_put_nbi(ctx, &dst[32], &src[32], 16, right);
    shmem_ctx_long_atomic_add(ctx, &dst[48], 5, right);
    shmem_ctx_quiet(ctx);
    shmem_ctx_session_stop(ctx);
    shmem_ctx_session_stop(ctx); /* already stopped: no effect */
    shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, NULL, 0);
    shmem_long_put_nbi(&dst[49], &src[49], 15, right);
    shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    shmem_ctx_session_stop(SHMEM_CTX_INVALID);
    shmem_barrier_all();
    for (int i = 0; i < 64; ++i) {
        long want = i == 48 ? 5 : left * 1000 + i;
        CHECK(dst[i] == want, "after a session: dst[%d] = %ld, expected %ld", i, dst[i], want);
    }
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    shmem_free(dst);
}

int main(void) {
    int init = -1;
    shmem_query_initialized(&init);
    if (init != 0) {
        fprintf(stderr, "FAIL: shmem_query_initialized before shmem_init gave %d\n", init);
        return 1;
    }
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    CHECK(npes <= 16, "the values of this test stay in range for at most 16 PEs");
    init = 0;
    shmem_query_initialized(&init);
    CHECK(init != 0, "shmem_query_initialized after shmem_init gave 0");

    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "ctx_create");
#define CALL_IB(T, NAME) ib_##NAME(ctx);
    KISHMEM_RMA_TYPES(CALL_IB)
#define CALL_IB_SIZED(BITS) ib_size##BITS(ctx);
    KISHMEM_RMA_SIZES(CALL_IB_SIZED)
    shmem_ctx_destroy(ctx);
    generic_ib();
    scans();
    team_ptr();
    pe_quiet();
    signals();
    sessions();

    shmem_barrier_all();
    int was_me = me;
    shmem_finalize();
    init = -1;
    shmem_query_initialized(&init);
    if (init != 0) {
        fprintf(stderr, "FAIL: PE %d: shmem_query_initialized after shmem_finalize gave %d\n", was_me, init);
        return 1;
    }
    if (was_me == 0) printf("PASS api_16 on %d PEs\n", npes);
    return 0;
}
