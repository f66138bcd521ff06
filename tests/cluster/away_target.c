/* Peers on other hosts reach a PE whose threads are elsewhere (KISHMEM_UCX_PROGRESS_THREAD=1).
 *
 *   away_target [AWAY_MS]          (default 4000)
 *
 * PE 0 sleeps AWAY_MS without calling any routine, as a PE whose thread waits inside CUDA does.
 * Meanwhile every PE on another host than PE 0 adds 1 to a counter on PE 0 with a fetching
 * atomic, reads a word of PE 0 with shmem_long_g and puts its number into its slot on PE 0
 * (shmem_quiet), then adds 1 to a global variable of PE 0 (symmetric too: reached through the
 * transport of the global variables): over UCX on tcp the target does these in software, so each
 * must complete within half of AWAY_MS, served by PE 0's progress threads, not by PE 0's return.
 * Then PE 0 checks the counters and every slot.
 */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FAIL(...)                                                        \
    do {                                                                 \
        fprintf(stderr, "FAIL: PE %d: away_target.c:%d: ", me, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                    \
        fputc('\n', stderr);                                             \
        fflush(stderr);                                                  \
        shmem_global_exit(1);                                            \
    } while (0)

long global_counter; /* static storage: symmetric */

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const long away_ms = argc > 1 ? atol(argv[1]) : 4000;
    char(*names)[64] = shmem_calloc((size_t)npes, 64);
    long *counter = shmem_calloc(1, sizeof(long)), *word = shmem_malloc(sizeof(long));
    long *slots = shmem_calloc((size_t)npes, sizeof(long));
    if (!names || !counter || !word || !slots) FAIL("shmem_calloc returned NULL");
    *word = 1000 + me;
    char host[64] = {0};
    gethostname(host, sizeof host - 1);
    for (int p = 0; p < npes; p++) shmem_putmem(names[me], host, sizeof host, p);
    shmem_barrier_all();
    int off_host = 0;
    for (int p = 0; p < npes; p++) off_host += strcmp(names[p], names[0]) != 0;
    if (off_host == 0) FAIL("every PE is on PE 0's host (%s): the test needs another host", names[0]);

    if (me == 0) {
        struct timespec t = {away_ms / 1000, (away_ms % 1000) * 1000000L};
        while (nanosleep(&t, &t) != 0) {}
    } else if (strcmp(names[me], names[0]) != 0) {
        const double t0 = now_s();
        const long old = shmem_long_atomic_fetch_inc(counter, 0);
        const double t1 = now_s();
        const long w = shmem_long_g(word, 0);
        const double t2 = now_s();
        const long v = me + 1;
        shmem_putmem(&slots[me], &v, sizeof v, 0);
        shmem_quiet();
        const double t3 = now_s();
        shmem_long_atomic_add(&global_counter, 1, 0);
        shmem_quiet();
        const double t4 = now_s();
        const double limit = away_ms / 2000.0;
        if (old < 0 || old >= off_host) FAIL("fetch_inc on PE 0 returned %ld (expected 0 to %d)", old, off_host - 1);
        if (w != 1000) FAIL("shmem_long_g from PE 0 read %ld, expected 1000", w);
        if (t1 - t0 > limit || t2 - t1 > limit || t3 - t2 > limit || t4 - t3 > limit)
            FAIL("PE 0 was away (%ld ms) and the operations to it took %.2f s (atomic), %.2f s (get), %.2f s (put and "
                 "quiet), %.2f s (atomic on a global variable): more than %.2f s, so they waited for PE 0's return",
                 away_ms, t1 - t0, t2 - t1, t3 - t2, t4 - t3, limit);
        printf("PE %d: atomic %.4f s, get %.4f s, put %.4f s, global atomic %.4f s while PE 0 was away\n", me, t1 - t0,
               t2 - t1, t3 - t2, t4 - t3);
    }
    shmem_barrier_all();
    if (me == 0) {
        if (*counter != off_host) FAIL("the counter is %ld, expected %d (one per PE on another host)", *counter, off_host);
        if (global_counter != off_host)
            FAIL("the global counter is %ld, expected %d (one per PE on another host)", global_counter, off_host);
        for (int p = 0; p < npes; p++) {
            const long want = strcmp(names[p], names[0]) != 0 ? p + 1 : 0;
            if (slots[p] != want) FAIL("slot %d is %ld, expected %ld", p, slots[p], want);
        }
        printf("PASS away_target on %d PEs\n", npes);
    }
    shmem_barrier_all();
    shmem_free(slots);
    shmem_free(word);
    shmem_free(counter);
    shmem_free(names);
    shmem_finalize();
    return 0;
}
