/* Team reductions, scans and collects back to back, with nothing between the calls but other collectives
 * of the same team: each call's result is checked against values that change every iteration,
 * in place (dest == source) and not, on the world team and on a split team, with a PE that is
 * made late now and then, and counts that change from one call to the next.  A result folded
 * from another call's data (a scratch area written again before a slow PE has read it) fails.
 * Also small and large counts (the large ones take the gets-after-a-barrier path), and the
 * active-set reductions over overlapping sets taken in turn (every set shares one scratch
 * region).  The collects give sizes that differ per PE and per call, and now and then one PE's
 * data exceeds its place in the scratch (the rest then go through dest). */
#include "api_check.h"

#include <shmem.h>

#define ITERS 3000

static int me, npes;

/* sum over the team's PEs 0..last of (world PE + 1) * (iteration + 1) + element */
static long expect(shmem_team_t team, int last, long it, long e) {
    long s = 0;
    for (int i = 0; i <= last; ++i) s += (shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD) + 1) * (it + 1) + e;
    return s;
}

/* Elements team PE i gives to collect in iteration it: 0-3, and 700 (more than a scratch place
 * holds) for one PE in every other collect. */
static size_t collect_count(int i, int tn, long it) {
    return it % 10 == 4 && i == (int)(it / 10) % tn ? 700 : (size_t)((i + it) % 4);
}

static void check_collect(shmem_team_t team, int tn, long it, const long *b, const char *name) {
    size_t off = 0;
    for (int i = 0; i < tn; ++i) {
        const long w = shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD);
        const size_t ni = collect_count(i, tn, it);
        for (size_t e = 0; e < ni; ++e)
            CHECK(b[off + e] == (w + 1) * (it + 1) * 1000 + (long)e,
                  "%s iteration %ld collect: element %zu of team PE %d at %zu is %ld, expected %ld", name, it, e, i,
                  off + e, b[off + e], (w + 1) * (it + 1) * 1000 + (long)e);
        off += ni;
    }
}

static void run(shmem_team_t team, long *a, long *b, size_t count, const char *name) {
    const int tme = shmem_team_my_pe(team), tn = shmem_team_n_pes(team);
    for (long it = 0; it < ITERS; ++it) {
        if (it % 97 == 0 && tme == it % tn) api_sleep_us(200); /* one PE late now and then */
        /* the count alternates between count and count - 1: a call of another size must not
           reach into the scratch the previous call's slow PEs still read */
        const size_t n = count > 1 ? count - (size_t)(it % 2) : count;
        for (size_t e = 0; e < n; ++e) a[e] = (me + 1) * (it + 1) + (long)e;
        const int kind = (int)(it % 5);
        if (kind == 0) {
            CHECK(shmem_long_sum_reduce(team, b, a, n) == 0, "%s sum_reduce rc", name);
            for (size_t e = 0; e < n; e += 1 + n / 8)
                CHECK(b[e] == expect(team, tn - 1, it, (long)e), "%s iteration %ld sum_reduce[%zu]: %ld, expected %ld",
                      name, it, e, b[e], expect(team, tn - 1, it, (long)e));
        } else if (kind == 1) { /* in place */
            CHECK(shmem_long_sum_reduce(team, a, a, n) == 0, "%s in-place sum_reduce rc", name);
            for (size_t e = 0; e < n; e += 1 + n / 8)
                CHECK(a[e] == expect(team, tn - 1, it, (long)e), "%s iteration %ld in-place sum_reduce[%zu]: %ld, expected %ld",
                      name, it, e, a[e], expect(team, tn - 1, it, (long)e));
        } else if (kind == 2) {
            CHECK(shmem_long_sum_inscan(team, b, a, n) == 0, "%s sum_inscan rc", name);
            CHECK(b[0] == expect(team, tme, it, 0), "%s iteration %ld sum_inscan: %ld, expected %ld", name, it, b[0],
                  expect(team, tme, it, 0));
        } else if (kind == 4) {
            const size_t mine = collect_count(tme, tn, it);
            for (size_t e = 0; e < mine; ++e) a[e] = (me + 1) * (it + 1) * 1000 + (long)e;
            CHECK(shmem_long_collect(team, b, a, mine) == 0, "%s collect rc", name);
            check_collect(team, tn, it, b, name);
        } else {
            CHECK(shmem_long_sum_exscan(team, b, a, n) == 0, "%s sum_exscan rc", name);
            CHECK(tme == 0 || b[0] == expect(team, tme - 1, it, 0), "%s iteration %ld sum_exscan: %ld, expected %ld", name,
                  it, b[0], tme == 0 ? 0 : expect(team, tme - 1, it, 0));
        }
        if (it % 13 == 0) shmem_team_sync(team); /* another collective between two reductions */
    }
}

/* Active sets over the world PEs, taken in turn; each PE calls the ones it is in. */
#define NSETS 5
static const int set_start[NSETS] = {0, 0, 1, 0, 1}, set_log[NSETS] = {0, 0, 0, 1, 1};
static int set_size(int k) {
    if (k == 0) return npes;
    if (k <= 2) return npes - 1;
    return k == 3 ? (npes + 1) / 2 : npes / 2;
}
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 64];
#define PSYNC_N (SHMEM_REDUCE_SYNC_SIZE > SHMEM_COLLECT_SYNC_SIZE ? SHMEM_REDUCE_SYNC_SIZE : SHMEM_COLLECT_SYNC_SIZE)
static long psync[NSETS][2][PSYNC_N]; /* per set, alternating with its calls */

static void run_sets(long *a, long *b, size_t count) {
    long calls[NSETS] = {0};
    for (long it = 0; it < ITERS; ++it) {
        const int k = (int)((it * 7 + it / 5) % NSETS), size = set_size(k);
        const int start = set_start[k], stride = 1 << set_log[k];
        if (size < 1 || me < start || (me - start) % stride || (me - start) / stride >= size) continue;
        if (it % 89 == 0 && me == start) api_sleep_us(200); /* the set's first PE late now and then */
        if (it % 4 == 3) { /* collect64: 0-2 elements a PE, and now and then more than a place holds */
            const int mine_i = (me - start) / stride;
            const size_t mine = (size_t)((mine_i + it) % 3) + (it % 8 == 7 && mine_i == 0 ? 500 : 0);
            for (size_t e = 0; e < mine; ++e) a[e] = (me + 1) * (it + 1) * 1000 + (long)e;
            shmem_collect64(b, a, mine, start, set_log[k], size, psync[k][calls[k]++ % 2]);
            size_t off = 0;
            for (int i = 0; i < size; ++i) {
                const size_t ni = (size_t)((i + it) % 3) + (it % 8 == 7 && i == 0 ? 500 : 0);
                const long w = start + i * stride;
                for (size_t e = 0; e < ni; ++e)
                    CHECK(b[off + e] == (w + 1) * (it + 1) * 1000 + (long)e,
                          "set %d iteration %ld collect64: element %zu of set PE %d at %zu is %ld, expected %ld", k, it,
                          e, i, off + e, b[off + e], (w + 1) * (it + 1) * 1000 + (long)e);
                off += ni;
            }
            continue;
        }
        const size_t n = count + 2 * (size_t)(it % 3); /* sizes that change from call to call */
        for (size_t e = 0; e < n; ++e) a[e] = (me + 1) * (it + 1) + (long)e;
        long *dst = it % 3 == 0 ? a : b; /* in place now and then */
        shmem_long_sum_to_all(dst, a, (int)n, start, set_log[k], size, pwrk, psync[k][calls[k]++ % 2]);
        for (size_t e = 0; e < n; ++e) {
            long want = 0;
            for (int i = 0; i < size; ++i) want += (start + i * stride + 1) * (it + 1) + (long)e;
            CHECK(dst[e] == want, "set %d (start %d, stride %d, size %d) iteration %ld sum_to_all[%zu]: %ld, expected %ld",
                  k, start, stride, size, it, e, dst[e], want);
        }
    }
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    long *a = shmem_calloc(4096, sizeof(long)), *b = shmem_calloc(4096, sizeof(long));
    run(SHMEM_TEAM_WORLD, a, b, 1, "world, 1 long");
    run(SHMEM_TEAM_WORLD, a, b, 5, "world, 5 and 4 longs");
    run(SHMEM_TEAM_WORLD, a, b, 100, "world, 100 and 99 longs");
    run(SHMEM_TEAM_WORLD, a, b, 4096, "world, 4096 and 4095 longs");
    shmem_team_t even;
    if (npes > 2 && shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even) == 0 &&
        even != SHMEM_TEAM_INVALID) {
        run(even, a, b, 3, "even PEs, 3 longs");
        shmem_team_destroy(even);
    }
    for (int k = 0; k < NSETS; ++k)
        for (int i = 0; i < PSYNC_N; ++i) psync[k][0][i] = psync[k][1][i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    run_sets(a, b, 1);
    run_sets(a, b, 6);
    shmem_barrier_all();
    shmem_free(a);
    shmem_free(b);
    mp_pass("api_coll_b2b");
    shmem_finalize();
    return 0;
}
