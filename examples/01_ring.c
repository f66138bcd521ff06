/* 01_ring: every PE puts a block into its right neighbour's buffer, then all PEs check what
 * arrived and agree on a checksum with atomics on PE 0.  Run: mpirun -np 4 ./01_ring */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    long *dst = shmem_malloc(N * sizeof(long));
    long *sum = shmem_calloc(1, sizeof(long));
    long src[N];
    for (int i = 0; i < N; ++i) src[i] = (long)me * N + i;

    shmem_long_put(dst, src, N, right);
    shmem_barrier_all();

    long local = 0;
    int bad = 0;
    for (int i = 0; i < N; ++i) {
        if (dst[i] != (long)left * N + i) ++bad;
        local += dst[i];
    }
    shmem_long_atomic_add(sum, local, 0);
    shmem_barrier_all();

    if (me == 0) {
        long total = (long)npes * N * ((long)npes * N - 1) / 2; /* sum of 0 .. npes*N-1 */
        long got = *sum;
        printf("ring of %d PEs, %d longs each: %s (checksum %ld, expected %ld)\n", npes, N,
               got == total ? "OK" : "WRONG", got, total);
        if (got != total) bad = 1;
    }
    if (bad) fprintf(stderr, "PE %d: %d wrong elements\n", me, bad);
    shmem_free(sum);
    shmem_free(dst);
    shmem_finalize();
    return bad ? 1 : 0;
}
