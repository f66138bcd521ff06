/* RMA conformance (OpenSHMEM 1.5 sections "Remote Memory Access Routines" and "Non-blocking
 * Remote Memory Access Routines"): put, get, p, g, iput, iget and the _nbi forms, for every
 * standard RMA type, every size (8..128) and mem; checked element by element, including the
 * gaps a strided transfer must leave alone and the elements past the end of every transfer.
 *
 * Rules exercised:
 *  - a blocking put returns once the source may be reused (the source is overwritten right
 *    after the call; the target must still see the old values);
 *  - a blocking get returns once the data is in the local buffer;
 *  - put_nbi / get_nbi complete at shmem_quiet;
 *  - shmem_fence orders puts to the same PE, shmem_quiet completes them;
 *  - iput / iget: dest[i * dst] = source[i * sst] for i < nelems, nothing else is written;
 *  - nelems == 0 moves nothing and, per the spec annex on null pointers, accepts NULL
 *    pointers. */
#include "api_check.h"

#define N 37       /* elements per typed transfer: odd, not a multiple of a word */
#define SENT 99    /* sentinel: never produced by api_val (1..50) */
#define STRIDED 12 /* iput / iget element count: 3 * (STRIDED - 1) < N */

static int me, npes, right, left;

#define RMA_TYPED(T, NAME)                                                                         \
    static void rma_##NAME(void) {                                                                 \
        T *sym = (T *)shmem_malloc(5 * N * sizeof(T));                                             \
        T src[N], back[N], src2[N], back2[N], ssrc[2 * STRIDED], sback[2 * STRIDED];               \
        CHECK(sym != NULL, #NAME ": shmem_malloc");                                                \
        for (int i = 0; i < 5 * N; ++i) sym[i] = (T)SENT;                                          \
        for (int i = 0; i < N; ++i) src[i] = (T)api_val(me, i);                                    \
        shmem_barrier_all();                                                                       \
        /* blocking put; the source is reusable on return */                                       \
        shmem_##NAME##_put(sym, src, N, right);                                                    \
        for (int i = 0; i < N; ++i) src[i] = (T)0;                                                 \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < N; ++i)                                                                \
            CHECK(sym[i] == (T)api_val(left, i), "shmem_" #NAME "_put: element %d from PE %d", i, left); \
        /* blocking get: right's block came from me */                                             \
        for (int i = 0; i < N; ++i) back[i] = (T)SENT;                                             \
        shmem_##NAME##_get(back, sym, N, right);                                                   \
        for (int i = 0; i < N; ++i)                                                                \
            CHECK(back[i] == (T)api_val(me, i), "shmem_" #NAME "_get: element %d from PE %d", i, right); \
        /* p and g */                                                                              \
        shmem_##NAME##_p(&sym[N], (T)(me % 90 + 1), right);                                        \
        shmem_barrier_all();                                                                       \
        CHECK(sym[N] == (T)(left % 90 + 1), "shmem_" #NAME "_p: got a value not from PE %d", left); \
        CHECK(sym[N + 1] == (T)SENT, "shmem_" #NAME "_p wrote past its element");                  \
        CHECK(shmem_##NAME##_g(&sym[N], right) == (T)(me % 90 + 1), "shmem_" #NAME "_g from PE %d", right); \
        /* nbi: complete at quiet (the source is kept until then) */                               \
        for (int i = 0; i < N; ++i) src2[i] = (T)api_val(me, i + 5);                               \
        shmem_##NAME##_put_nbi(&sym[2 * N], src2, N, right);                                       \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < N; ++i)                                                                \
            CHECK(sym[2 * N + i] == (T)api_val(left, i + 5), "shmem_" #NAME "_put_nbi: element %d", i); \
        for (int i = 0; i < N; ++i) back2[i] = (T)SENT;                                            \
        shmem_##NAME##_get_nbi(back2, &sym[2 * N], N, right);                                      \
        shmem_quiet();                                                                             \
        for (int i = 0; i < N; ++i)                                                                \
            CHECK(back2[i] == (T)api_val(me, i + 5), "shmem_" #NAME "_get_nbi: element %d after quiet", i); \
        /* iput: dest stride 3, source stride 2 */                                                 \
        for (int i = 0; i < 2 * STRIDED; ++i) ssrc[i] = (i % 2) ? (T)SENT : (T)api_val(me, i / 2 + 9); \
        shmem_##NAME##_iput(&sym[3 * N], ssrc, 3, 2, STRIDED, right);                              \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < N; ++i) {                                                              \
            T want = (i % 3 == 0 && i / 3 < STRIDED) ? (T)api_val(left, i / 3 + 9) : (T)SENT;      \
            CHECK(sym[3 * N + i] == want, "shmem_" #NAME "_iput: dest element %d", i);             \
        }                                                                                          \
        /* iget: source stride 3, dest stride 2 */                                                 \
        for (int i = 0; i < 2 * STRIDED; ++i) sback[i] = (T)SENT;                                  \
        shmem_##NAME##_iget(sback, &sym[3 * N], 2, 3, STRIDED, right);                             \
        for (int i = 0; i < 2 * STRIDED; ++i) {                                                    \
            T want = (i % 2) ? (T)SENT : (T)api_val(me, i / 2 + 9);                                \
            CHECK(sback[i] == want, "shmem_" #NAME "_iget: dest element %d", i);                   \
        }                                                                                          \
        /* zero length, with real and with null pointers: nothing moves */                         \
        shmem_##NAME##_put(&sym[4 * N], src, 0, right);                                            \
        shmem_##NAME##_put(NULL, NULL, 0, right);                                                  \
        shmem_##NAME##_get(back, &sym[4 * N], 0, right);                                           \
        shmem_##NAME##_get(NULL, NULL, 0, right);                                                  \
        shmem_##NAME##_put_nbi(&sym[4 * N], src, 0, right);                                        \
        shmem_##NAME##_get_nbi(back, &sym[4 * N], 0, right);                                       \
        shmem_##NAME##_iput(&sym[4 * N], src, 1, 1, 0, right);                                     \
        shmem_##NAME##_iget(back, &sym[4 * N], 1, 1, 0, right);                                    \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < N; ++i) CHECK(sym[4 * N + i] == (T)SENT, "zero-length " #NAME " wrote element %d", i); \
        for (int i = 0; i < N; ++i) CHECK(back[i] == (T)api_val(me, i), "zero-length shmem_" #NAME "_get wrote element %d", i); \
        shmem_barrier_all();                                                                       \
        shmem_free(sym);                                                                           \
    }
KISHMEM_RMA_TYPES(RMA_TYPED)

/* Sized forms: BITS-bit elements; compared byte by byte. */
#define RMA_SIZED(BITS)                                                                            \
    static void rma_size##BITS(void) {                                                             \
        enum { B = BITS / 8, NE = 19 };                                                            \
        unsigned char *sym = (unsigned char *)shmem_malloc(4 * NE * B);                            \
        unsigned char src[NE * B], back[NE * B], ssrc[2 * NE * B];                                 \
        memset(sym, SENT, 4 * NE * B);                                                             \
        for (int i = 0; i < NE * B; ++i) src[i] = (unsigned char)(me * 13 + i * 7 + BITS);         \
        shmem_barrier_all();                                                                       \
        shmem_put##BITS(sym, src, NE, right);                                                      \
        shmem_put##BITS##_nbi(sym + NE * B, src, NE, right);                                       \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < NE * B; ++i) {                                                         \
            unsigned char want = (unsigned char)(left * 13 + i * 7 + BITS);                        \
            CHECK(sym[i] == want, "shmem_put" #BITS ": byte %d", i);                               \
            CHECK(sym[NE * B + i] == want, "shmem_put" #BITS "_nbi: byte %d", i);                  \
        }                                                                                          \
        memset(back, 0, sizeof back);                                                              \
        shmem_get##BITS(back, sym, NE, right);                                                     \
        CHECK(memcmp(back, src, NE * B) == 0, "shmem_get" #BITS " from PE %d", right);             \
        memset(back, 0, sizeof back);                                                              \
        shmem_get##BITS##_nbi(back, sym + NE * B, NE, right);                                      \
        shmem_quiet();                                                                             \
        CHECK(memcmp(back, src, NE * B) == 0, "shmem_get" #BITS "_nbi from PE %d", right);         \
        /* strided: element k of the source (stride 2) to element 3k of dest */                    \
        for (int i = 0; i < 2 * NE * B; ++i) ssrc[i] = (unsigned char)(me + i * 3 + 1);            \
        shmem_iput##BITS(sym + 2 * NE * B, ssrc, 3, 2, 6, right);                                  \
        shmem_barrier_all();                                                                       \
        for (int e = 0; e < NE; ++e)                                                               \
            for (int b = 0; b < B; ++b) {                                                          \
                unsigned char got = sym[2 * NE * B + e * B + b];                                   \
                unsigned char want = (e % 3 == 0 && e / 3 < 6)                                     \
                                         ? (unsigned char)(left + ((e / 3) * 2 * B + b) * 3 + 1)   \
                                         : (unsigned char)SENT;                                    \
                CHECK(got == want, "shmem_iput" #BITS ": element %d byte %d is %d, want %d", e, b, got, want); \
            }                                                                                      \
        memset(back, SENT, sizeof back);                                                           \
        shmem_iget##BITS(back, sym + 2 * NE * B, 2, 3, 6, right);                                  \
        for (int e = 0; e < NE; ++e)                                                               \
            for (int b = 0; b < B; ++b) {                                                          \
                unsigned char want = (e % 2 == 0 && e / 2 < 6)                                     \
                                         ? (unsigned char)(me + ((e / 2) * 2 * B + b) * 3 + 1)     \
                                         : (unsigned char)SENT;                                    \
                CHECK(back[e * B + b] == want, "shmem_iget" #BITS ": element %d byte %d", e, b);   \
            }                                                                                      \
        shmem_put##BITS(sym + 3 * NE * B, src, 0, right);                                          \
        shmem_put##BITS##_nbi(NULL, NULL, 0, right);                                               \
        shmem_get##BITS(back, sym + 3 * NE * B, 0, right);                                         \
        shmem_get##BITS##_nbi(NULL, NULL, 0, right);                                               \
        shmem_iput##BITS(sym + 3 * NE * B, src, 1, 1, 0, right);                                   \
        shmem_iget##BITS(back, sym + 3 * NE * B, 1, 1, 0, right);                                  \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < NE * B; ++i) CHECK(sym[3 * NE * B + i] == SENT, "zero-length " #BITS "-bit transfer wrote byte %d", i); \
        shmem_barrier_all();                                                                       \
        shmem_free(sym);                                                                           \
    }
KISHMEM_RMA_SIZES(RMA_SIZED)

/* putmem / getmem: odd lengths at odd offsets, and a large transfer. */
static void rma_mem(void) {
    const size_t big = (size_t)3 << 20; /* 3 MiB: larger than any single-message path */
    unsigned char *sym = shmem_malloc(big + 64);
    unsigned char *src = malloc(big), *back = malloc(big);
    CHECK(sym && src && back, "allocations");
    static const size_t lens[] = {1, 7, 63, 4099};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; ++k) {
        size_t len = lens[k], off = 3 + k; /* misaligned on purpose */
        memset(sym, SENT, len + 16);
        for (size_t i = 0; i < len; ++i) src[i] = (unsigned char)(me + i * 5 + k);
        shmem_barrier_all();
        if (k % 2) shmem_putmem(sym + off, src, len, right);
        else shmem_putmem_nbi(sym + off, src, len, right);
        shmem_quiet();
        shmem_barrier_all();
        for (size_t i = 0; i < off; ++i) CHECK(sym[i] == SENT, "putmem of %zu bytes wrote before its start", len);
        for (size_t i = 0; i < len; ++i)
            CHECK(sym[off + i] == (unsigned char)(left + i * 5 + k), "putmem %zu bytes: byte %zu", len, i);
        CHECK(sym[off + len] == SENT, "putmem of %zu bytes wrote past its end", len);
        memset(back, 0, len + 1);
        if (k % 2) shmem_getmem_nbi(back, sym + off, len, right);
        else shmem_getmem(back, sym + off, len, right);
        shmem_quiet();
        CHECK(memcmp(back, src, len) == 0 && back[len] == 0, "getmem of %zu bytes", len);
        shmem_barrier_all();
    }
    for (size_t i = 0; i < big; ++i) src[i] = (unsigned char)((i >> 12) + i + me);
    shmem_putmem(sym, src, big, right);
    memset(src, 0, big); /* reusable on return */
    shmem_barrier_all();
    for (size_t i = 0; i < big; ++i)
        if (sym[i] != (unsigned char)((i >> 12) + i + left)) CHECK(0, "3 MiB putmem: byte %zu is %d", i, sym[i]);
    shmem_getmem(back, sym, big, right);
    for (size_t i = 0; i < big; ++i)
        if (back[i] != (unsigned char)((i >> 12) + i + me)) CHECK(0, "3 MiB getmem: byte %zu is %d", i, back[i]);
    shmem_putmem(NULL, NULL, 0, right);
    shmem_getmem(NULL, NULL, 0, right);
    shmem_putmem_nbi(NULL, NULL, 0, right);
    shmem_getmem_nbi(NULL, NULL, 0, right);
    shmem_quiet();
    shmem_barrier_all();
    free(src);
    free(back);
    shmem_free(sym);
}

/* Ordering: data, fence, flag (same target PE): a PE that sees the flag sees the data.  Then the
 * same with quiet, and a put to the calling PE itself, complete after quiet. */
static void rma_ordering(void) {
    const size_t n = 1 << 16; /* longs: 512 KiB */
    long *data = shmem_calloc(n, sizeof(long));
    long *flag = shmem_calloc(2, sizeof(long));
    long *src = malloc(n * sizeof(long));
    for (int round = 1; round <= 3; ++round) {
        for (size_t i = 0; i < n; ++i) src[i] = (long)i * 3 + me + round;
        shmem_barrier_all();
        shmem_long_put(data, src, n, right);
        if (round == 2) shmem_quiet();
        else shmem_fence();
        shmem_long_atomic_set(&flag[0], round, right);
        shmem_long_wait_until(&flag[0], SHMEM_CMP_EQ, round);
        for (size_t i = 0; i < n; ++i)
            if (data[i] != (long)i * 3 + left + round)
                CHECK(0, "round %d (%s): element %zu = %ld after the flag from PE %d", round,
                      round == 2 ? "quiet" : "fence", i, data[i], left);
        shmem_barrier_all();
    }
    /* put to self, complete at quiet */
    long mine[8];
    for (int i = 0; i < 8; ++i) mine[i] = 1000 + me * 10 + i;
    shmem_long_put(&data[n - 8], mine, 8, me);
    shmem_quiet();
    for (int i = 0; i < 8; ++i) CHECK(data[n - 8 + i] == 1000 + me * 10 + i, "put to self, element %d", i);
    CHECK(shmem_long_g(&data[n - 1], me) == 1000 + me * 10 + 7, "g from self");
    shmem_barrier_all();
    free(src);
    shmem_free(flag);
    shmem_free(data);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

#define RMA_CALL(T, NAME) rma_##NAME();
    KISHMEM_RMA_TYPES(RMA_CALL)
#define RMA_SIZE_CALL(BITS) rma_size##BITS();
    KISHMEM_RMA_SIZES(RMA_SIZE_CALL)
    rma_mem();
    rma_ordering();

    mp_pass("api_rma");
    shmem_finalize();
    return 0;
}
