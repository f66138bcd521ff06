/* Barriers hold across hosts, and shmem_ptr follows the hosts.
 *
 *   late_barrier [ROUNDS] [LATE_MS]          (defaults: 48 rounds, 20 ms)
 *
 * 1. Host map: every PE puts its gethostname() into a table on every PE; PEs with the same name
 *    share a host.  shmem_ptr must be non-NULL for exactly those PEs (itself included) and NULL
 *    for every PE on another host; SHMEM_TEAM_SHARED must hold exactly those PEs.
 * 2. Same-host traffic is shared memory: each PE stores a token into every same-host peer's heap
 *    through shmem_ptr and waits for the peers' tokens with plain loads and no OpenSHMEM call,
 *    so no transport progress could have delivered them; loads through shmem_ptr see the peer's
 *    own stores.
 * 3. Late arrival: in each of ROUNDS barriers one PE (rotating through all PEs, so through
 *    every host) sleeps LATE_MS before it arrives.  Before the barrier every PE adds 1 with an
 *    atomic to a counter on every PE and puts the round number into its slot on every PE; after
 *    it every PE must find exactly npes more arrivals and every slot at this round.  Two counters
 *    alternate between rounds, so a PE that already runs the next round cannot hide a missing
 *    arrival and is itself caught (the count would be too high).  The barrier is
 *    shmem_barrier_all, shmem_quiet + shmem_sync_all, or shmem_quiet + shmem_team_sync on
 *    SHMEM_TEAM_WORLD, in turn.
 * Also the PE with launcher rank 1 starts late (before shmem_init) and the last PE reaches
 * shmem_finalize late: the start-up and shut-down synchronisation must cope.
 *
 * With KISHMEM_TEST_MULTIHOST set, the job must span at least two hosts and at least one host
 * must hold two PEs, or the test fails (it would prove nothing).
 */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HOSTLEN 64

#define FAIL(...)                                                        \
    do {                                                                 \
        fprintf(stderr, "FAIL: PE %d: late_barrier.c:%d: ", me, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                    \
        fputc('\n', stderr);                                             \
        fflush(stderr);                                                  \
        shmem_global_exit(1);                                            \
    } while (0)
#define CHECK(cond, ...)                 \
    do {                                 \
        if (!(cond)) FAIL(__VA_ARGS__); \
    } while (0)

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0) {}
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The value PE `from` stores into PE `to`'s box. */
static long token(int from, int to) { return 1000000L + 1000L * from + to; }

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 48;
    long late_ms = argc > 2 ? atol(argv[2]) : 20;
    int me = -1;

    /* Arrive late at start-up: the launcher's rank is known before shmem_init. */
    const char *rank = getenv("PMIX_RANK");
    if (rank && atoi(rank) == 1) sleep_ms(300);

    shmem_init();
    me = shmem_my_pe();
    int npes = shmem_n_pes();
    if (rounds < 2 * npes) rounds = 2 * npes; /* every PE is late at least twice */

    /* ---- 1. host map ---------------------------------------------------------------------- */
    char(*hosts)[HOSTLEN] = shmem_calloc((size_t)npes, HOSTLEN);
    CHECK(hosts != NULL, "shmem_calloc of the host table");
    char myhost[HOSTLEN] = {0};
    CHECK(gethostname(myhost, HOSTLEN - 1) == 0, "gethostname");
    for (int pe = 0; pe < npes; ++pe) shmem_putmem(hosts[me], myhost, HOSTLEN, pe);
    shmem_barrier_all();

    int nhosts = 0, max_per_host = 0, same_here = 0;
    for (int pe = 0; pe < npes; ++pe) {
        int first = 1, count = 0;
        for (int q = 0; q < npes; ++q) {
            if (strcmp(hosts[q], hosts[pe]) == 0) {
                ++count;
                if (q < pe) first = 0;
            }
        }
        nhosts += first;
        if (count > max_per_host) max_per_host = count;
        int same = strcmp(hosts[pe], myhost) == 0;
        same_here += same;
        void *p = shmem_ptr(hosts, pe);
        if (pe == me) CHECK(p == (void *)hosts, "shmem_ptr to itself is %p, not %p", p, (void *)hosts);
        else if (same) CHECK(p != NULL, "shmem_ptr to PE %d is NULL, but PE %d is on this host (%s)", pe, pe, myhost);
        else CHECK(p == NULL, "shmem_ptr to PE %d on host %s is %p, but this PE is on %s", pe, hosts[pe], p, myhost);
    }
    if (me == 0) {
        printf("%d PEs on %d hosts:", npes, nhosts);
        for (int pe = 0; pe < npes; ++pe) printf(" %d@%s", pe, hosts[pe]);
        printf("\n");
        fflush(stdout);
    }
    /* SHMEM_TEAM_SHARED is this host's PEs, in world order */
    CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) == same_here, "SHMEM_TEAM_SHARED has %d PEs, this host %d",
          shmem_team_n_pes(SHMEM_TEAM_SHARED), same_here);
    for (int pe = 0, idx = 0; pe < npes; ++pe) {
        int t = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED);
        int same = strcmp(hosts[pe], myhost) == 0;
        CHECK(t == (same ? idx : -1), "PE %d (on %s) is PE %d of SHMEM_TEAM_SHARED, expected %d", pe, hosts[pe], t,
              same ? idx : -1);
        if (pe == me) CHECK(shmem_team_my_pe(SHMEM_TEAM_SHARED) == idx, "shmem_team_my_pe(SHMEM_TEAM_SHARED)");
        idx += same;
    }
    if (getenv("KISHMEM_TEST_MULTIHOST")) {
        CHECK(nhosts >= 2, "KISHMEM_TEST_MULTIHOST is set, but all %d PEs run on host %s", npes, myhost);
        CHECK(max_per_host >= 2, "KISHMEM_TEST_MULTIHOST is set, but no host has two PEs: nothing shares memory");
    }

    /* ---- 2. same-host peers share memory -------------------------------------------------- */
    long *box = shmem_calloc((size_t)npes, sizeof(long));
    CHECK(box != NULL, "shmem_calloc of the boxes");
    __atomic_store_n(&box[me], token(me, me), __ATOMIC_RELEASE); /* peers load this through shmem_ptr */
    shmem_barrier_all();
    for (int pe = 0; pe < npes; ++pe) {
        if (pe == me || strcmp(hosts[pe], myhost) != 0) continue;
        long *theirs = shmem_ptr(box, pe);
        long seen = __atomic_load_n(&theirs[pe], __ATOMIC_ACQUIRE);
        CHECK(seen == token(pe, pe), "load through shmem_ptr from PE %d: %ld, expected %ld", pe, seen, token(pe, pe));
        __atomic_store_n(&theirs[me], token(me, pe), __ATOMIC_RELEASE);
    }
    /* No OpenSHMEM call while waiting: only a shared mapping can bring these. */
    for (int pe = 0; pe < npes; ++pe) {
        if (pe == me || strcmp(hosts[pe], myhost) != 0) continue;
        double deadline = now_s() + 20.0;
        while (__atomic_load_n(&box[pe], __ATOMIC_ACQUIRE) != token(pe, me)) {
            if (now_s() > deadline)
                FAIL("PE %d's store through shmem_ptr did not arrive within 20 s (box holds %ld)", pe,
                     __atomic_load_n(&box[pe], __ATOMIC_ACQUIRE));
        }
    }
    shmem_barrier_all();

    /* ---- 3. nobody leaves a barrier before the late PE arrived ---------------------------- */
    long *count = shmem_calloc(2, sizeof(long));
    int *slot = shmem_malloc(sizeof(int) * (size_t)npes);
    CHECK(count != NULL && slot != NULL, "shmem_malloc of the counters");
    for (int pe = 0; pe < npes; ++pe) slot[pe] = -1;
    shmem_barrier_all();
    double t0 = now_s();
    for (int k = 0; k < rounds; ++k) {
        int late = k % npes;
        if (me == late) sleep_ms(late_ms);
        for (int pe = 0; pe < npes; ++pe) {
            shmem_long_atomic_inc(&count[k % 2], pe);
            shmem_int_p(&slot[me], k, pe);
        }
        const char *kind;
        if (k % 3 == 0) {
            kind = "shmem_barrier_all";
            shmem_barrier_all();
        } else if (k % 3 == 1) {
            kind = "shmem_quiet + shmem_sync_all";
            shmem_quiet();
            shmem_sync_all();
        } else {
            kind = "shmem_quiet + shmem_team_sync(SHMEM_TEAM_WORLD)";
            shmem_quiet();
            CHECK(shmem_team_sync(SHMEM_TEAM_WORLD) == 0, "shmem_team_sync failed");
        }
        long want = (long)(k / 2 + 1) * npes;
        long got = shmem_long_atomic_fetch(&count[k % 2], me);
        CHECK(got == want, "round %d (%s, PE %d late by %ld ms): %ld arrivals counted after the barrier, expected %ld",
              k, kind, late, late_ms, got, want);
        for (int pe = 0; pe < npes; ++pe) {
            int s = __atomic_load_n(&slot[pe], __ATOMIC_ACQUIRE);
            CHECK(s == k || (s == k + 1 && k + 1 < rounds),
                  "round %d (%s, PE %d late): PE %d's slot holds round %d after the barrier", k, kind, late, pe, s);
        }
    }
    double per = (now_s() - t0) / rounds;
    if (me == 0) {
        printf("%d late-arrival barriers: %.1f ms each (%ld ms of it sleeping)\n", rounds, per * 1e3, late_ms);
        fflush(stdout);
    }

    shmem_barrier_all();
    shmem_free(slot);
    shmem_free(count);
    shmem_free(box);
    shmem_free(hosts);
    shmem_barrier_all();
    if (me == 0) printf("PASS late_barrier on %d PEs (%d hosts)\n", npes, nhosts);
    fflush(stdout);
    if (me == npes - 1) sleep_ms(200); /* arrive late at shmem_finalize */
    shmem_finalize();
    return 0;
}
