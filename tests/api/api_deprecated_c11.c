/* The untyped deprecated shmem_wait and shmem_wait_until (OpenSHMEM 1.5 "SHMEM_WAIT_UNTIL", C/C++
 * deprecated forms void shmem_wait(long *ivar, long cmp_value) and void shmem_wait_until(long
 * *ivar, int cmp, long cmp_value)) in a C11 program, where the same names are also generic
 * selections: a plain call (the generic picks the long form), a call through parentheses (the
 * function itself), and calls through the functions' addresses.  shmem_wait returns once *ivar
 * differs from cmp_value; shmem_wait_until once the comparison holds. */
#include "api_check.h"

typedef void (*wait_fn)(long *, long);
typedef void (*wait_until_fn)(long *, int, long);

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long *w = (long *)shmem_calloc(8, sizeof(long));
    wait_fn wait_ptr = &shmem_wait;
    wait_until_fn until_ptr = shmem_wait_until;
    CHECK(wait_ptr != NULL && until_ptr != NULL, "the functions have no address");
    shmem_barrier_all();
    for (int round = 0; round < 3; ++round) {  /* generic call, parenthesised name, pointer */
        long *a = &w[1 + 2 * round], *b = &w[2 + 2 * round];
        api_sleep_us(1000 * ((me + round) % 2));
        shmem_long_p(a, 10 * round + me + 5, right);
        if (round == 0) shmem_wait(a, 0);
        else if (round == 1) (shmem_wait)(a, 0);
        else wait_ptr(a, 0);
        CHECK(*a == 10 * round + left + 5, "round %d: shmem_wait returned with %ld, expected %d", round, *a,
              10 * round + left + 5);
        shmem_long_p(b, 10 * round + me + 7, right);
        if (round == 0) shmem_wait_until(b, SHMEM_CMP_GE, 7);
        else if (round == 1) (shmem_wait_until)(b, SHMEM_CMP_GE, 7);
        else until_ptr(b, SHMEM_CMP_GE, 7);
        CHECK(*b == 10 * round + left + 7, "round %d: shmem_wait_until returned with %ld, expected %d", round, *b,
              10 * round + left + 7);
    }
    until_ptr(&w[0], SHMEM_CMP_EQ, 0); /* already true: returns at once */
    shmem_barrier_all();
    shmem_free(w);
    mp_pass("api_deprecated_c11");
    shmem_finalize();
    return 0;
}
