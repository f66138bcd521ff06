/* A plain kishmem program (no MPI) for the wrong-launch tests: started by srun without PMIx, its
 * shmem_init must stop the job with advice instead of running N one-PE jobs.  If it ever gets
 * past shmem_init it says so, and wrong_launch.sh counts that as a failure. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    printf("RAN as PE %d of %d\n", shmem_my_pe(), shmem_n_pes());
    fflush(stdout);
    shmem_finalize();
    return 0;
}
