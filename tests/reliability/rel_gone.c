/* A PE that goes away: the others must notice, say which PE and in which call they waited, and
 * end non-zero (tests/reliability/CMakeLists.txt runs each case under mpirun and under srun
 * without kill-on-bad-exit).  Usage: rel_gone CASE
 *   exit       PE 1 calls exit(0) after shmem_init, without shmem_finalize; the others wait in
 *              shmem_barrier_all
 *   kill       PE 1 is killed (SIGKILL) after shmem_init; the others wait in shmem_barrier_all
 *   kill_init  PE 1 is killed before it reaches shmem_init; the others wait in shmem_init
 *   fail_init  PE 1 fails in shmem_init (a bad SHMEM_SYMMETRIC_SIZE on that PE only)
 *   size_init  PE 1 asks for another heap size: every PE fails in shmem_init after the others'
 *              heaps exist
 *   remote_init PE 1 sets KISHMEM_REMOTE=ibgda, the others not: every PE fails in shmem_init
 *              naming the two settings (routes derived from them must agree)
 *   late_init  PE 1 comes to shmem_init 60 s late: KISHMEM_HANG_ABORT ends the others' wait
 *   late       the last PE comes to a barrier 60 s late (alive): the hang messages of the others
 *              name it, also where a dissemination round waits for another PE
 *   late_active the same with the active-set barrier (shmem_barrier over every PE, a pSync)
 *   hold DIR   every PE writes a secret into every PE's heap (puts and atomics: UCX carries them
 *              under KISHMEM_REMOTE=ucx), writes "PID HEAP-ADDRESS" to DIR/pe<rank>.ready and waits
 *              (its own code) until DIR/done exists: ucx_perms.sh looks at what the job made
 *   plain      every PE inits, meets the others and finalizes (with KISHMEM_SIM_PMIX_STALL, one PMIx
 *              call of one PE never returns: that PE must say where it waits, and end)
 *   compute DIR every PE writes its stderr to DIR/pe<rank>.err, says "computing" there after
 *              shmem_init and runs its own code (no kishmem call) for 60 s: orphan.sh kills the
 *              launcher meanwhile, and each PE must end itself saying why
 * A survivor that gets past the wait prints "FAIL: ..." (the library did not notice). */
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int launcher_rank(void) {
    const char* vars[] = {"PMIX_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK"};
    for (unsigned i = 0; i < sizeof vars / sizeof vars[0]; ++i)
        if (getenv(vars[i])) return atoi(getenv(vars[i]));
    return 0;
}

int main(int argc, char** argv) {
    const char* c = argc > 1 ? argv[1] : "";
    const int rank = launcher_rank();
    if (!strcmp(c, "compute") && argc > 2) { /* the launcher's pipes die with it: a file of its own */
        char path[4096];
        snprintf(path, sizeof path, "%s/pe%d.err", argv[2], rank);
        if (!freopen(path, "w", stderr)) return 2;
        setvbuf(stderr, NULL, _IONBF, 0);
    }
    fprintf(stderr, "rel_gone: rank %d pid %d\n", rank, (int)getpid());
    if (rank == 1) {
        if (!strcmp(c, "kill_init")) {
            usleep(200 * 1000);
            raise(SIGKILL);
        }
        if (!strcmp(c, "fail_init")) setenv("SHMEM_SYMMETRIC_SIZE", "12Q", 1);
        if (!strcmp(c, "size_init")) setenv("SHMEM_SYMMETRIC_SIZE", "48M", 1);
        if (!strcmp(c, "remote_init")) setenv("KISHMEM_REMOTE", "ibgda", 1);
        if (!strcmp(c, "late_init")) sleep(60);
    }
    shmem_init();
    const int me = shmem_my_pe();
    shmem_barrier_all();
    if (!strcmp(c, "plain")) {
        shmem_finalize();
        printf("rel_gone plain: PE %d ended\n", me);
        return 0;
    }
    if (!strcmp(c, "hold") && argc > 2) {
        static const char secret[] = "kishmem-perms-secret";
        const int npes = shmem_n_pes();
        char* heap = shmem_calloc(64, (size_t)npes + 1);
        long* counter = (long*)(heap + 64 * npes);
        for (int pe = 0; pe < npes; ++pe) {
            shmem_putmem(heap + 64 * me, secret, sizeof secret, pe);
            shmem_long_atomic_add(counter, 1, pe);
        }
        shmem_barrier_all();
        if (*counter != npes || memcmp(heap + 64 * ((me + 1) % npes), secret, sizeof secret) != 0) {
            printf("FAIL: rel_gone hold: PE %d: counter %ld (want %d) or a peer's secret missing\n", me, *counter, npes);
            return 1;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/pe%d.ready", argv[2], me);
        FILE* f = fopen(path, "w");
        if (!f) return 2;
        fprintf(f, "%d %p\n", (int)getpid(), (void*)heap);
        fclose(f);
        snprintf(path, sizeof path, "%s/done", argv[2]);
        for (int i = 0; i < 600 && access(path, F_OK) != 0; ++i) usleep(100 * 1000);
        shmem_barrier_all();
        shmem_free(heap);
        shmem_finalize();
        printf("rel_gone hold: PE %d done\n", me);
        return 0;
    }
    if (!strcmp(c, "compute")) {
        fprintf(stderr, "rel_gone: PE %d pid %d computing\n", me, (int)getpid());
        volatile double x = 0;
        const time_t end = time(NULL) + 60;
        while (time(NULL) < end)
            for (int i = 0; i < 1000000; ++i) x += i;
        fprintf(stderr, "FAIL: rel_gone compute: PE %d still runs 60 s later\n", me);
        return 1;
    }
    if (!strncmp(c, "late", 4) && me == shmem_n_pes() - 1) sleep(60);
    if (!strcmp(c, "late_active")) {
        static long psync[SHMEM_BARRIER_SYNC_SIZE]; /* SHMEM_SYNC_VALUE (0) before the barrier above */
        shmem_barrier(0, 0, shmem_n_pes(), psync);
    }
    if (me == 1) {
        fprintf(stderr, "rel_gone: PE 1 leaves (%s)\n", c);
        fflush(stderr);
        if (!strcmp(c, "exit")) exit(0);
        if (!strcmp(c, "kill")) raise(SIGKILL);
    }
    shmem_barrier_all();
    printf("FAIL: rel_gone %s: PE %d got past the barrier although PE 1 is gone\n", c, me);
    shmem_finalize();
    return 1;
}
