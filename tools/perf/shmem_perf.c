/*
 * shmem_perf.c - host-side OpenSHMEM micro-benchmarks.
 *
 * Written against the plain OpenSHMEM 1.4 C API only, so that the same source
 * can be built against kishmem and against any other OpenSHMEM (for example
 * Open MPI's OSHMEM via `oshcc`) and the results compared one to one.
 *
 * Tests (PE 0 <-> PE 1 unless noted; other PEs only join the barriers):
 *   put_lat      ping-pong: putmem + fence + flag put, peer waits on the flag
 *                and answers the same way; reports half the round trip (us)
 *   get_lat      blocking getmem from PE 1 (us per call)
 *   p_lat        shmem_long_p + shmem_quiet (us per pair)
 *   put_bw       windows of 64 putmem without quiet, then one quiet (MB/s,
 *                1 MB = 1e6 bytes)
 *   amo_lat      shmem_long_atomic_fetch_add latency (us)
 *   amo_rate     shmem_long_atomic_add issue rate, one quiet at the end (Mops/s)
 *   barrier_lat  shmem_barrier_all over all PEs (us, maximum over the PEs)
 *   put_lat_static, get_lat_static
 *                as put_lat / get_lat, on static arrays instead of shmem_malloc
 *   p_pingpong   ping-pong of one shmem_long_p, the peer wait_until's it and
 *                answers the same way; half the round trip (us; heap)
 *   p_pingpong_static  the same on a static long
 *   pingpong_raw the same ping-pong with plain volatile stores and loads through
 *                shmem_ptr (a PAUSE between two polls), no library call in the loop: the floor of the
 *                placement (how fast the two PEs' cores pass a cache line)
 *   barrier_as_static  shmem_barrier(0, 0, npes, pSync), the deprecated
 *                active-set form, on a static pSync (us, maximum over the PEs)
 *
 * Every value is the median of several repetitions; each repetition is the
 * mean over its iterations.  Delivered data is validated while measuring.
 */
#define _POSIX_C_SOURCE 200809L

#include <shmem.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef PERF_IMPL
#define PERF_IMPL "shmem"
#endif

/* OpenSHMEM < 1.4 names the atomics shmem_long_fadd / shmem_long_add. */
#if defined(PERF_USE_LEGACY_AMO) ||                                        \
    (defined(SHMEM_MAJOR_VERSION) && defined(SHMEM_MINOR_VERSION) &&       \
     (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION) < 104)
#define PERF_FETCH_ADD(p, v, pe) shmem_long_fadd((p), (v), (pe))
#define PERF_ADD(p, v, pe) shmem_long_add((p), (v), (pe))
#else
#define PERF_FETCH_ADD(p, v, pe) shmem_long_atomic_fetch_add((p), (v), (pe))
#define PERF_ADD(p, v, pe) shmem_long_atomic_add((p), (v), (pe))
#endif

/* The spin-loop hint pingpong_raw puts between two polls (x86 PAUSE, Arm YIELD): the fastest
 * way found to wait for a cache line another core writes, so the floor is the best a loop can do. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define PERF_RELAX() __builtin_ia32_pause()
#elif defined(__GNUC__) && defined(__aarch64__)
#define PERF_RELAX() __asm__ __volatile__("yield" ::: "memory")
#else
#define PERF_RELAX() ((void)0)
#endif

#define BW_WINDOW 64
#define MAX_REPS 5
#define BIG_SIZE (64u * 1024u)             /* iterations scale down above this */
#define BW_BYTES_PER_REP (512ull << 20)    /* cap on bytes moved per put_bw rep */

enum { T_PUT_LAT, T_PUT_LAT_STATIC, T_GET_LAT, T_GET_LAT_STATIC, T_P_LAT, T_P_PINGPONG, T_P_PINGPONG_STATIC,
       T_PUT_BW, T_AMO_LAT, T_AMO_RATE, T_BARRIER_LAT, T_BARRIER_AS_STATIC, T_BCAST_LAT, T_REDUCE_LAT,
       T_ALLTOALL_LAT, T_PINGPONG_RAW, T_COUNT };

static const char *const test_names[T_COUNT] = {
    "put_lat", "put_lat_static", "get_lat", "get_lat_static", "p_lat", "p_pingpong", "p_pingpong_static",
    "put_bw", "amo_lat", "amo_rate", "barrier_lat", "barrier_as_static", "bcast_lat", "reduce_lat",
    "alltoall_lat", "pingpong_raw"};

static const char *const test_desc[T_COUNT] = {
    "putmem ping-pong PE0<->PE1 (fence + flag), one-way latency",
    "putmem ping-pong PE0<->PE1 (fence + flag) on static arrays, one-way latency",
    "blocking getmem PE0 <- PE1, latency per call",
    "blocking getmem PE0 <- PE1 from a static array, latency per call",
    "shmem_long_p + shmem_quiet PE0 -> PE1, latency per pair",
    "shmem_long_p + wait_until ping-pong PE0<->PE1 (heap), one-way latency",
    "shmem_long_p + wait_until ping-pong PE0<->PE1 on a static long, one-way latency",
    "putmem PE0 -> PE1, windows of 64 puts then quiet, bandwidth",
    "long atomic fetch_add PE0 -> PE1, latency",
    "long atomic add (non-fetching) PE0 -> PE1, issue rate",
    "shmem_barrier_all over all PEs, latency (max over PEs)",
    "shmem_barrier(0, 0, npes, pSync) on a static pSync, latency (max over PEs)",
    "shmem_broadcast64 from PE 0 to all PEs, latency per call (max over PEs)",
    "shmem_long_sum_to_all over all PEs, latency per call (max over PEs)",
    "shmem_alltoall64 over all PEs (size bytes per PE pair), latency per call (max over PEs)",
    "volatile store + spin ping-pong PE0<->PE1 through shmem_ptr (the placement's floor), one-way latency"};

/* ---------------------------------------------------------------- state */

static int me, npes;
static int quiet_mode;
static size_t min_size = 8, max_size = 4u << 20;
static long opt_iters = 1000, opt_warmup = 100;
static const char *csv_path;
static FILE *csv;

/* Symmetric objects. */
static unsigned char *sbuf;   /* source of puts, target of gets' remote side */
static unsigned char *rbuf;   /* destination of puts / local side of gets */
static long *flag;            /* [0] ping-pong flag, [1] p_lat cell, [2] atomic counter, [3] p ping-pong, [5..6] raw ping-pong */
static double *gather;        /* per-PE doubles collected on PE 0 */
static long seq;              /* ping-pong sequence, same on both sides */

/* Static (global) symmetric objects: the *_static tests use these instead of the heap.  The
 * sizes the static tests sweep stop at STATIC_MAX. */
#define STATIC_MAX (1u << 20)
static _Alignas(64) unsigned char st_sbuf[STATIC_MAX];
static _Alignas(64) unsigned char st_rbuf[STATIC_MAX];
static _Alignas(64) long st_flag[8]; /* [0] put ping-pong, [4] p ping-pong */
static long st_psync[SHMEM_BARRIER_SYNC_SIZE];
static long st_check[2];                               /* barrier_as_static's own check */

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static void die(const char *fmt, const char *test, size_t size, long a, long b)
{
    fprintf(stderr, "shmem_perf[%s] PE %d: VALIDATION FAILED in %s size %zu: ", PERF_IMPL, me,
            test, size);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    fflush(stderr);
    fflush(stdout);
    /* Leave without finalize: the launcher then tears the whole job down. */
    _Exit(3);
}

static void progress(const char *fmt, const char *a, double b)
{
    if (quiet_mode || me != 0)
        return;
    fprintf(stderr, "[%s] ", PERF_IMPL);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    fflush(stderr);
}

/* --------------------------------------------------------- data pattern */

static unsigned char pat(size_t i, int seed)
{
    return (unsigned char)((i * 131u) ^ (i >> 9) ^ (unsigned)(seed * 77 + 5));
}

static void fill(unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pat(i, seed);
}

/* Checks b[0 .. n-2] against the pattern and b[n-1] against tag. */
static void check_all(const char *test, const unsigned char *b, size_t n, int seed, unsigned char tag)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (b[i] != pat(i, seed))
            die("byte %ld is 0x%02lx, differs from the pattern", test, n, (long)i, (long)b[i]);
    if (b[n - 1] != tag)
        die("last byte is %ld, expected %ld", test, n, (long)b[n - 1], (long)tag);
}

/* ---------------------------------------------------------- statistics */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct result {
    double med, min, max;
    long iters;
    int reps;
};

static struct result summarize(double *v, int reps, long iters)
{
    struct result r;
    qsort(v, (size_t)reps, sizeof(double), cmp_double);
    r.min = v[0];
    r.max = v[reps - 1];
    r.med = (reps & 1) ? v[reps / 2] : 0.5 * (v[reps / 2 - 1] + v[reps / 2]);
    r.iters = iters;
    r.reps = reps;
    return r;
}

/* Iterations for one repetition at this size; large sizes get fewer. */
static long scale(long base, size_t size, long floor_)
{
    long n = base;
    if (size > BIG_SIZE)
        n = (long)((double)base * (double)BIG_SIZE / (double)size);
    if (n < floor_)
        n = floor_;
    return n;
}

/* ------------------------------------------------------------- output */

static void table_header(int t)
{
    if (me != 0)
        return;
    printf("\n# %s: %s\n", test_names[t], test_desc[t]);
    printf("# impl=%s npes=%d; value = median of reps, min/max over reps\n", PERF_IMPL, npes);
    printf("%12s %14s %14s %14s  %-7s %s\n", "size_bytes", "value", "min", "max", "unit",
           "iters x reps");
}

static void emit(int t, size_t size, struct result r, const char *unit)
{
    if (me != 0)
        return;
    printf("%12zu %14.3f %14.3f %14.3f  %-7s %ld x %d\n", size, r.med, r.min, r.max, unit,
           r.iters, r.reps);
    fflush(stdout);
    if (csv) {
        fprintf(csv, "%s,%zu,%.6g,%s,%d,%s\n", test_names[t], size, r.med, unit, npes, PERF_IMPL);
        fflush(csv);
    }
}

/* ---------------------------------------------------------------- tests */

static void run_put_lat(int t, size_t size, unsigned char *sbuf, unsigned char *rbuf, long *fl)
{
    const char *tn = test_names[t];
    int reps = MAX_REPS;
    long iters = scale(opt_iters, size, 10), warm = scale(opt_warmup, size, 2);
    double v[MAX_REPS];
    int peer = 1 - me;
    long last_rx = -1;

    fill(sbuf, size, me);
    shmem_barrier_all();
    /* No barrier between repetitions: the ping-pong keeps the pair in step. */
    for (int r = 0; r < reps && me < 2; r++) {
        double t0 = 0;
        for (long i = 0; i < warm + iters; i++) {
            if (i == warm)
                t0 = now_us();
            if (me == 0) {
                ++seq;
                sbuf[size - 1] = (unsigned char)seq;
                shmem_putmem(rbuf, sbuf, size, peer);
                shmem_fence();
                shmem_long_p(fl, seq, peer);
            }
            ++seq;
            shmem_long_wait_until(fl, SHMEM_CMP_GE, seq);
            if (rbuf[size - 1] != (unsigned char)seq)
                die("last byte is %ld, expected %ld", tn, size, rbuf[size - 1],
                    (unsigned char)seq);
            last_rx = seq;
            if (me == 1) {
                ++seq;
                sbuf[size - 1] = (unsigned char)seq;
                shmem_putmem(rbuf, sbuf, size, peer);
                shmem_fence();
                shmem_long_p(fl, seq, peer);
            }
        }
        v[r] = (now_us() - t0) / (double)iters / 2.0;
    }
    shmem_quiet();
    shmem_barrier_all();
    if (me < 2)
        check_all(tn, rbuf, size, peer, (unsigned char)last_rx);
    if (me == 0)
        emit(t, size, summarize(v, reps, iters), "us");
}

static void run_get_lat(int t, size_t size, unsigned char *sbuf, unsigned char *rbuf)
{
    const char *tn = test_names[t];
    int reps = MAX_REPS;
    long iters = scale(opt_iters, size, 10), warm = scale(opt_warmup, size, 2);
    double v[MAX_REPS];
    const unsigned char tag = (unsigned char)(0xA5 ^ (size & 0xff));

    /* The remote source carries PE 1's pattern and a size-dependent last byte. */
    fill(sbuf, size, me);
    sbuf[size - 1] = tag;
    shmem_barrier_all();
    for (int r = 0; r < reps; r++) {
        if (me == 0) {
            double t0 = 0;
            for (long i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = now_us();
                rbuf[size - 1] = (unsigned char)~tag; /* a stale copy must not pass */
                shmem_getmem(rbuf, sbuf, size, 1);
                if (rbuf[size - 1] != tag)
                    die("last byte is %ld, expected %ld", tn, size, rbuf[size - 1], tag);
            }
            v[r] = (now_us() - t0) / (double)iters;
            check_all(tn, rbuf, size, 1, tag);
        }
        shmem_barrier_all();
    }
    if (me == 0)
        emit(t, size, summarize(v, reps, iters), "us");
}

/* One 8-byte shmem_long_p each way per round trip; the receiver waits on the cell itself, so
 * the value it sees must be exactly the one sent (each carries the next sequence number). */
static void run_p_pingpong(int t, long *cell)
{
    const char *tn = test_names[t];
    int reps = MAX_REPS;
    long iters = opt_iters, warm = opt_warmup;
    double v[MAX_REPS];
    int peer = 1 - me;
    long pseq = 0;

    *cell = 0;
    shmem_barrier_all();
    for (int r = 0; r < reps && me < 2; r++) {
        double t0 = 0;
        for (long i = 0; i < warm + iters; i++) {
            if (i == warm)
                t0 = now_us();
            if (me == 0)
                shmem_long_p(cell, ++pseq, peer);
            ++pseq;
            shmem_long_wait_until(cell, SHMEM_CMP_GE, pseq);
            long got = *(volatile long *)cell;
            if (got != pseq)
                die("cell holds %ld, expected %ld", tn, sizeof(long), got, pseq);
            if (me == 1)
                shmem_long_p(cell, ++pseq, peer);
        }
        v[r] = (now_us() - t0) / (double)iters / 2.0;
    }
    shmem_quiet();
    shmem_barrier_all();
    if (me < 2) {
        /* PE 0 got the last value; PE 1 the one before it. */
        long want = (long)reps * (warm + iters) * 2 - (me == 0 ? 0 : 1);
        if (*(volatile long *)cell != want)
            die("final cell holds %ld, expected %ld", tn, sizeof(long), *(volatile long *)cell, want);
    }
    if (me == 0)
        emit(t, sizeof(long), summarize(v, reps, iters), "us");
}

/* The same ping-pong with no library in the loop: volatile stores into the peer's cell through
 * shmem_ptr and spinning loads of one's own. Skipped (nothing printed) where the peer's heap is
 * not mapped here. */
static void run_pingpong_raw(int t, long *cell)
{
    const char *tn = test_names[t];
    int reps = MAX_REPS;
    long iters = opt_iters, warm = opt_warmup;
    double v[MAX_REPS];
    volatile long *mine = cell, *theirs = me < 2 ? (volatile long *)shmem_ptr(cell, 1 - me) : NULL;
    long pseq = 0;

    /* cell[1]: whether the other of PEs 0 and 1 maps this one's heap */
    cell[0] = 0;
    if (me < 2)
        shmem_long_p(&cell[1], theirs != NULL, 1 - me);
    shmem_barrier_all();
    const int run = me < 2 && theirs != NULL && cell[1] != 0;  /* both of PEs 0 and 1 agree */
    shmem_barrier_all();
    for (int r = 0; r < reps && run; r++) {
        double t0 = 0;
        for (long i = 0; i < warm + iters; i++) {
            if (i == warm)
                t0 = now_us();
            if (me == 0)
                *theirs = ++pseq;
            ++pseq;
            while (*mine != pseq)
                PERF_RELAX();
            if (me == 1)
                *theirs = ++pseq;
        }
        v[r] = (now_us() - t0) / (double)iters / 2.0;
    }
    shmem_barrier_all();
    long want = (long)reps * (warm + iters) * 2 - (me == 0 ? 0 : 1);
    if (run && *mine != want)
        die("final cell holds %ld, expected %ld", tn, sizeof(long), *mine, want);
    if (run && me == 0)
        emit(t, sizeof(long), summarize(v, reps, iters), "us");
}

static void run_p_lat(void)
{
    const char *tn = test_names[T_P_LAT];
    int reps = MAX_REPS;
    long iters = opt_iters, warm = opt_warmup;
    double v[MAX_REPS];

    flag[1] = -1;
    shmem_barrier_all();
    for (int r = 0; r < reps; r++) {
        long last = (long)r * 1000003L + warm + iters - 1;
        if (me == 0) {
            double t0 = 0;
            for (long i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = now_us();
                shmem_long_p(&flag[1], (long)r * 1000003L + i, 1);
                shmem_quiet();
            }
            v[r] = (now_us() - t0) / (double)iters;
            long got = shmem_long_g(&flag[1], 1);
            if (got != last)
                die("long_g read back %ld, expected %ld", tn, sizeof(long), got, last);
        }
        shmem_barrier_all();
        if (me == 1 && *(volatile long *)&flag[1] != last)
            die("target holds %ld, expected %ld", tn, sizeof(long), flag[1], last);
        shmem_barrier_all();
    }
    if (me == 0)
        emit(T_P_LAT, sizeof(long), summarize(v, reps, iters), "us");
}

static void run_put_bw(size_t size)
{
    const char *tn = test_names[T_PUT_BW];
    int reps = MAX_REPS;
    long windows = scale(opt_iters, size, 4);
    long cap = (long)(BW_BYTES_PER_REP / ((unsigned long long)BW_WINDOW * size));
    if (windows > cap)
        windows = cap < 4 ? 4 : cap;
    long warm = scale(opt_warmup, size, 1);
    if (warm > windows)
        warm = windows;
    double v[MAX_REPS];

    fill(sbuf, size, me);
    shmem_barrier_all();
    for (int r = 0; r < reps; r++) {
        /* Every timed put of a repetition carries the same last byte, so the
         * target can check it whatever order the puts landed in. */
        const unsigned char tag = (unsigned char)(r * 37 + 11 + (size & 0xff));
        if (me == 0) {
            double t0 = 0;
            sbuf[size - 1] = (unsigned char)~tag;
            for (long w = 0; w < warm + windows; w++) {
                if (w == warm) {
                    sbuf[size - 1] = tag;
                    t0 = now_us();
                }
                for (int k = 0; k < BW_WINDOW; k++)
                    shmem_putmem(rbuf, sbuf, size, 1);
                shmem_quiet();
            }
            double dt = now_us() - t0;
            v[r] = (double)size * BW_WINDOW * (double)windows / dt; /* bytes/us == MB/s */
        }
        shmem_barrier_all();
        if (me == 1)
            check_all(tn, rbuf, size, 0, tag);
        shmem_barrier_all();
    }
    if (me == 0)
        emit(T_PUT_BW, size, summarize(v, reps, windows), "MB/s");
}

static void run_amo_lat(void)
{
    const char *tn = test_names[T_AMO_LAT];
    int reps = MAX_REPS;
    long iters = opt_iters, warm = opt_warmup;
    double v[MAX_REPS];
    long expect = 0;

    flag[2] = 0;
    shmem_barrier_all();
    for (int r = 0; r < reps; r++) {
        if (me == 0) {
            double t0 = 0;
            for (long i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = now_us();
                long old = PERF_FETCH_ADD(&flag[2], 1, 1);
                if (old != expect)
                    die("fetch_add returned %ld, expected %ld", tn, sizeof(long), old, expect);
                expect++;
            }
            v[r] = (now_us() - t0) / (double)iters;
        }
        shmem_barrier_all();
    }
    if (me == 1) {
        long want = (long)reps * (warm + iters);
        if (*(volatile long *)&flag[2] != want)
            die("counter holds %ld, expected %ld", tn, sizeof(long), flag[2], want);
    }
    if (me == 0)
        emit(T_AMO_LAT, sizeof(long), summarize(v, reps, iters), "us");
}

static void run_amo_rate(void)
{
    const char *tn = test_names[T_AMO_RATE];
    int reps = MAX_REPS;
    long iters = opt_iters * 10, warm = opt_warmup;
    double v[MAX_REPS];

    flag[2] = 0;
    shmem_barrier_all();
    for (int r = 0; r < reps; r++) {
        if (me == 0) {
            for (long i = 0; i < warm; i++)
                PERF_ADD(&flag[2], 1, 1);
            shmem_quiet();
            double t0 = now_us();
            for (long i = 0; i < iters; i++)
                PERF_ADD(&flag[2], 1, 1);
            shmem_quiet();
            v[r] = (double)iters / (now_us() - t0); /* ops/us == Mops/s */
        }
        shmem_barrier_all();
        if (me == 1) {
            long want = (long)(r + 1) * (warm + iters);
            if (*(volatile long *)&flag[2] != want)
                die("counter holds %ld, expected %ld", tn, sizeof(long), flag[2], want);
        }
        shmem_barrier_all();
    }
    if (me == 0)
        emit(T_AMO_RATE, sizeof(long), summarize(v, reps, iters), "Mops/s");
}

/* Collective: the largest of every PE's `mine`, gathered on PE 0.  PE 0 gets it, and so does
 * every PE when `everywhere` (the others get 0 otherwise). */
static double max_over_pes(double mine, int everywhere)
{
    double worst = 0;
    shmem_putmem(&gather[me], &mine, sizeof(double), 0);
    shmem_barrier_all();
    if (me == 0 || everywhere)
        for (int p = 0; p < npes; p++) {
            double g = me == 0 ? gather[p] : shmem_double_g(&gather[p], 0);
            worst = g > worst ? g : worst;
        }
    shmem_barrier_all();
    return worst;
}

/* Collective: when the slowest PE's warm-up took more than SLOW_US per call (a barrier that
 * sleeps), fewer iterations so that a repetition lasts about a second, at least 10.  Every PE
 * sees the same slowest figure and computes the same counts. */
#define SLOW_US 1000.0
static void cap_slow(double mine_us, long *iters, long *warm)
{
    double worst = max_over_pes(mine_us, 1);
    if (worst > SLOW_US) {
        long n = (long)(1e6 / worst);
        *iters = n < 10 ? 10 : (n < *iters ? n : *iters);
        *warm = *iters / 10 < 2 ? 2 : *iters / 10;
    }
}

/* Repetitions of `barrier` over every PE (the slowest PE's mean per call), reported as test t. */
static void time_barrier(int t, void (*barrier)(void))
{
    int reps = MAX_REPS;
    long iters = opt_iters, warm = opt_warmup;
    double v[MAX_REPS];

    shmem_barrier_all();
    for (int r = 0; r < reps; r++) {
        double tw = now_us();
        for (long i = 0; i < warm; i++)
            barrier();
        if (r == 0 && warm > 0)
            cap_slow((now_us() - tw) / (double)warm, &iters, &warm);
        double t0 = now_us();
        for (long i = 0; i < iters; i++)
            barrier();
        v[r] = max_over_pes((now_us() - t0) / (double)iters, 0);
    }
    if (me == 0)
        emit(t, 0, summarize(v, reps, iters), "us");
}

static void run_barrier_lat(void)
{
    time_barrier(T_BARRIER_LAT, shmem_barrier_all);
}

/* The deprecated active-set barrier over every PE, with a static pSync.  Before timing, rounds of
 * "put to the right neighbour, barrier, check the left neighbour's value" show that the barrier
 * both synchronises and completes earlier puts; after timing, pSync must hold SHMEM_SYNC_VALUE
 * again. */
static void barrier_as_static(void)
{
    shmem_barrier(0, 0, npes, st_psync);
}

static void run_barrier_as_static(void)
{
    const char *tn = test_names[T_BARRIER_AS_STATIC];
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    st_check[0] = -1;
    shmem_barrier_all();
    for (long k = 1; k <= 20; k++) {
        shmem_long_p(&st_check[0], k * 1000 + me, right);
        barrier_as_static();
        long got = *(volatile long *)&st_check[0], want = k * 1000 + left;
        if (got != want)
            die("neighbour's value is %ld, expected %ld", tn, 0, got, want);
        barrier_as_static();
    }
    time_barrier(T_BARRIER_AS_STATIC, barrier_as_static);
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        if (st_psync[i] != SHMEM_SYNC_VALUE)
            die("pSync[%ld] is %ld after the barriers, expected SHMEM_SYNC_VALUE", tn, 0, (long)i,
                st_psync[i]);
}

/* Collectives through the active-set forms (the ones every OpenSHMEM library still has).  A
 * pSync may only be reused once every PE is done with it, so each call is followed by a
 * barrier; the barrier's own time, measured alongside, is subtracted. */
static long *psync;
static long *pwrk;

static void one_coll(int t, size_t size)
{
    size_t n64 = size / 8;
    switch (t) {
    case T_BCAST_LAT: shmem_broadcast64(rbuf, sbuf, n64, 0, 0, 0, npes, psync); break;
    case T_REDUCE_LAT: shmem_long_sum_to_all((long *)rbuf, (const long *)sbuf, (int)n64, 0, 0, npes, pwrk, psync); break;
    default: shmem_alltoall64(rbuf, sbuf, n64, 0, 0, npes, psync); break;
    }
}

static double timed(int t, size_t size, long iters, int with_coll)
{
    double t0 = now_us();
    for (long i = 0; i < iters; i++) {
        if (with_coll)
            one_coll(t, size);
        shmem_barrier_all();
    }
    return max_over_pes((now_us() - t0) / (double)iters, 0);
}

static void run_coll_lat(int t, size_t size)
{
    int reps = MAX_REPS;
    long iters = scale(opt_iters, size, 10), warm = scale(opt_warmup, size, 2);
    double v[MAX_REPS];
    long *src = (long *)sbuf, *dst = (long *)rbuf;
    size_t n64 = size / 8;
    for (size_t i = 0; i < n64 * (size_t)npes && (i + 1) * 8 <= max_size; i++) src[i] = me + 1 + (long)i;
    shmem_barrier_all();
    for (long i = 0; i < warm; i++) {
        one_coll(t, size);
        shmem_barrier_all();
    }
    for (int r = 0; r < reps; r++) {
        double both = timed(t, size, iters, 1), bar = timed(t, size, iters, 0);
        v[r] = both > bar ? both - bar : 0;
    }
    /* Check the last call: sum of (p + 1 + i) over PEs for the reduction, PE 0's data for the
     * broadcast (not on the root), PE j's block me for alltoall. */
    long want, got;
    for (size_t i = 0; i < n64; i++) {
        if (t == T_REDUCE_LAT) want = (long)npes * (npes + 1) / 2 + (long)npes * (long)i;
        else if (t == T_BCAST_LAT) want = me == 0 ? dst[i] : 1 + (long)i;
        else want = (long)(npes - 1) + 1 + (long)(me * n64 + i);
        got = dst[i];
        if (t == T_ALLTOALL_LAT) { /* block from the last PE */
            got = dst[(size_t)(npes - 1) * n64 + i];
        }
        if (got != want) die("element is %ld, expected %ld", test_names[t], size, got, want);
    }
    if (me == 0)
        emit(t, size, summarize(v, reps, iters), "us");
}

/* ------------------------------------------------------------ driver */

static void usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s [-t TEST[,TEST...]] [-m MIN] [-M MAX] [-i ITERS] [-w WARMUP] [-c FILE] [-q]\n"
            "  tests: put_lat put_lat_static get_lat get_lat_static p_lat p_pingpong\n"
            "         p_pingpong_static put_bw amo_lat amo_rate barrier_lat barrier_as_static\n"
            "         bcast_lat reduce_lat alltoall_lat (or all)\n"
            "  -m/-M  message sizes in bytes for put_lat/get_lat/put_bw (default 8 .. 4194304),\n"
            "         suffixes k/K and m/M multiply by 1024 / 1048576; the *_static tests\n"
            "         stop at 1048576 (the size of their static arrays)\n"
            "  -i     iterations per repetition (default 1000; scaled down above 64 KiB)\n"
            "  -w     warm-up iterations (default 100; scaled the same way)\n"
            "  -c     write CSV: test,size_bytes,value,unit,npes,impl\n"
            "  -q     no progress lines on stderr\n"
            "  impl label: %s\n",
            argv0, PERF_IMPL);
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        v <<= 20, end++;
    if (*end || v == 0)
        return -1;
    *out = (size_t)v;
    return 0;
}

static char bad_test[64];

static int parse_tests(const char *arg, int *sel)
{
    char buf[512];
    if (strlen(arg) >= sizeof buf)
        return -1;
    strcpy(buf, arg);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int found = 0;
        if (!strcmp(tok, "all")) {
            for (int t = 0; t < T_COUNT; t++)
                sel[t] = 1;
            continue;
        }
        for (int t = 0; t < T_COUNT; t++)
            if (!strcmp(tok, test_names[t]))
                sel[t] = 1, found = 1;
        if (!found) {
            snprintf(bad_test, sizeof bad_test, "%s", tok);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    int sel[T_COUNT] = {0}, any = 0, bad = 0;

    /* Every PE parses the same arguments; errors are reported by PE 0 after
     * shmem_init so that the message appears once. */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = (i + 1 < argc) ? argv[i + 1] : NULL;
        if (!strcmp(a, "-q")) {
            quiet_mode = 1;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            bad = 2;
            break;
        }
        if (a[0] != '-' || !a[1] || a[2] || !val) {
            bad = 1;
            break;
        }
        i++;
        switch (a[1]) {
        case 't': bad = parse_tests(val, sel) ? 1 : 0; break;
        case 'm': bad = parse_size(val, &min_size) ? 1 : 0; break;
        case 'M': bad = parse_size(val, &max_size) ? 1 : 0; break;
        case 'i': opt_iters = strtol(val, NULL, 10); bad = opt_iters < 1; break;
        case 'w': opt_warmup = strtol(val, NULL, 10); bad = opt_warmup < 0; break;
        case 'c': csv_path = val; break;
        default: bad = 1;
        }
        if (bad)
            break;
    }
    if (!bad && min_size > max_size)
        bad = 1;
    for (int t = 0; t < T_COUNT; t++)
        any |= sel[t];
    if (!any)
        for (int t = 0; t < T_COUNT; t++)
            sel[t] = 1;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();

    if (bad) {
        if (me == 0 && bad_test[0])
            fprintf(stderr, "unknown test '%s'\n", bad_test);
        if (me == 0)
            usage(argv[0]);
        shmem_finalize();
        return bad == 2 ? 0 : 2;
    }

    sbuf = shmem_malloc(max_size);
    rbuf = shmem_malloc(max_size);
    flag = shmem_malloc(8 * sizeof(long));
    gather = shmem_malloc((size_t)npes * sizeof(double));
    {
        long nsync = SHMEM_BCAST_SYNC_SIZE;
        if (SHMEM_REDUCE_SYNC_SIZE > nsync) nsync = SHMEM_REDUCE_SYNC_SIZE;
        if (SHMEM_ALLTOALL_SYNC_SIZE > nsync) nsync = SHMEM_ALLTOALL_SYNC_SIZE;
        psync = shmem_malloc((size_t)nsync * sizeof(long));
        for (long i = 0; i < nsync; i++) psync[i] = SHMEM_SYNC_VALUE;
    }
    pwrk = shmem_malloc((65536 / 8 / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE) * sizeof(long));
    if (!sbuf || !rbuf || !flag || !gather) {
        fprintf(stderr, "shmem_perf[%s] PE %d: shmem_malloc of 2 x %zu bytes failed\n", PERF_IMPL,
                me, max_size);
        fflush(stderr);
        _Exit(4);
    }
    memset(rbuf, 0, max_size);
    memset(flag, 0, 4 * sizeof(long));
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        st_psync[i] = SHMEM_SYNC_VALUE;

    if (me == 0 && csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv)
            fprintf(stderr, "shmem_perf: cannot write %s: %s\n", csv_path, strerror(errno));
        else
            fprintf(csv, "test,size_bytes,value,unit,npes,impl\n");
    }
    if (me == 0) {
        printf("# shmem_perf impl=%s npes=%d sizes=%zu..%zu iters=%ld warmup=%ld\n", PERF_IMPL,
               npes, min_size, max_size, opt_iters, opt_warmup);
        fflush(stdout);
    }
    shmem_barrier_all();

    for (int t = 0; t < T_COUNT; t++) {
        if (!sel[t])
            continue;
        if (t != T_BARRIER_LAT && t != T_BARRIER_AS_STATIC && npes < 2) {
            if (me == 0)
                fprintf(stderr, "[%s] %s skipped: needs at least 2 PEs\n", PERF_IMPL,
                        test_names[t]);
            continue;
        }
        double t0 = now_us();
        progress("%s ...", test_names[t], 0);
        table_header(t);
        /* PEs other than 0 and 1 take part in the barriers only. */
        switch (t) {
        case T_PUT_LAT:
        case T_PUT_LAT_STATIC:
        case T_GET_LAT:
        case T_GET_LAT_STATIC:
        case T_PUT_BW:
            for (size_t s = min_size; s <= max_size; s *= 2) {
                if (t == T_PUT_LAT)
                    run_put_lat(t, s, sbuf, rbuf, &flag[0]);
                else if (t == T_PUT_LAT_STATIC && s <= STATIC_MAX)
                    run_put_lat(t, s, st_sbuf, st_rbuf, &st_flag[0]);
                else if (t == T_GET_LAT)
                    run_get_lat(t, s, sbuf, rbuf);
                else if (t == T_GET_LAT_STATIC && s <= STATIC_MAX)
                    run_get_lat(t, s, st_sbuf, st_rbuf);
                else if (t == T_PUT_BW)
                    run_put_bw(s);
                if (s > max_size / 2)
                    break;
            }
            break;
        case T_P_LAT: run_p_lat(); break;
        case T_P_PINGPONG: run_p_pingpong(t, &flag[3]); break;
        case T_P_PINGPONG_STATIC: run_p_pingpong(t, &st_flag[4]); break;
        case T_PINGPONG_RAW: run_pingpong_raw(t, &flag[5]); break;
        case T_BARRIER_AS_STATIC: run_barrier_as_static(); break;
        case T_AMO_LAT: run_amo_lat(); break;
        case T_AMO_RATE: run_amo_rate(); break;
        case T_BARRIER_LAT: run_barrier_lat(); break;
        default: /* collectives: 8 B .. 64 KiB per PE (alltoall moves npes times that) */
            for (size_t s = 8; s <= 65536 && s * (size_t)npes <= max_size; s *= 8)
                run_coll_lat(t, s);
            break;
        }
        shmem_barrier_all();
        progress("%s done in %.1f s", test_names[t], (now_us() - t0) * 1e-6);
    }

    if (csv)
        fclose(csv);
    shmem_barrier_all();
    shmem_free(pwrk);
    shmem_free(psync);
    shmem_free(gather);
    shmem_free(flag);
    shmem_free(rbuf);
    shmem_free(sbuf);
    shmem_finalize();
    return 0;
}
