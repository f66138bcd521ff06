/* hello_pes: the smallest complete OpenSHMEM program, to check a toolchain.  Every PE writes its
 * number into its right neighbour's symmetric variable, checks what its left neighbour wrote,
 * and PE 0 counts the PEs that agree with an atomic add.  Standard OpenSHMEM 1.5 only; valid C
 * and C++.  Build it one of the three ways in README.md, then: kishmemrun -np 4 ./hello_pes */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_name(name);

    int *from_left = (int *)shmem_malloc(sizeof(int)); /* symmetric: one on every PE */
    int *agree = (int *)shmem_calloc(1, sizeof(int));
    *from_left = -1;
    shmem_barrier_all(); /* every PE has set *from_left before anyone writes it */

    shmem_int_p(from_left, me, (me + 1) % npes);
    shmem_barrier_all();

    int left = (me + npes - 1) % npes;
    int ok = *from_left == left;
    if (!ok) fprintf(stderr, "hello_pes: PE %d got %d from its left neighbour, expected %d\n", me, *from_left, left);
    shmem_int_atomic_add(agree, ok, 0);
    shmem_barrier_all();

    int status = 0;
    if (me == 0) {
        status = *agree == npes ? 0 : 1;
        printf("hello_pes: %s, %d PEs, %d of %d got their left neighbour's number: %s\n", name, npes,
               *agree, npes, status ? "FAILED" : "OK");
    }
    shmem_free(agree);
    shmem_free(from_left);
    shmem_finalize();
    return status || !ok;
}
