/* Put-with-signal conformance (OpenSHMEM 1.5 "shmem_put_signal", "shmem_put_signal_nbi",
 * "shmem_signal_fetch", "shmem_signal_wait_until").
 *
 * Rules exercised:
 *  - a PE that observes the signal observes the whole payload of that put-with-signal;
 *  - SHMEM_SIGNAL_SET writes the signal, SHMEM_SIGNAL_ADD adds to it atomically (all PEs add to
 *    one signal at once);
 *  - shmem_signal_wait_until returns the signal value that satisfied the condition;
 *  - shmem_signal_fetch reads the signal;
 *  - the signal is compatible with the other point-to-point routines (shmem_uint64_wait_until);
 *  - the blocking form's source is reusable on return, the _nbi form's after shmem_quiet;
 *  - nelems == 0 still delivers the signal and writes no data.
 * Every phase uses its own signal word: signals are only ever updated by signal operations. */
#include "api_check.h"

#define N 29
#define SENT 99
#define NSIG 512

static int me, npes, right, left;
static uint64_t *sig;
static int next_sig; /* the same sequence on every PE */

static uint64_t *fresh_signal(void) {
    CHECK(next_sig < NSIG, "out of signal words");
    return &sig[next_sig++];
}

#define SIG_TYPED(T, NAME)                                                                         \
    static void sig_##NAME(void) {                                                                 \
        T *dst = (T *)shmem_malloc(3 * N * sizeof(T));                                             \
        T src[N];                                                                                  \
        for (int i = 0; i < 3 * N; ++i) dst[i] = (T)SENT;                                          \
        uint64_t *s1 = fresh_signal(), *s2 = fresh_signal();                                       \
        for (int i = 0; i < N; ++i) src[i] = (T)api_val(me, i);                                    \
        shmem_barrier_all();                                                                       \
        shmem_##NAME##_put_signal(dst, src, N, s1, (uint64_t)(me + 1) << 8, SHMEM_SIGNAL_SET, right); \
        for (int i = 0; i < N; ++i) src[i] = (T)0; /* reusable on return */                        \
        uint64_t got = shmem_signal_wait_until(s1, SHMEM_CMP_EQ, (uint64_t)(left + 1) << 8);       \
        CHECK(got == (uint64_t)(left + 1) << 8, "shmem_signal_wait_until returned %llu", (unsigned long long)got); \
        for (int i = 0; i < N; ++i)                                                                \
            CHECK(dst[i] == (T)api_val(left, i), "shmem_" #NAME "_put_signal: element %d after the signal", i); \
        for (int i = 0; i < N; ++i) src[i] = (T)api_val(me, i + 11);                               \
        shmem_##NAME##_put_signal_nbi(dst + 2 * N, src, N, s2, 1, SHMEM_SIGNAL_ADD, right);        \
        shmem_quiet();                                                                             \
        got = shmem_signal_wait_until(s2, SHMEM_CMP_GE, 1);                                        \
        CHECK(got == 1, "signal after one SHMEM_SIGNAL_ADD of 1: %llu", (unsigned long long)got);  \
        for (int i = 0; i < N; ++i)                                                                \
            CHECK(dst[2 * N + i] == (T)api_val(left, i + 11), "shmem_" #NAME "_put_signal_nbi: element %d", i); \
        shmem_barrier_all();                                                                       \
        for (int i = N; i < 2 * N; ++i) CHECK(dst[i] == (T)SENT, "shmem_" #NAME "_put_signal wrote past its end"); \
        shmem_free(dst);                                                                           \
    }
KISHMEM_RMA_TYPES(SIG_TYPED)

#define SIG_SIZED(BITS)                                                                            \
    static void sig_size##BITS(void) {                                                             \
        enum { B = BITS / 8, NE = 11 };                                                            \
        unsigned char *dst = (unsigned char *)shmem_malloc(2 * NE * B + 1);                        \
        unsigned char src[NE * B];                                                                 \
        memset(dst, SENT, 2 * NE * B + 1);                                                         \
        uint64_t *s1 = fresh_signal(), *s2 = fresh_signal();                                       \
        for (int i = 0; i < NE * B; ++i) src[i] = (unsigned char)(me * 3 + i + BITS);              \
        shmem_barrier_all();                                                                       \
        shmem_put##BITS##_signal(dst, src, NE, s1, 7, SHMEM_SIGNAL_SET, right);                    \
        shmem_put##BITS##_signal_nbi(dst + NE * B, src, NE, s2, 9, SHMEM_SIGNAL_SET, right);       \
        shmem_quiet();                                                                             \
        CHECK(shmem_signal_wait_until(s1, SHMEM_CMP_EQ, 7) == 7, "shmem_put" #BITS "_signal: signal"); \
        CHECK(shmem_signal_wait_until(s2, SHMEM_CMP_NE, 0) == 9, "shmem_put" #BITS "_signal_nbi: signal"); \
        for (int i = 0; i < NE * B; ++i) {                                                         \
            unsigned char want = (unsigned char)(left * 3 + i + BITS);                             \
            CHECK(dst[i] == want, "shmem_put" #BITS "_signal: byte %d", i);                        \
            CHECK(dst[NE * B + i] == want, "shmem_put" #BITS "_signal_nbi: byte %d", i);           \
        }                                                                                          \
        CHECK(dst[2 * NE * B] == SENT, "shmem_put" #BITS "_signal_nbi wrote past its end");        \
        shmem_barrier_all();                                                                       \
        shmem_free(dst);                                                                           \
    }
KISHMEM_RMA_SIZES(SIG_SIZED)

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    sig = shmem_calloc(NSIG, sizeof(uint64_t));
    CHECK(SHMEM_SIGNAL_SET != SHMEM_SIGNAL_ADD, "SHMEM_SIGNAL_SET == SHMEM_SIGNAL_ADD");

#define CALL_TYPED(T, NAME) sig_##NAME();
    KISHMEM_RMA_TYPES(CALL_TYPED)
#define CALL_SIZED(BITS) sig_size##BITS();
    KISHMEM_RMA_SIZES(CALL_SIZED)

    /* SHMEM_SIGNAL_ADD from every PE to every PE, each into its own slot, blocking and nbi */
    {
        const int K = 100;
        int *slots = shmem_malloc(sizeof(int) * K * (size_t)npes * 2);
        int src[100];
        uint64_t *s = fresh_signal(), *snbi = fresh_signal();
        for (int i = 0; i < K; ++i) src[i] = me * 1000 + i;
        shmem_barrier_all();
        for (int k = 0; k < npes; ++k) {
            int pe = (me + k) % npes;
            shmem_putmem_signal(&slots[me * K], src, K * sizeof(int), s, 1, SHMEM_SIGNAL_ADD, pe);
            shmem_putmem_signal_nbi(&slots[(npes + me) * K], src, K * sizeof(int), snbi, 2, SHMEM_SIGNAL_ADD, pe);
        }
        shmem_quiet();
        uint64_t got = shmem_signal_wait_until(s, SHMEM_CMP_EQ, (uint64_t)npes);
        CHECK(got == (uint64_t)npes, "SHMEM_SIGNAL_ADD from %d PEs: %llu", npes, (unsigned long long)got);
        got = shmem_signal_wait_until(snbi, SHMEM_CMP_GE, 2 * (uint64_t)npes);
        CHECK(got == 2 * (uint64_t)npes, "nbi SHMEM_SIGNAL_ADD from %d PEs: %llu", npes, (unsigned long long)got);
        CHECK(shmem_signal_fetch(s) == (uint64_t)npes, "shmem_signal_fetch: %llu", (unsigned long long)shmem_signal_fetch(s));
        for (int pe = 0; pe < npes; ++pe)
            for (int i = 0; i < K; ++i) {
                CHECK(slots[pe * K + i] == pe * 1000 + i, "putmem_signal from PE %d element %d", pe, i);
                CHECK(slots[(npes + pe) * K + i] == pe * 1000 + i, "putmem_signal_nbi from PE %d element %d", pe, i);
            }
        shmem_barrier_all();
        shmem_free(slots);
    }

    /* a large payload: the signal must not overtake any part of it */
    {
        const size_t big = (size_t)2 << 20;
        unsigned char *dst = shmem_calloc(big, 1), *src = malloc(big);
        uint64_t *s = fresh_signal();
        for (size_t i = 0; i < big; ++i) src[i] = (unsigned char)(i * 7 + (i >> 10) + me);
        shmem_barrier_all();
        shmem_putmem_signal(dst, src, big, s, 0xABCDEF, SHMEM_SIGNAL_SET, right);
        shmem_uint64_wait_until(s, SHMEM_CMP_EQ, 0xABCDEF); /* signals work with wait_until too */
        for (size_t i = 0; i < big; ++i)
            if (dst[i] != (unsigned char)(i * 7 + (i >> 10) + left)) CHECK(0, "2 MiB putmem_signal: byte %zu", i);
        shmem_barrier_all();
        free(src);
        shmem_free(dst);
    }

    /* zero-length payloads: the signal is still delivered, nothing else is written */
    {
        long *dst = shmem_malloc(4 * sizeof(long));
        long src[4] = {1, 2, 3, 4};
        for (int i = 0; i < 4; ++i) dst[i] = SENT;
        uint64_t *s1 = fresh_signal(), *s2 = fresh_signal(), *s3 = fresh_signal();
        shmem_barrier_all();
        shmem_long_put_signal(dst, src, 0, s1, 5, SHMEM_SIGNAL_SET, right);
        shmem_putmem_signal_nbi(dst, src, 0, s2, 6, SHMEM_SIGNAL_ADD, right);
        shmem_put64_signal(NULL, NULL, 0, s3, 8, SHMEM_SIGNAL_SET, right);
        shmem_quiet();
        CHECK(shmem_signal_wait_until(s1, SHMEM_CMP_EQ, 5) == 5, "zero-length put_signal: signal");
        CHECK(shmem_signal_wait_until(s2, SHMEM_CMP_EQ, 6) == 6, "zero-length putmem_signal_nbi: signal");
        CHECK(shmem_signal_wait_until(s3, SHMEM_CMP_EQ, 8) == 8, "zero-length put64_signal: signal");
        for (int i = 0; i < 4; ++i) CHECK(dst[i] == SENT, "zero-length put_signal wrote element %d", i);
        shmem_barrier_all();
        shmem_free(dst);
    }

    /* SHMEM_SIGNAL_SET overwrites, SHMEM_SIGNAL_ADD accumulates on top of it; the comparison
     * operators of signal_wait_until */
    {
        uint64_t *s = fresh_signal();
        long *dst = shmem_malloc(sizeof(long));
        long one = me;
        shmem_barrier_all();
        shmem_long_put_signal(dst, &one, 1, s, 100, SHMEM_SIGNAL_SET, right);
        CHECK(shmem_signal_wait_until(s, SHMEM_CMP_GT, 99) == 100, "signal_wait_until GT");
        shmem_barrier_all();
        shmem_long_put_signal(dst, &one, 1, s, 5, SHMEM_SIGNAL_ADD, right);
        CHECK(shmem_signal_wait_until(s, SHMEM_CMP_NE, 100) == 105, "SET then ADD gives 105");
        CHECK(shmem_signal_wait_until(s, SHMEM_CMP_LE, 105) == 105, "signal_wait_until LE");
        CHECK(shmem_signal_wait_until(s, SHMEM_CMP_LT, 106) == 105, "signal_wait_until LT");
        CHECK(shmem_signal_wait_until(s, SHMEM_CMP_GE, 105) == 105, "signal_wait_until GE");
        CHECK(*dst == left, "payload with the signal: %ld", *dst);
        shmem_barrier_all();
        shmem_long_put_signal(dst, &one, 1, s, 3, SHMEM_SIGNAL_SET, right);
        CHECK(shmem_signal_wait_until(s, SHMEM_CMP_EQ, 3) == 3, "SET after ADD");
        CHECK(shmem_signal_fetch(s) == 3, "signal_fetch after SET");
        shmem_barrier_all();
        shmem_free(dst);
    }

    shmem_free(sig);
    mp_pass("api_signal");
    shmem_finalize();
    return 0;
}
