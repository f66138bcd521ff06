/* A program written for Sandia OpenSHMEM's extensions (shmemx.h), built with kishmemcc and run
 * with kishmemrun on 2 or more PEs.  Every value is checked against one computed here:
 *  - shmemx_TYPENAME_ibput / _ibget (every standard RMA type), shmemx_ibputSIZE / ibgetSIZE
 *    (8..128) and shmemx_ibputmem / ibgetmem, with and without a context, and the C11 generic
 *    shmemx_ibput / shmemx_ibget: block b of bsize elements goes from source + b * sst to
 *    dest + b * dst; elements between blocks are untouched;
 *  - SHMEMX_TEAM_NODE: the PEs whose host name equals this PE's;
 *  - shmemx_pcntr_*: exact counts of this test's own operations on a private context;
 *  - SHMEMX_MALLOC_NO_BARRIER: the same address on every PE, usable after a sync;
 *  - shmemx_signal_add / _set (and the generic forms, with a context);
 *  - shmemx_TYPENAME_sum_inscan / _exscan and the generic shmemx_sum_inscan / _exscan;
 *  - shmemx_register_gettid (called before shmem_init, as SOS programs do);
 *  - shmemx_TYPENAME_atomic_*_nbi and their generic forms;
 *  - shmemx_ct_* with shmemx_putmem_ct / _getmem_ct, shmemx_wtime, shmemx_nodename and
 *    shmemx_query_initialized.
 * PE 0 prints "PASS sos_ext on N PEs" when every PE passed; a failing PE prints "FAIL: ...". */
#define _DEFAULT_SOURCE /* gethostname under -std=c11 */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* As Sandia OpenSHMEM's programs do: their own clock where the library has none (shmemx.h says
 * it has one, so this must not be compiled: it would clash with the declaration). */
#ifndef HAVE_SHMEMX_WTIME
static double shmemx_wtime(void) { return 0; }
#endif

static int g_errors = 0;
#define CHECK(cond, ...)                                                 \
    do {                                                                 \
        if (!(cond)) {                                                   \
            printf("FAIL: PE %d: ", shmem_my_pe());                      \
            printf(__VA_ARGS__);                                         \
            printf(" (line %d)\n", __LINE__);                            \
            ++g_errors;                                                  \
        }                                                                \
    } while (0)

enum { BS = 3, NB = 4, DST = 5, SST = 4, SPAN = 64 };

/* One ibput and one ibget of type T through the typed shmemx_ names (ctx: also the ctx_ form). */
#define IB_TYPE(T, N)                                                                                   \
    static void ib_##N(shmem_ctx_t ctx, int right) {                                                    \
        T *sym = shmem_calloc(2 * SPAN, sizeof(T));                                                    \
        T src[SPAN], back[SPAN];                                                                        \
        int me = shmem_my_pe(), left = (me + shmem_n_pes() - 1) % shmem_n_pes();                       \
        for (int i = 0; i < SPAN; ++i) src[i] = (T)(me * 100 + i + 1);                                  \
        shmemx_##N##_ibput(sym, src, DST, SST, BS, NB, right);                                          \
        shmemx_ctx_##N##_ibput(ctx, sym + SPAN, src, DST, SST, BS, NB, right);                          \
        shmem_ctx_quiet(ctx);                                                                           \
        shmem_barrier_all();                                                                            \
        for (int r = 0; r < 2; ++r)                                                                     \
            for (int i = 0; i < SPAN; ++i) {                                                            \
                int b = i / DST, k = i % DST;                                                           \
                T want = (b < NB && k < BS) ? (T)(left * 100 + b * SST + k + 1) : (T)0;                 \
                CHECK(sym[r * SPAN + i] == want, "shmemx_%s" #N "_ibput: dest[%d]", r ? "ctx_" : "", i); \
            }                                                                                           \
        /* ibget back from the right PE: its dest holds my src's blocks at stride DST */                \
        for (int r = 0; r < 2; ++r) {                                                                   \
            for (int i = 0; i < SPAN; ++i) back[i] = (T)-1;                                             \
            if (r == 0) shmemx_##N##_ibget(back, sym, SST, DST, BS, NB, right);                         \
            else shmemx_ctx_##N##_ibget(ctx, back, sym + SPAN, SST, DST, BS, NB, right);                \
            for (int i = 0; i < SPAN; ++i) {                                                            \
                int b = i / SST, k = i % SST;                                                           \
                T want = (b < NB && k < BS) ? (T)(me * 100 + b * SST + k + 1) : (T)-1;                  \
                CHECK(back[i] == want, "shmemx_%s" #N "_ibget: back[%d]", r ? "ctx_" : "", i);           \
            }                                                                                           \
        }                                                                                               \
        shmem_barrier_all();                                                                            \
        shmem_free(sym);                                                                                \
    }
IB_TYPE(float, float) IB_TYPE(double, double) IB_TYPE(long double, longdouble) IB_TYPE(char, char)
IB_TYPE(signed char, schar) IB_TYPE(short, short) IB_TYPE(int, int) IB_TYPE(long, long)
IB_TYPE(long long, longlong) IB_TYPE(unsigned char, uchar) IB_TYPE(unsigned short, ushort)
IB_TYPE(unsigned int, uint) IB_TYPE(unsigned long, ulong) IB_TYPE(unsigned long long, ulonglong)
IB_TYPE(int8_t, int8) IB_TYPE(int16_t, int16) IB_TYPE(int32_t, int32) IB_TYPE(int64_t, int64)
IB_TYPE(uint8_t, uint8) IB_TYPE(uint16_t, uint16) IB_TYPE(uint32_t, uint32) IB_TYPE(uint64_t, uint64)
IB_TYPE(size_t, size) IB_TYPE(ptrdiff_t, ptrdiff)

/* The sized forms move BYTES-byte elements: checked byte by byte. */
#define IB_SIZE(NAME, BYTES)                                                                            \
    static void ib_size_##NAME(shmem_ctx_t ctx, int right) {                                            \
        unsigned char *sym = shmem_calloc(2 * SPAN, BYTES), src[SPAN * BYTES], back[SPAN * BYTES];      \
        int me = shmem_my_pe(), left = (me + shmem_n_pes() - 1) % shmem_n_pes();                       \
        for (int i = 0; i < SPAN * BYTES; ++i) src[i] = (unsigned char)(me * 50 + i + 1);               \
        shmemx_ibput##NAME(sym, src, DST, SST, BS, NB, right);                                          \
        shmemx_ctx_ibput##NAME(ctx, sym + SPAN * BYTES, src, DST, SST, BS, NB, right);                  \
        shmem_ctx_quiet(ctx);                                                                           \
        shmem_barrier_all();                                                                            \
        for (int r = 0; r < 2; ++r)                                                                     \
            for (int i = 0; i < SPAN * BYTES; ++i) {                                                    \
                int e = i / BYTES, b = e / DST, k = e % DST;                                            \
                unsigned char want = (b < NB && k < BS)                                                 \
                                         ? (unsigned char)(left * 50 + (b * SST + k) * BYTES + i % BYTES + 1) \
                                         : 0;                                                           \
                CHECK(sym[r * SPAN * BYTES + i] == want, "shmemx_%sibput" #NAME ": byte %d", r ? "ctx_" : "", i); \
            }                                                                                           \
        memset(back, 0xee, sizeof back);                                                                \
        shmemx_ibget##NAME(back, sym, SST, DST, BS, NB, right);                                         \
        for (int i = 0; i < SPAN * BYTES; ++i) {                                                        \
            int e = i / BYTES, b = e / SST, k = e % SST;                                                \
            unsigned char want = (b < NB && k < BS) ? (unsigned char)(me * 50 + (b * SST + k) * BYTES + i % BYTES + 1) \
                                                    : 0xee;                                             \
            CHECK(back[i] == want, "shmemx_ibget" #NAME ": byte %d", i);                                \
        }                                                                                               \
        memset(back, 0xee, sizeof back);                                                                \
        shmemx_ctx_ibget##NAME(ctx, back, sym + SPAN * BYTES, SST, DST, BS, NB, right);                 \
        CHECK(back[0] == (unsigned char)(me * 50 + 1), "shmemx_ctx_ibget" #NAME ": byte 0 is %d", back[0]); \
        shmem_barrier_all();                                                                            \
        shmem_free(sym);                                                                                \
    }
IB_SIZE(8, 1) IB_SIZE(16, 2) IB_SIZE(32, 4) IB_SIZE(64, 8) IB_SIZE(128, 16) IB_SIZE(mem, 1)

/* The C11 generic shmemx_ibput / shmemx_ibget, with and without a context. */
static void ib_generic(shmem_ctx_t ctx, int right) {
    long *sym = shmem_calloc(SPAN, sizeof(long));
    long src[SPAN], back[SPAN];
    int me = shmem_my_pe(), left = (me + shmem_n_pes() - 1) % shmem_n_pes();
    for (int i = 0; i < SPAN; ++i) src[i] = 1000L * me + i;
    shmemx_ibput(sym, src, 2, 1, 1, 8, right);        /* 8 contiguous elements to even slots */
    shmemx_ibput(ctx, sym + 1, src + 8, 2, 1, 1, 8, right); /* the next 8 to odd slots */
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int i = 0; i < 16; ++i)
        CHECK(sym[i] == 1000L * left + (i % 2 ? 8 + i / 2 : i / 2), "generic shmemx_ibput: sym[%d] = %ld", i, sym[i]);
    shmemx_ibget(back, sym, 1, 2, 1, 8, right);
    shmemx_ibget(ctx, back + 8, sym + 1, 1, 2, 1, 8, right);
    for (int i = 0; i < 16; ++i) CHECK(back[i] == 1000L * me + i, "generic shmemx_ibget: back[%d] = %ld", i, back[i]);
    shmem_barrier_all();
    shmem_free(sym);
}

static void team_node(void) {
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    int npes = shmem_n_pes(), me = shmem_my_pe(), same = 0, my_index = 0;
    char *names = shmem_calloc((size_t)npes, sizeof host);
    char *mine = shmem_malloc(sizeof host);
    memcpy(mine, host, sizeof host);
    shmem_fcollectmem(SHMEM_TEAM_WORLD, names, mine, sizeof host);
    for (int pe = 0; pe < npes; ++pe) {
        int on_node = strcmp(names + (size_t)pe * sizeof host, host) == 0;
        if (on_node && pe < me) ++my_index;
        same += on_node;
        int idx = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEMX_TEAM_NODE);
        CHECK(on_node ? idx >= 0 : idx == -1, "SHMEMX_TEAM_NODE: world PE %d translates to %d", pe, idx);
    }
    CHECK(shmem_team_n_pes(SHMEMX_TEAM_NODE) == same, "SHMEMX_TEAM_NODE has %d PEs, %d share host %s",
          shmem_team_n_pes(SHMEMX_TEAM_NODE), same, host);
    CHECK(shmem_team_my_pe(SHMEMX_TEAM_NODE) == my_index, "SHMEMX_TEAM_NODE: my index %d, expected %d",
          shmem_team_my_pe(SHMEMX_TEAM_NODE), my_index);
    shmem_free(mine);
    shmem_free(names);
}

static void counters(int right) {
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create");
    long *sym = shmem_calloc(64, sizeof(long));
    long buf[64] = {0};
    shmemx_pcntr_t all;
    uint64_t v = 99;
    shmemx_pcntr_get_all(ctx, &all);
    CHECK(all.pending_put == 0 && all.pending_get == 0 && all.completed_put == 0 && all.completed_get == 0,
          "a new context's counts are %llu %llu %llu %llu", (unsigned long long)all.pending_put,
          (unsigned long long)all.pending_get, (unsigned long long)all.completed_put, (unsigned long long)all.completed_get);
    /* 3 puts, 1 nbi put, 1 ibput of 4 blocks, 1 non-fetching atomic, 1 put-with-signal: 11 writes;
     * 2 blocking gets, 1 g, 1 fetching atomic: 4 reads complete on return; 2 get_nbi. */
    for (int i = 0; i < 3; ++i) shmem_ctx_long_put(ctx, sym + i, buf, 1, right);
    shmem_ctx_long_put_nbi(ctx, sym + 4, buf, 2, right);
    shmemx_ctx_long_ibput(ctx, sym + 8, buf, 2, 1, 1, 4, right);
    shmem_ctx_long_atomic_add(ctx, sym + 20, 1, right);
    shmem_ctx_long_put_signal(ctx, sym + 22, buf, 1, (uint64_t *)(sym + 24), 1, SHMEM_SIGNAL_SET, right);
    shmem_ctx_long_get(ctx, buf, sym, 2, right);
    shmem_ctx_long_get(ctx, buf, sym, 1, right);
    (void)shmem_ctx_long_g(ctx, sym, right);
    (void)shmem_ctx_long_atomic_fetch_add(ctx, sym + 30, 1, right);
    shmem_ctx_long_get_nbi(ctx, buf, sym, 4, right);
    shmem_ctx_long_get_nbi(ctx, buf + 4, sym, 4, right);
    shmem_long_p(sym + 40, 1, right); /* the default context: not this one's */
    shmemx_pcntr_get_issued_write(ctx, &v);
    CHECK(v == 11, "issued writes %llu, expected 11", (unsigned long long)v);
    shmemx_pcntr_get_issued_read(ctx, &v);
    CHECK(v == 6, "issued reads %llu, expected 6", (unsigned long long)v);
    shmemx_pcntr_get_completed_write(ctx, &v);
    CHECK(v == 0, "completed writes before the quiet %llu, expected 0", (unsigned long long)v);
    shmemx_pcntr_get_completed_read(ctx, &v);
    CHECK(v == 4, "completed reads before the quiet %llu, expected 4 (the blocking ones)", (unsigned long long)v);
    shmem_ctx_quiet(ctx);
    shmemx_pcntr_get_all(ctx, &all);
    CHECK(all.pending_put == 11 && all.completed_put == 11 && all.pending_get == 6 && all.completed_get == 6,
          "after the quiet: writes %llu/%llu, reads %llu/%llu, expected 11/11 and 6/6",
          (unsigned long long)all.completed_put, (unsigned long long)all.pending_put,
          (unsigned long long)all.completed_get, (unsigned long long)all.pending_get);
    /* the default context counted its own p */
    shmemx_pcntr_get_issued_write(SHMEM_CTX_DEFAULT, &v);
    CHECK(v >= 1, "the default context's issued writes %llu, expected at least 1", (unsigned long long)v);
    shmem_barrier_all();
    /* target counts: exact under KISHMEM_PCNTR_TARGET=1 (the test runs so), 0 otherwise */
    const char *t = getenv("KISHMEM_PCNTR_TARGET");
    shmemx_pcntr_get_all(ctx, &all); /* no PE issues anything until the next barrier */
    shmemx_pcntr_get_completed_target(&v);
    CHECK(v == all.target, "two reads of the target count differ: %llu, %llu", (unsigned long long)v,
          (unsigned long long)all.target);
    if (t && !strcmp(t, "1")) {
        /* every PE sent exactly what this PE did to its right neighbour, and this PE's left
         * neighbour sent it here: ctx (11 writes, 6 reads) + the default context's p, plus what
         * the earlier parts of this program counted: read after the barrier, then a known step */
        uint64_t before = v;
        shmem_barrier_all();
        shmem_long_p(sym + 41, 2, right);
        shmem_long_p(sym + 42, 3, right);
        (void)shmem_long_g(sym + 41, right);
        shmem_barrier_all();
        shmemx_pcntr_get_completed_target(&v);
        CHECK(v == before + 3, "target count went from %llu to %llu, expected +3 (2 puts and a get from the left PE)",
              (unsigned long long)before, (unsigned long long)v);
    } else {
        CHECK(v == 0, "target count %llu without KISHMEM_PCNTR_TARGET", (unsigned long long)v);
    }
    shmem_ctx_destroy(ctx);
    shmem_free(sym);
}

static void no_barrier(int right) {
    int *a = shmem_malloc_with_hints(32 * sizeof(int), SHMEMX_MALLOC_NO_BARRIER);
    CHECK(a != NULL, "shmem_malloc_with_hints(SHMEMX_MALLOC_NO_BARRIER) returned NULL");
    for (int i = 0; i < 32; ++i) a[i] = -1;
    shmem_sync_all();
    int mine[32];
    for (int i = 0; i < 32; ++i) mine[i] = shmem_my_pe() * 32 + i;
    shmem_int_put(a, mine, 32, right);
    shmem_barrier_all();
    int left = (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes();
    for (int i = 0; i < 32; ++i) CHECK(a[i] == left * 32 + i, "NO_BARRIER block: a[%d] = %d", i, a[i]);
    shmem_barrier_all();
    shmem_free(a);
}

static void signals(shmem_ctx_t ctx, int right) {
    uint64_t *sig = shmem_calloc(4, sizeof(uint64_t));
    shmemx_signal_add(sig, 5, right);
    shmemx_signal_add(sig, 7, right);
    shmemx_signal_set(sig + 1, 42, right);
    shmemx_ctx_signal_add(ctx, sig + 2, 3, right);
    shmemx_ctx_signal_set(ctx, sig + 3, 9, right);
    shmemx_signal_add(ctx, sig + 2, 4, right); /* C11 generic with a context */
    shmemx_signal_set(sig + 3, 10, right);     /* ... and without */
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(shmem_signal_fetch(sig) == 12, "shmemx_signal_add: %llu, expected 12", (unsigned long long)sig[0]);
    CHECK(shmem_signal_fetch(sig + 1) == 42, "shmemx_signal_set: %llu", (unsigned long long)sig[1]);
    CHECK(shmem_signal_fetch(sig + 2) == 7, "shmemx_ctx_signal_add: %llu, expected 7", (unsigned long long)sig[2]);
    CHECK(shmem_signal_fetch(sig + 3) == 10, "shmemx_signal_set (generic): %llu", (unsigned long long)sig[3]);
    shmem_barrier_all();
    shmem_free(sig);
}

#define SCAN_TYPE(T, N)                                                                                 \
    static void scan_##N(void) {                                                                        \
        int me = shmem_my_pe();                                                                         \
        T *src = shmem_malloc(4 * sizeof(T)), *in = shmem_malloc(4 * sizeof(T)), *ex = shmem_malloc(4 * sizeof(T)); \
        for (int i = 0; i < 4; ++i) src[i] = (T)(me + i + 1);                                           \
        shmem_barrier_all();                                                                            \
        CHECK(shmemx_##N##_sum_inscan(SHMEM_TEAM_WORLD, in, src, 4) == 0, "shmemx_" #N "_sum_inscan");  \
        CHECK(shmemx_##N##_sum_exscan(SHMEM_TEAM_WORLD, ex, src, 4) == 0, "shmemx_" #N "_sum_exscan");  \
        for (int i = 0; i < 4; ++i) {                                                                   \
            T inc = 0, exc = 0;                                                                         \
            for (int pe = 0; pe <= me; ++pe) inc += (T)(pe + i + 1);                                    \
            for (int pe = 0; pe < me; ++pe) exc += (T)(pe + i + 1);                                     \
            CHECK(in[i] == inc, "shmemx_" #N "_sum_inscan[%d]", i);                                     \
            if (me > 0) CHECK(ex[i] == exc, "shmemx_" #N "_sum_exscan[%d]", i);                         \
        }                                                                                               \
        shmem_barrier_all();                                                                            \
        shmem_free(ex);                                                                                 \
        shmem_free(in);                                                                                 \
        shmem_free(src);                                                                                \
    }
SCAN_TYPE(int, int) SCAN_TYPE(long, long) SCAN_TYPE(double, double) SCAN_TYPE(uint64_t, uint64)

static void scan_generic(void) {
    int me = shmem_my_pe();
    long *src = shmem_malloc(2 * sizeof(long)), *dst = shmem_malloc(2 * sizeof(long));
    float *fs = shmem_malloc(sizeof(float)), *fd = shmem_malloc(sizeof(float));
    src[0] = me + 1, src[1] = 10 * (me + 1), *fs = 0.5f * (float)(me + 1);
    shmem_barrier_all();
    shmemx_sum_inscan(SHMEM_TEAM_WORLD, dst, src, 2);
    CHECK(dst[0] == (long)(me + 1) * (me + 2) / 2 && dst[1] == 10L * (me + 1) * (me + 2) / 2,
          "generic shmemx_sum_inscan: %ld %ld", dst[0], dst[1]);
    shmemx_sum_exscan(SHMEM_TEAM_WORLD, fd, fs, 1);
    if (me > 0) CHECK(*fd == 0.25f * (float)me * (float)(me + 1), "generic shmemx_sum_exscan: %g", (double)*fd);
    shmem_barrier_all();
    shmem_free(fd), shmem_free(fs), shmem_free(dst), shmem_free(src);
}

static uint64_t g_thread_number = 4242;
static uint64_t my_gettid(void) { return g_thread_number; }

static void atomics_nbi(shmem_ctx_t ctx, int right) {
    long *x = shmem_calloc(8, sizeof(long));
    unsigned int *u = shmem_calloc(2, sizeof(unsigned int));
    double *d = shmem_calloc(1, sizeof(double));
    int me = shmem_my_pe(), left = (me + shmem_n_pes() - 1) % shmem_n_pes();
    shmem_barrier_all();
    long f[8];
    unsigned int uf[2];
    double df;
    /* right's x: [0] += 5 (fetch_add), [1] ++ twice, [2] cswap 0 -> me+1, [3] swap -> 77 */
    shmemx_long_atomic_fetch_add_nbi(&f[0], x, 5, right);
    shmemx_ctx_long_atomic_fetch_inc_nbi(ctx, &f[1], x + 1, right);
    shmemx_atomic_fetch_inc_nbi(ctx, &f[2], x + 1, right);  /* generic, ctx */
    shmemx_atomic_compare_swap_nbi(&f[3], x + 2, 0L, (long)(me + 1), right);
    shmemx_long_atomic_swap_nbi(&f[4], x + 3, 77, right);
    shmemx_uint_atomic_fetch_or_nbi(&uf[0], u, 0x6u, right);
    shmemx_atomic_fetch_xor_nbi(&uf[1], u + 1, 0x5u, right);
    shmemx_double_atomic_swap_nbi(&df, d, 2.5, right);
    shmem_ctx_quiet(ctx);
    shmem_quiet();
    CHECK(f[0] == 0 && f[1] + f[2] == 1 && f[3] == 0 && f[4] == 0 && uf[0] == 0 && uf[1] == 0 && df == 0.0,
          "fetched values %ld %ld %ld %ld %ld %u %u %g", f[0], f[1], f[2], f[3], f[4], uf[0], uf[1], df);
    shmem_barrier_all();
    CHECK(x[0] == 5 && x[1] == 2 && x[2] == left + 1 && x[3] == 77, "targets %ld %ld %ld %ld", x[0], x[1], x[2], x[3]);
    CHECK(u[0] == 0x6u && u[1] == 0x5u && *d == 2.5, "targets %u %u %g", u[0], u[1], *d);
    long got = -1;
    shmemx_atomic_fetch_nbi(&got, (const long *)x + 3, right);
    shmem_quiet();
    CHECK(got == 77, "shmemx_atomic_fetch_nbi fetched %ld", got);
    shmem_barrier_all();
    shmem_free(d), shmem_free(u), shmem_free(x);
}

/* shmemx_ct_*: every PE puts to every PE (itself too) through one counter, then gets from every
 * PE through it, each time waiting for its own count; shmemx_ct_set resets it, and the data is
 * what was put.  Also shmemx_wtime (increasing), shmemx_nodename (gethostname) and
 * shmemx_query_initialized. */
static void counting(void) {
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmemx_ct_t ct = NULL;
    shmemx_ct_create(&ct);
    CHECK(ct != NULL && shmemx_ct_get(ct) == 0, "shmemx_ct_create: counter %p starts at %ld", (void *)ct,
          ct ? shmemx_ct_get(ct) : -1L);
    long *slots = shmem_calloc(npes, sizeof(long));
    long mine = 100 + me, back = -1;
    shmem_barrier_all();
    for (int i = 0; i < npes; ++i) shmemx_putmem_ct(ct, &slots[me], &mine, sizeof mine, (me + i) % npes);
    shmemx_ct_wait(ct, npes);
    for (int p = 0; p < npes; ++p) CHECK(slots[p] == 100 + p, "shmemx_putmem_ct: slot %d holds %ld", p, slots[p]);
    CHECK(shmemx_ct_get(ct) == npes, "shmemx_ct_get after %d puts: %ld", npes, shmemx_ct_get(ct));
    shmem_barrier_all();
    shmemx_ct_set(ct, -5);
    CHECK(shmemx_ct_get(ct) == -5, "shmemx_ct_set(-5): %ld", shmemx_ct_get(ct));
    shmem_barrier_all();
    for (int i = 0; i < npes; ++i) {
        int pe = (me + i) % npes;
        shmemx_getmem_ct(ct, &back, &slots[pe], sizeof back, pe);
        CHECK(back == 100 + pe, "shmemx_getmem_ct from PE %d: %ld", pe, back);
    }
    shmemx_ct_wait(ct, npes - 5);
    shmem_barrier_all();
    CHECK(shmemx_ct_get(ct) == npes - 5, "shmemx_ct_get after %d gets from -5: %ld", npes, shmemx_ct_get(ct));
    shmem_barrier_all();
    shmemx_putmem_ct(ct, slots, &mine, 0, (me + 1) % npes); /* nothing moves; it still counts */
    shmemx_ct_wait(ct, npes - 4);
    shmem_barrier_all();
    shmemx_ct_free(&ct);
    CHECK(ct == NULL, "shmemx_ct_free left %p", (void *)ct);
    shmem_free(slots);

    double t0 = shmemx_wtime();
    usleep(20000);
    double t1 = shmemx_wtime();
    CHECK(t1 - t0 >= 0.019 && t1 - t0 < 5, "shmemx_wtime: %g s across a 20 ms sleep", t1 - t0);
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    CHECK(strcmp(shmemx_nodename(), host) == 0, "shmemx_nodename: '%s', gethostname: '%s'", shmemx_nodename(), host);
    int init = -1;
    CHECK(shmemx_query_initialized(&init) == 0 && init == 1, "shmemx_query_initialized: %d", init);
}

/* Bad input (argv[1]): the job must end with a message naming the call, the PE, the thread
 * number my_gettid gives and the value. */
static void bad(const char *what, int right) {
    long *sym = shmem_calloc(64, sizeof(long));
    long src[64] = {0};
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        if (!strcmp(what, "ibput_stride")) shmemx_long_ibput(sym, src, 0, 1, 2, 4, right);
        if (!strcmp(what, "ibget_bsize")) shmemx_ctx_ibget64(SHMEM_CTX_DEFAULT, src, sym, 1, 1, (size_t)-3, 2, right);
        if (!strcmp(what, "pcntr_null")) shmemx_pcntr_get_all(SHMEM_CTX_DEFAULT, NULL);
        if (!strcmp(what, "ct_local")) shmemx_putmem_ct((shmemx_ct_t)src, sym, src, 8, right);
        if (!strcmp(what, "ct_null")) shmemx_ct_wait(NULL, 1);
        if (!strcmp(what, "ct_plain")) (void)shmemx_ct_get((shmemx_ct_t)sym); /* a heap word, not a counter */
        if (!strcmp(what, "ct_pe")) {
            shmemx_ct_t ct = (shmemx_ct_t)(sym + 1);
            shmemx_getmem_ct(ct, src, sym, 8, 7);
        }
    }
    shmem_barrier_all();
    printf("no error was raised for '%s'\n", what);
}

int main(int argc, char **argv) {
    shmemx_register_gettid(my_gettid); /* before shmem_init, as Sandia OpenSHMEM programs do */
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes;
    if (argc > 1) {
        bad(argv[1], right);
        shmem_finalize();
        return 0;
    }
    shmem_ctx_t ctx;
    if (shmem_ctx_create(0, &ctx) != 0) ctx = SHMEM_CTX_DEFAULT;
#define RUN_IB(T, N) ib_##N(ctx, right);
    RUN_IB(, float) RUN_IB(, double) RUN_IB(, longdouble) RUN_IB(, char) RUN_IB(, schar) RUN_IB(, short)
    RUN_IB(, int) RUN_IB(, long) RUN_IB(, longlong) RUN_IB(, uchar) RUN_IB(, ushort) RUN_IB(, uint)
    RUN_IB(, ulong) RUN_IB(, ulonglong) RUN_IB(, int8) RUN_IB(, int16) RUN_IB(, int32) RUN_IB(, int64)
    RUN_IB(, uint8) RUN_IB(, uint16) RUN_IB(, uint32) RUN_IB(, uint64) RUN_IB(, size) RUN_IB(, ptrdiff)
    ib_size_8(ctx, right), ib_size_16(ctx, right), ib_size_32(ctx, right), ib_size_64(ctx, right);
    ib_size_128(ctx, right), ib_size_mem(ctx, right);
    ib_generic(ctx, right);
    team_node();
    counters(right);
    no_barrier(right);
    signals(ctx, right);
    scan_int(), scan_long(), scan_double(), scan_uint64(), scan_generic();
    atomics_nbi(ctx, right);
    counting();
    if (ctx != SHMEM_CTX_DEFAULT) shmem_ctx_destroy(ctx);

    int *errors = shmem_calloc(1, sizeof(int)), *sum = shmem_calloc(1, sizeof(int));
    *errors = g_errors;
    shmem_barrier_all();
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, sum, errors, 1);
    if (me == 0 && *sum == 0) printf("PASS sos_ext on %d PEs\n", npes);
    fflush(stdout);
    shmem_finalize();
    return *sum == 0 ? 0 : 1;
}
