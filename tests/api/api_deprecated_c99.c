/* The untyped deprecated shmem_wait and shmem_wait_until in a C program without C11 generic
 * selections (compiled as C99): OpenSHMEM 1.5 "Deprecated API" annex and "SHMEM_WAIT_UNTIL"
 * (C/C++ deprecated forms void shmem_wait(long *ivar, long cmp_value) and
 * void shmem_wait_until(long *ivar, int cmp, long cmp_value)).  shmem_wait returns once *ivar
 * differs from cmp_value; shmem_wait_until once the comparison holds. */
#include "api_check.h"

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long *w = (long *)shmem_calloc(3, sizeof(long));
    shmem_barrier_all();
    api_sleep_us(1000 * (me % 2));
    shmem_long_p(&w[1], me + 5, right);
    shmem_wait(&w[1], 0);
    CHECK(w[1] == left + 5, "shmem_wait returned with %ld, expected %d", w[1], left + 5);
    shmem_long_p(&w[2], me + 7, right);
    shmem_wait_until(&w[2], SHMEM_CMP_GE, 7);
    CHECK(w[2] == left + 7, "shmem_wait_until returned with %ld, expected %d", w[2], left + 7);
    shmem_wait_until(&w[0], SHMEM_CMP_EQ, 0); /* already true: returns at once */
    shmem_barrier_all();
    shmem_free(w);
    mp_pass("api_deprecated_c99");
    shmem_finalize();
    return 0;
}
