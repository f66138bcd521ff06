/* shmem_global_exit passes its status to the execution environment (OpenSHMEM 1.5 section
 * "SHMEM_GLOBAL_EXIT": "passing an exit status to the execution environment ... control is
 * returned from the OpenSHMEM program to the execution environment for all PEs").
 *
 * api_global_exit STATUS: PE 1 (PE 0 when it runs alone) calls shmem_global_exit(STATUS) while
 * every other PE waits in shmem_barrier_all, a barrier PE 1 never enters; the launcher must end
 * the job with STATUS (CMake runs it with 0 and 3, under mpirun and without a launcher, and
 * compares the exit status).  A PE that leaves the barrier prints FAIL and exits with 99. */
#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>

int main(int argc, char **argv) {
    int status = argc > 1 ? atoi(argv[1]) : 0;
    shmem_init();
    int me = shmem_my_pe(), caller = shmem_n_pes() > 1 ? 1 : 0;
    shmem_barrier_all(); /* everybody is up */
    if (me == caller) {
        printf("PE %d calls shmem_global_exit(%d)\n", me, status);
        fflush(stdout);
        shmem_global_exit(status);
        fprintf(stderr, "FAIL: PE %d: shmem_global_exit returned\n", me);
        return 99;
    }
    shmem_barrier_all(); /* never completes: PE 1 is gone */
    fprintf(stderr, "FAIL: PE %d: left a barrier that PE 1 never entered\n", me);
    return 99;
}
