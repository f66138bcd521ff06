/* Bad input must end the job with one clear message naming the call, the PE and the value.
 * argv[1] picks the mistake; CTest matches the message (see CMakeLists.txt). */
#include <string.h>

#include <shmem.h>
#include <stdio.h>

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "finalize_before_init")) {
        shmem_finalize();
        return 0;
    }
    if (!strcmp(what, "before_init")) {
        static long x;
        shmem_long_p(&x, 1, 0);
        return 0;
    }
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *sym = shmem_malloc(sizeof(long));
    long *words = shmem_calloc(32, sizeof(long)); /* (before the cases: a collective after a case's
                                                     wait would be where the other PEs wait) */
    long local = 0;
    shmem_barrier_all();
    if (!strcmp(what, "pe") && me == npes - 1) shmem_long_p(sym, 1, npes + 3);
    if (!strcmp(what, "addr") && me == 0) shmem_long_put(&local, sym, 1, 0);
    if (!strcmp(what, "range") && me == 0) shmem_getmem(&local, (char *)sym + 8, (size_t)1 << 40, 0);
    if (!strcmp(what, "mismatch")) {
        void *p = shmem_malloc(me == 0 ? 100 : 200);
        (void)p;
    }
    if (!strcmp(what, "mismatch_56")) { /* sizes that differ only beyond bit 56 */
        void *p = shmem_malloc(me == 0 ? 64 : ((size_t)1 << 56) + 64);
        (void)p;
    }
    /* NULL buffers where data moves (NULL with nelems 0 is legal: mp_rma checks that) */
    if (!strcmp(what, "null_putmem_source") && me == 0) shmem_putmem(sym, NULL, 8, npes - 1);
    if (!strcmp(what, "null_put_dest") && me == 0) shmem_long_put(NULL, &local, 1, npes - 1);
    if (!strcmp(what, "null_getmem_dest") && me == 0) shmem_getmem(NULL, sym, 8, npes - 1);
    if (!strcmp(what, "null_get_source") && me == 0) shmem_long_get(&local, NULL, 1, npes - 1);
    if (!strcmp(what, "null_iput_source") && me == 0) shmem_long_iput(words, NULL, 2, 1, 4, npes - 1);
    if (!strcmp(what, "null_iget_dest") && me == 0) shmem_long_iget(NULL, words, 1, 2, 4, npes - 1);
    if (!strcmp(what, "null_ctx_put_nbi") && me == 0) {
        shmem_ctx_t ctx;
        shmem_ctx_create(0, &ctx);
        shmem_ctx_long_put_nbi(ctx, words, NULL, 3, npes - 1);
    }
    if (!strcmp(what, "null_get_nbi") && me == 0) shmem_getmem_nbi(NULL, sym, 8, npes - 1);
    if (!strcmp(what, "null_fetch_nbi") && me == 0) shmem_long_atomic_fetch_nbi(NULL, sym, npes - 1);
    if (!strcmp(what, "overflow") && me == 0) /* 2^61 + 1 longs: the byte count wraps to 8 */
        shmem_long_put(sym, &local, ((size_t)1 << 61) + 1, npes - 1);
    if (!strcmp(what, "overflow_strided") && me == 0) /* the span of a strided get wraps */
        shmem_long_iget(&local, sym, 1, (ptrdiff_t)1 << 61, 9, npes - 1);
    if (!strcmp(what, "amo_align") && me == 0) /* an 8-byte atomic at an address 4 bytes off */
        shmem_long_atomic_add((long *)((char *)sym + 4), 1, npes - 1);
    if (!strcmp(what, "hang") && me == 0) /* a flag nobody sets: the hang bound ends the job */
        shmem_long_wait_until(sym, SHMEM_CMP_EQ, 7);
    if (!strcmp(what, "ucx_fail") && me == 0) { /* KISHMEM_SIM_UCX_FAIL picks which step fails */
        char data[64] = {0};
        /* on stderr, the stream the library's messages take: the launcher keeps one stream's order
           but not the order between stdout and stderr, and the test reads this line first */
        fprintf(stderr, "PE 0: put to %p, then atomic on %p, both to PE %d\n", (void *)words, (void *)(words + 16), npes - 1);
        shmem_putmem_nbi(words, data, sizeof data, npes - 1);
        shmem_quiet();
        (void)shmem_long_atomic_fetch_add(words + 16, 5, npes - 1);
    }
    /* RMA into a block that was freed (collectively) and not allocated again */
    if (!strncmp(what, "freed_", 6)) {
        long *gone = shmem_malloc(64 * sizeof(long));
        shmem_free(gone);
        if (me == 0 && !strcmp(what, "freed_put")) shmem_long_put(gone + 3, &local, 1, npes - 1);
        if (me == 0 && !strcmp(what, "freed_get")) shmem_getmem(&local, gone + 60, sizeof local, npes - 1);
        if (me == 0 && !strcmp(what, "freed_atomic")) shmem_long_atomic_inc(gone, npes - 1);
    }
    if (!strcmp(what, "cmp")) shmem_long_wait_until(sym, 99, 0);
    if (!strcmp(what, "free")) shmem_free(&local);
    shmem_barrier_all();
    printf("no error was raised for '%s'\n", what);
    shmem_finalize();
    return 0;
}
