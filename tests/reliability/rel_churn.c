/* Memory that team split/destroy, context create/destroy and active-set collectives keep: after a
 * warm-up, ITERS more rounds of each may not grow this process's resident memory by more than
 * 1 MiB of private memory (a few hundred bytes kept per round would: 10,000 rounds of ~300
 * bytes are 3 MB).
 * Under the ASan build, LeakSanitizer also checks that nothing is left unfreed at exit.
 * Usage: rel_churn [ITERS [MASK]]  (MASK: which parts run, 1 teams, 2 contexts, 4 active sets) */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* ASan keeps freed memory in its quarantine: there only LeakSanitizer's check at exit counts. */
#if defined(__SANITIZE_ADDRESS__)
#define BOUND_KIB (1L << 30)
#else
#define BOUND_KIB 1024L
#endif

#define NSYNC 4096 /* distinct pSync arrays the active-set barrier cycles through */
#define WARMUP 256  /* rounds before the measurement (pSync arrays 0..WARMUP-1) */

/* Private resident memory (RssAnon): what malloc holds.  Shared pages do not count: a PE's RSS
 * also grows by the peers' heap pages it touches through its mappings (pSync flags). */
static long rss_kib(void) {
    char line[256];
    long kib = -1;
    FILE* f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "RssAnon: %ld kB", &kib) == 1) break;
    if (f) fclose(f);
    if (kib < 0) {
        printf("FAIL: rel_churn: no RssAnon in /proc/self/status\n");
        exit(1);
    }
    return kib;
}

static int mask = 7; /* which parts run: 1 teams, 2 contexts, 4 active sets */

static void round_trip(long* psyncs, int i) {
    const int npes = shmem_n_pes();
    if (mask & 4) shmem_barrier(0, 0, npes, psyncs + (long)((WARMUP + i) % NSYNC) * SHMEM_BARRIER_SYNC_SIZE);
    if (mask & 2) {
        shmem_ctx_t ctx;
        if (shmem_ctx_create(0, &ctx) != 0) {
            printf("FAIL: rel_churn: context %d\n", i);
            exit(1);
        }
        shmem_ctx_destroy(ctx);
    }
    if (!(mask & 1)) return;
    shmem_team_t team;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &team) != 0 || team == SHMEM_TEAM_INVALID) {
        printf("FAIL: rel_churn: team split %d failed\n", i);
        exit(1);
    }
    shmem_ctx_t ctx;
    if (shmem_team_create_ctx(team, 0, &ctx) != 0 || shmem_team_n_pes(team) != npes) {
        printf("FAIL: rel_churn: context %d\n", i);
        exit(1);
    }
    shmem_ctx_destroy(ctx);
    shmem_team_destroy(team);
}

int main(int argc, char** argv) {
    const int iters = argc > 1 ? atoi(argv[1]) : 10000;
    if (argc > 2) mask = atoi(argv[2]);
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    long* psyncs = shmem_malloc(sizeof(long) * SHMEM_BARRIER_SYNC_SIZE * NSYNC);
    for (long k = 0; k < (long)SHMEM_BARRIER_SYNC_SIZE * NSYNC; ++k) psyncs[k] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    for (int i = -WARMUP; i < 0; ++i) round_trip(psyncs, i); /* warm-up: the first WARMUP pSync arrays */
    const long before = rss_kib();
    for (int i = 0; i < iters; ++i) round_trip(psyncs, i);
    const long grew = rss_kib() - before;
    printf("rel_churn: PE %d: %d rounds of team split/destroy, 2 context create/destroy and an active-set barrier "
           "(pSync arrays cycling over %d): resident memory grew by %ld KiB\n", me, iters, NSYNC, grew);
    if (grew > BOUND_KIB) printf("FAIL: rel_churn: PE %d kept %ld KiB over %d rounds\n", me, grew, iters);
    shmem_free(psyncs);
    shmem_finalize();
    if (me == 0 && grew <= BOUND_KIB) printf("PASS rel_churn on %d PEs\n", npes);
    return grew > BOUND_KIB;
}
