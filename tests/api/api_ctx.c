/* Communication contexts conformance (OpenSHMEM 1.5 "Communication Management Routines" and
 * the shmem_ctx_* forms of RMA, AMO, signal and memory-ordering routines).
 *
 * Rules exercised:
 *  - shmem_ctx_create with 0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_NOSTORE and
 *    combinations returns 0 and a handle that compares unequal to SHMEM_CTX_INVALID;
 *  - every shmem_ctx_TYPENAME_* RMA and AMO routine works on a created context and on
 *    SHMEM_CTX_DEFAULT;
 *  - shmem_ctx_quiet(ctx) completes that context's puts; shmem_ctx_fence(ctx) orders them;
 *  - shmem_ctx_destroy performs a quiet on the context first;
 *  - shmem_ctx_get_team: the world team for the default context and for shmem_ctx_create's
 *    contexts, the team for shmem_team_create_ctx's, nonzero and SHMEM_TEAM_INVALID for
 *    SHMEM_CTX_INVALID;
 *  - shmem_ctx_quiet, shmem_ctx_fence and shmem_ctx_pe_quiet on SHMEM_CTX_INVALID do nothing
 *    and return (1.5 "Communication Management Routines": a handle that is not a valid context
 *    makes RMA and AMO routines undefined, and SHMEM_CTX_INVALID is the value a program keeps in
 *    handles that reference no context; the memory-ordering routines on it have nothing to
 *    complete or order);
 *  - a context created from a team addresses PEs by their number in that team;
 *    shmem_team_create_ctx on SHMEM_TEAM_INVALID returns nonzero and SHMEM_CTX_INVALID. */
#include "api_check.h"

#define N 17
#define SENT 99

static int me, npes, right, left;

#define CTX_RMA(T, NAME)                                                                           \
    static void ctx_rma_##NAME(shmem_ctx_t ctx) {                                                  \
        T *sym = (T *)shmem_malloc(4 * N * sizeof(T));                                             \
        T src[N], back[N], ssrc[2 * N];                                                            \
        for (int i = 0; i < 4 * N; ++i) sym[i] = (T)SENT;                                          \
        for (int i = 0; i < N; ++i) src[i] = (T)api_val(me, i);                                    \
        for (int i = 0; i < 2 * N; ++i) ssrc[i] = (T)api_val(me, i + 3);                           \
        shmem_barrier_all();                                                                       \
        shmem_ctx_##NAME##_put(ctx, sym, src, N, right);                                           \
        shmem_ctx_##NAME##_put_nbi(ctx, sym + N, src, N, right);                                   \
        shmem_ctx_##NAME##_p(ctx, sym + 2 * N, (T)(me + 1), right);                                \
        shmem_ctx_##NAME##_iput(ctx, sym + 3 * N, ssrc, 2, 2, N / 2, right);                       \
        shmem_ctx_##NAME##_put(ctx, sym + 2 * N + 1, src, 0, right);                               \
        shmem_ctx_quiet(ctx);                                                                      \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < N; ++i) {                                                              \
            CHECK(sym[i] == (T)api_val(left, i), "shmem_ctx_" #NAME "_put: element %d", i);        \
            CHECK(sym[N + i] == (T)api_val(left, i), "shmem_ctx_" #NAME "_put_nbi: element %d", i); \
            T want = (i % 2 == 0 && i / 2 < N / 2) ? (T)api_val(left, i + 3) : (T)SENT;            \
            CHECK(sym[3 * N + i] == want, "shmem_ctx_" #NAME "_iput: element %d", i);              \
        }                                                                                          \
        CHECK(sym[2 * N] == (T)(left + 1) && sym[2 * N + 1] == (T)SENT, "shmem_ctx_" #NAME "_p");  \
        CHECK(shmem_ctx_##NAME##_g(ctx, sym + 2 * N, right) == (T)(me + 1), "shmem_ctx_" #NAME "_g"); \
        for (int i = 0; i < N; ++i) back[i] = (T)SENT;                                             \
        shmem_ctx_##NAME##_get(ctx, back, sym, N, right);                                          \
        for (int i = 0; i < N; ++i) CHECK(back[i] == (T)api_val(me, i), "shmem_ctx_" #NAME "_get: element %d", i); \
        for (int i = 0; i < N; ++i) back[i] = (T)SENT;                                             \
        shmem_ctx_##NAME##_get_nbi(ctx, back, sym + N, N, right);                                  \
        shmem_ctx_quiet(ctx);                                                                      \
        for (int i = 0; i < N; ++i) CHECK(back[i] == (T)api_val(me, i), "shmem_ctx_" #NAME "_get_nbi: element %d", i); \
        for (int i = 0; i < N; ++i) back[i] = (T)SENT;                                             \
        shmem_ctx_##NAME##_iget(ctx, back, sym + 3 * N, 3, 2, N / 3, right);                       \
        /* right's strided block holds my ssrc[2k] at element 2k (k < N / 2) */                    \
        for (int j = 0; j < N / 3; ++j) {                                                          \
            CHECK(back[3 * j] == (T)api_val(me, 2 * j + 3), "shmem_ctx_" #NAME "_iget: element %d", 3 * j); \
            CHECK(back[3 * j + 1] == (T)SENT && back[3 * j + 2] == (T)SENT, "shmem_ctx_" #NAME "_iget wrote a gap"); \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        shmem_free(sym);                                                                           \
    }
KISHMEM_RMA_TYPES(CTX_RMA)

#define CTX_AMO(T, NAME)                                                                           \
    static void ctx_amo_##NAME(shmem_ctx_t ctx) {                                                  \
        T *v = (T *)shmem_calloc(4, sizeof(T));                                                    \
        T f = (T)0;                                                                                \
        shmem_barrier_all();                                                                       \
        for (int pe = 0; pe < npes; ++pe) {                                                        \
            shmem_ctx_##NAME##_atomic_inc(ctx, &v[0], pe);                                         \
            shmem_ctx_##NAME##_atomic_add(ctx, &v[0], (T)2, pe);                                   \
            (void)shmem_ctx_##NAME##_atomic_fetch_inc(ctx, &v[1], pe);                             \
            (void)shmem_ctx_##NAME##_atomic_fetch_add(ctx, &v[1], (T)4, pe);                       \
        }                                                                                          \
        shmem_ctx_##NAME##_atomic_set(ctx, &v[2], (T)(me + 1), right);                             \
        shmem_ctx_quiet(ctx);                                                                      \
        shmem_barrier_all();                                                                       \
        CHECK(v[0] == (T)(3 * npes) && v[1] == (T)(5 * npes), "shmem_ctx_" #NAME " inc/add: %lld %lld", (long long)v[0], (long long)v[1]); \
        CHECK(v[2] == (T)(left + 1), "shmem_ctx_" #NAME "_atomic_set");                            \
        CHECK(shmem_ctx_##NAME##_atomic_fetch(ctx, &v[2], right) == (T)(me + 1), "shmem_ctx_" #NAME "_atomic_fetch"); \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_ctx_##NAME##_atomic_swap(ctx, &v[2], (T)(me + 10), right) == (T)(me + 1), "shmem_ctx_" #NAME "_atomic_swap"); \
        CHECK(shmem_ctx_##NAME##_atomic_compare_swap(ctx, &v[2], (T)(me + 10), (T)(me + 20), right) == (T)(me + 10), \
              "shmem_ctx_" #NAME "_atomic_compare_swap");                                          \
        shmem_ctx_##NAME##_atomic_fetch_nbi(ctx, &f, &v[2], right);                                \
        shmem_ctx_quiet(ctx);                                                                      \
        CHECK(f == (T)(me + 20), "shmem_ctx_" #NAME "_atomic_fetch_nbi");                          \
        shmem_ctx_##NAME##_atomic_swap_nbi(ctx, &f, &v[2], (T)(me + 30), right);                   \
        shmem_ctx_quiet(ctx);                                                                      \
        CHECK(f == (T)(me + 20), "shmem_ctx_" #NAME "_atomic_swap_nbi");                           \
        shmem_ctx_##NAME##_atomic_compare_swap_nbi(ctx, &f, &v[2], (T)(me + 30), (T)(me + 40), right); \
        shmem_ctx_quiet(ctx);                                                                      \
        CHECK(f == (T)(me + 30), "shmem_ctx_" #NAME "_atomic_compare_swap_nbi");                   \
        shmem_ctx_##NAME##_atomic_fetch_inc_nbi(ctx, &f, &v[3], right);                            \
        shmem_ctx_quiet(ctx);                                                                      \
        CHECK(f == (T)0, "shmem_ctx_" #NAME "_atomic_fetch_inc_nbi");                              \
        shmem_ctx_##NAME##_atomic_fetch_add_nbi(ctx, &f, &v[3], (T)5, right);                      \
        shmem_ctx_quiet(ctx);                                                                      \
        CHECK(f == (T)1, "shmem_ctx_" #NAME "_atomic_fetch_add_nbi");                              \
        shmem_barrier_all();                                                                       \
        CHECK(v[2] == (T)(left + 40) && v[3] == (T)6, "shmem_ctx_" #NAME " nbi results");          \
        shmem_barrier_all();                                                                       \
        shmem_free(v);                                                                             \
    }
KISHMEM_AMO_STD_TYPES(CTX_AMO)

#define CTX_AMO_EXT(T, NAME)                                                                       \
    static void ctx_amo_##NAME(shmem_ctx_t ctx) {                                                  \
        T *v = (T *)shmem_calloc(1, sizeof(T));                                                    \
        T f = (T)0;                                                                                \
        shmem_barrier_all();                                                                       \
        shmem_ctx_##NAME##_atomic_set(ctx, v, (T)(me + 0.25), right);                              \
        shmem_ctx_quiet(ctx);                                                                      \
        shmem_barrier_all();                                                                       \
        CHECK(*v == (T)(left + 0.25), "shmem_ctx_" #NAME "_atomic_set");                           \
        CHECK(shmem_ctx_##NAME##_atomic_fetch(ctx, v, right) == (T)(me + 0.25), "shmem_ctx_" #NAME "_atomic_fetch"); \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_ctx_##NAME##_atomic_swap(ctx, v, (T)-1, right) == (T)(me + 0.25), "shmem_ctx_" #NAME "_atomic_swap"); \
        shmem_ctx_##NAME##_atomic_fetch_nbi(ctx, &f, v, right);                                    \
        shmem_ctx_quiet(ctx);                                                                      \
        CHECK(f == (T)-1, "shmem_ctx_" #NAME "_atomic_fetch_nbi");                                 \
        shmem_ctx_##NAME##_atomic_swap_nbi(ctx, &f, v, (T)2, right);                               \
        shmem_ctx_quiet(ctx);                                                                      \
        CHECK(f == (T)-1, "shmem_ctx_" #NAME "_atomic_swap_nbi");                                  \
        shmem_barrier_all();                                                                       \
        shmem_free(v);                                                                             \
    }
KISHMEM_AMO_EXT_ONLY_TYPES(CTX_AMO_EXT)

#define CTX_BIT(T, NAME)                                                                           \
    static void ctx_bit_##NAME(shmem_ctx_t ctx) {                                                  \
        T *v = (T *)shmem_calloc(2, sizeof(T));                                                    \
        T mine = (T)((T)1 << (me % 31)), all = 0, f = 0;                                           \
        for (int pe = 0; pe < npes; ++pe) all |= (T)((T)1 << (pe % 31));                           \
        shmem_barrier_all();                                                                       \
        shmem_ctx_##NAME##_atomic_or(ctx, &v[0], mine, 0);                                         \
        shmem_ctx_##NAME##_atomic_xor(ctx, &v[1], mine, 0);                                        \
        shmem_ctx_quiet(ctx);                                                                      \
        shmem_barrier_all();                                                                       \
        if (me == 0) CHECK(v[0] == all && v[1] == all, "shmem_ctx_" #NAME "_atomic_or/xor");        \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_ctx_##NAME##_atomic_fetch_and(ctx, &v[0], (T)~mine, 0) & mine, "shmem_ctx_" #NAME "_atomic_fetch_and"); \
        shmem_ctx_##NAME##_atomic_and(ctx, &v[1], (T)~mine, 0);                                    \
        shmem_ctx_quiet(ctx);                                                                      \
        shmem_barrier_all();                                                                       \
        if (me == 0) CHECK(v[0] == 0 && v[1] == 0, "shmem_ctx_" #NAME "_atomic_and");              \
        shmem_barrier_all();                                                                       \
        CHECK(!(shmem_ctx_##NAME##_atomic_fetch_or(ctx, &v[0], mine, 0) & mine), "shmem_ctx_" #NAME "_atomic_fetch_or"); \
        CHECK(shmem_ctx_##NAME##_atomic_fetch_xor(ctx, &v[0], mine, 0) & mine, "shmem_ctx_" #NAME "_atomic_fetch_xor"); \
        shmem_ctx_##NAME##_atomic_fetch_or_nbi(ctx, &f, &v[1], mine, 0);                           \
        shmem_ctx_quiet(ctx);                                                                      \
        CHECK(!(f & mine), "shmem_ctx_" #NAME "_atomic_fetch_or_nbi");                             \
        shmem_ctx_##NAME##_atomic_fetch_xor_nbi(ctx, &f, &v[1], mine, 0);                          \
        shmem_ctx_quiet(ctx);                                                                      \
        CHECK(f & mine, "shmem_ctx_" #NAME "_atomic_fetch_xor_nbi");                               \
        shmem_ctx_##NAME##_atomic_fetch_and_nbi(ctx, &f, &v[1], (T)~mine, 0);                      \
        shmem_ctx_quiet(ctx);                                                                      \
        CHECK(!(f & mine), "shmem_ctx_" #NAME "_atomic_fetch_and_nbi");                            \
        shmem_barrier_all();                                                                       \
        if (me == 0) CHECK(v[0] == 0 && v[1] == 0, "ctx bitwise final %llx %llx", (unsigned long long)v[0], (unsigned long long)v[1]); \
        shmem_barrier_all();                                                                       \
        shmem_free(v);                                                                             \
    }
KISHMEM_AMO_BIT_TYPES(CTX_BIT)

/* sized, mem and signal forms on a context */
static void ctx_sized(shmem_ctx_t ctx) {
    unsigned char *sym = shmem_calloc(1024, 1);
    uint64_t *sig = shmem_calloc(8, sizeof(uint64_t));
    unsigned char src[256], back[288];
    for (int i = 0; i < 256; ++i) src[i] = (unsigned char)(me * 7 + i);
    shmem_barrier_all();
    shmem_ctx_put8(ctx, sym, src, 16, right);
    shmem_ctx_put16(ctx, sym + 16, src, 8, right);
    shmem_ctx_put32(ctx, sym + 32, src, 4, right);
    shmem_ctx_put64(ctx, sym + 48, src, 2, right);
    shmem_ctx_put128(ctx, sym + 64, src, 1, right);
    shmem_ctx_putmem(ctx, sym + 80, src, 16, right);
    shmem_ctx_put8_nbi(ctx, sym + 96, src, 16, right);
    shmem_ctx_put16_nbi(ctx, sym + 112, src, 8, right);
    shmem_ctx_put32_nbi(ctx, sym + 128, src, 4, right);
    shmem_ctx_put64_nbi(ctx, sym + 144, src, 2, right);
    shmem_ctx_put128_nbi(ctx, sym + 160, src, 1, right);
    shmem_ctx_putmem_nbi(ctx, sym + 176, src, 16, right);
    shmem_ctx_iput8(ctx, sym + 192, src, 1, 1, 16, right);
    shmem_ctx_iput16(ctx, sym + 208, src, 1, 1, 8, right);
    shmem_ctx_iput32(ctx, sym + 224, src, 1, 1, 4, right);
    shmem_ctx_iput64(ctx, sym + 240, src, 1, 1, 2, right);
    shmem_ctx_iput128(ctx, sym + 256, src, 1, 1, 1, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int blk = 0; blk < 17; ++blk)
        for (int i = 0; i < 16; ++i)
            CHECK(sym[blk * 16 + i] == (unsigned char)(left * 7 + i), "ctx sized/mem put block %d byte %d", blk, i);
    unsigned char *gets[] = {back, back + 16, back + 32, back + 48, back + 64, back + 80};
    memset(back, 0, sizeof back);
    shmem_ctx_get8(ctx, gets[0], sym, 16, right);
    shmem_ctx_get16(ctx, gets[1], sym, 8, right);
    shmem_ctx_get32(ctx, gets[2], sym, 4, right);
    shmem_ctx_get64(ctx, gets[3], sym, 2, right);
    shmem_ctx_get128(ctx, gets[4], sym, 1, right);
    shmem_ctx_getmem(ctx, gets[5], sym, 16, right);
    shmem_ctx_get8_nbi(ctx, back + 96, sym, 16, right);
    shmem_ctx_get16_nbi(ctx, back + 112, sym, 8, right);
    shmem_ctx_get32_nbi(ctx, back + 128, sym, 4, right);
    shmem_ctx_get64_nbi(ctx, back + 144, sym, 2, right);
    shmem_ctx_get128_nbi(ctx, back + 160, sym, 1, right);
    shmem_ctx_getmem_nbi(ctx, back + 176, sym, 16, right);
    shmem_ctx_iget8(ctx, back + 192, sym, 1, 1, 16, right);
    shmem_ctx_iget16(ctx, back + 208, sym, 1, 1, 8, right);
    shmem_ctx_iget32(ctx, back + 224, sym, 1, 1, 4, right);
    shmem_ctx_iget64(ctx, back + 240, sym, 1, 1, 2, right);
    shmem_ctx_iget128(ctx, back + 256, sym, 1, 1, 1, right);
    shmem_ctx_quiet(ctx);
    for (int blk = 0; blk < 17; ++blk)
        for (int i = 0; i < 16; ++i)
            CHECK(back[blk * 16 + i] == (unsigned char)(me * 7 + i), "ctx sized/mem get block %d byte %d", blk, i);
    shmem_barrier_all();
    /* put-with-signal on the context */
    long *d = (long *)(sym + 512);
    long val = 1000 + me;
    shmem_ctx_long_put_signal(ctx, d, &val, 1, &sig[0], 1, SHMEM_SIGNAL_SET, right);
    shmem_ctx_putmem_signal(ctx, d + 1, &val, sizeof val, &sig[1], 2, SHMEM_SIGNAL_ADD, right);
    shmem_ctx_put64_signal(ctx, d + 2, &val, 1, &sig[2], 3, SHMEM_SIGNAL_SET, right);
    shmem_ctx_long_put_signal_nbi(ctx, d + 3, &val, 1, &sig[3], 4, SHMEM_SIGNAL_SET, right);
    shmem_ctx_putmem_signal_nbi(ctx, d + 4, &val, sizeof val, &sig[4], 5, SHMEM_SIGNAL_ADD, right);
    shmem_ctx_put32_signal_nbi(ctx, d + 5, &val, 2, &sig[5], 6, SHMEM_SIGNAL_SET, right);
    shmem_ctx_quiet(ctx);
    for (int k = 0; k < 6; ++k) CHECK(shmem_signal_wait_until(&sig[k], SHMEM_CMP_EQ, (uint64_t)k + 1) == (uint64_t)k + 1, "ctx put_signal %d", k);
    for (int k = 0; k < 6; ++k) CHECK(d[k] == 1000 + left, "ctx put_signal payload %d = %ld", k, d[k]);
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(sym);
}

static void exercise(const char *what, shmem_ctx_t ctx) {
    (void)what;
#define CALL_RMA(T, NAME) ctx_rma_##NAME(ctx);
#define CALL_AMO(T, NAME) ctx_amo_##NAME(ctx);
#define CALL_BIT(T, NAME) ctx_bit_##NAME(ctx);
    KISHMEM_RMA_TYPES(CALL_RMA)
    KISHMEM_AMO_STD_TYPES(CALL_AMO)
    KISHMEM_AMO_EXT_ONLY_TYPES(CALL_AMO)
    KISHMEM_AMO_BIT_TYPES(CALL_BIT)
    ctx_sized(ctx);
}

/* ctx_quiet completes; ctx_fence orders; destroy quiets. */
static void completion(long options) {
    const size_t n = 1 << 15;
    long *data = shmem_calloc(n, sizeof(long));
    long *flag = shmem_calloc(4, sizeof(long));
    long *src = malloc(n * sizeof(long));
    for (int round = 1; round <= 3; ++round) {
        shmem_ctx_t ctx;
        CHECK(shmem_ctx_create(options, &ctx) == 0, "shmem_ctx_create(%ld)", options);
        for (size_t i = 0; i < n; ++i) src[i] = (long)i + round * 7 + me;
        shmem_barrier_all();
        shmem_ctx_long_put_nbi(ctx, data, src, n, right);
        if (round == 1) { /* quiet on ctx, then a flag through the default context */
            shmem_ctx_quiet(ctx);
            shmem_long_atomic_set(&flag[0], round, right);
        } else if (round == 2) { /* fence on ctx orders the flag put on the same ctx */
            shmem_ctx_fence(ctx);
            shmem_ctx_long_atomic_set(ctx, &flag[0], round, right);
            shmem_ctx_quiet(ctx);
        } else { /* destroy performs a quiet on ctx */
            shmem_ctx_destroy(ctx);
            ctx = SHMEM_CTX_INVALID;
            shmem_long_atomic_set(&flag[0], round, right);
        }
        shmem_long_wait_until(&flag[0], SHMEM_CMP_EQ, round);
        for (size_t i = 0; i < n; ++i)
            if (data[i] != (long)i + round * 7 + left)
                CHECK(0, "options %ld round %d: element %zu not delivered when the flag arrived", options, round, i);
        shmem_barrier_all();
        if (ctx != SHMEM_CTX_INVALID) shmem_ctx_destroy(ctx);
    }
    free(src);
    shmem_free(flag);
    shmem_free(data);
}

/* A context from a team: PE arguments are team PE numbers. */
static void team_contexts(void) {
    api_triplet trip[16];
    int nt = api_triplets(npes, trip);
    long *slot = shmem_calloc(2, sizeof(long));
    for (int k = 1; k < nt; ++k) {
        api_triplet tr = trip[k];
        shmem_team_t team;
        shmem_team_config_t cfg = {0};
        cfg.num_contexts = 1;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, tr.start, tr.stride, tr.size, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &team) == 0,
              "split");
        int idx = api_triplet_index(tr, me);
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
        int rc = shmem_team_create_ctx(team, 0, &ctx);
        if (idx < 0) {
            CHECK(team == SHMEM_TEAM_INVALID, "non-member got a team");
            CHECK(rc != 0 && ctx == SHMEM_CTX_INVALID, "shmem_team_create_ctx(SHMEM_TEAM_INVALID) returned %d", rc);
        } else {
            CHECK(rc == 0 && ctx != SHMEM_CTX_INVALID, "shmem_team_create_ctx returned %d", rc);
            shmem_team_t back = SHMEM_TEAM_INVALID;
            CHECK(shmem_ctx_get_team(ctx, &back) == 0 && back == team, "shmem_ctx_get_team of a team context");
            int tnext = (idx + 1) % tr.size;
            /* team PE tnext is world PE start + tnext * stride */
            shmem_ctx_long_p(ctx, &slot[0], 100 + me, tnext);
            shmem_ctx_long_atomic_add(ctx, &slot[1], me + 1, 0);
            shmem_ctx_quiet(ctx);
        }
        shmem_barrier_all();
        if (idx >= 0) {
            int tprev = (idx + tr.size - 1) % tr.size;
            CHECK(slot[0] == 100 + api_triplet_pe(tr, tprev), "team ctx put from team PE %d: got %ld", tprev, slot[0]);
            if (idx == 0) {
                long want = 0;
                for (int i = 0; i < tr.size; ++i) want += api_triplet_pe(tr, i) + 1;
                CHECK(slot[1] == want, "team ctx AMOs on team PE 0: %ld, want %ld", slot[1], want);
            }
            CHECK(shmem_ctx_long_g(ctx, &slot[0], idx) == slot[0], "team ctx g from myself (team PE %d)", idx);
        } else {
            CHECK(slot[0] == 0 && slot[1] == 0, "a non-member was written through a team context");
        }
        shmem_barrier_all();
        slot[0] = slot[1] = 0;
        shmem_ctx_destroy(ctx); /* SHMEM_CTX_INVALID for non-members, as in the spec's example */
        shmem_team_destroy(team);
        shmem_barrier_all();
    }
    shmem_free(slot);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    CHECK(npes <= 30, "the bitwise checks give each PE one bit");

    /* memory ordering on SHMEM_CTX_INVALID: no effect, no error; the default context still works */
    {
        static long inv;
        inv = 0;
        shmem_barrier_all();
        shmem_long_p(&inv, me + 1, right);
        shmem_ctx_fence(SHMEM_CTX_INVALID);
        shmem_ctx_quiet(SHMEM_CTX_INVALID);
        int pes[2] = {right, left};
        shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, pes, 2);
        shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, NULL, 0);
        shmem_quiet();
        shmem_barrier_all();
        CHECK(inv == left + 1, "put around the SHMEM_CTX_INVALID calls: %ld, expected %d", inv, left + 1);
    }

    /* handles */
    shmem_team_t t = SHMEM_TEAM_INVALID;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t) == 0 && t == SHMEM_TEAM_WORLD, "get_team(SHMEM_CTX_DEFAULT)");
    t = SHMEM_TEAM_WORLD;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0, "get_team(SHMEM_CTX_INVALID) returned 0");
    CHECK(t == SHMEM_TEAM_INVALID, "get_team(SHMEM_CTX_INVALID) did not give SHMEM_TEAM_INVALID");
    CHECK(SHMEM_CTX_DEFAULT != SHMEM_CTX_INVALID, "SHMEM_CTX_DEFAULT == SHMEM_CTX_INVALID");
    shmem_ctx_t bad = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &bad) != 0 && bad == SHMEM_CTX_INVALID,
          "shmem_team_create_ctx(SHMEM_TEAM_INVALID)");

    static const long opts[] = {0,
                                SHMEM_CTX_PRIVATE,
                                SHMEM_CTX_SERIALIZED,
                                SHMEM_CTX_NOSTORE,
                                SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE,
                                SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE};
    CHECK(SHMEM_CTX_PRIVATE != SHMEM_CTX_SERIALIZED && SHMEM_CTX_PRIVATE != SHMEM_CTX_NOSTORE &&
              SHMEM_CTX_SERIALIZED != SHMEM_CTX_NOSTORE,
          "context option constants are not distinct");
    shmem_ctx_t ctxs[6];
    for (int k = 0; k < 6; ++k) {
        ctxs[k] = SHMEM_CTX_INVALID;
        CHECK(shmem_ctx_create(opts[k], &ctxs[k]) == 0, "shmem_ctx_create(%ld) failed", opts[k]);
        CHECK(ctxs[k] != SHMEM_CTX_INVALID && ctxs[k] != SHMEM_CTX_DEFAULT, "shmem_ctx_create(%ld) handle", opts[k]);
        for (int j = 0; j < k; ++j) CHECK(ctxs[j] != ctxs[k], "two live contexts share a handle");
        shmem_team_t tt = SHMEM_TEAM_INVALID;
        CHECK(shmem_ctx_get_team(ctxs[k], &tt) == 0 && tt == SHMEM_TEAM_WORLD, "get_team of a created context");
    }

    exercise("SHMEM_CTX_DEFAULT", SHMEM_CTX_DEFAULT);
    exercise("a shareable context", ctxs[0]);
    ctx_rma_long(ctxs[1]);
    ctx_amo_int(ctxs[2]);
    ctx_amo_double(ctxs[3]);
    ctx_rma_double(ctxs[4]);
    ctx_sized(ctxs[5]);
    for (int k = 0; k < 6; ++k) shmem_ctx_destroy(ctxs[k]);
    shmem_barrier_all();

    completion(0);
    completion(SHMEM_CTX_PRIVATE);
    completion(SHMEM_CTX_NOSTORE);
    team_contexts();

    /* contexts come and go */
    for (int r = 0; r < 200; ++r) {
        shmem_ctx_t c;
        CHECK(shmem_ctx_create(r % 2 ? SHMEM_CTX_PRIVATE : 0, &c) == 0, "create round %d", r);
        shmem_ctx_quiet(c);
        shmem_ctx_destroy(c);
    }

    mp_pass("api_ctx");
    shmem_finalize();
    return 0;
}
