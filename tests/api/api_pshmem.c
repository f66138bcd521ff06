/* The profiling interface (OpenSHMEM 1.5 section "Profiling Interface"): every routine has a
 * name-shifted entry point pshmem_NAME, declared in pshmem.h, so that a tool may define
 * shmem_NAME itself, record the call and forward it to pshmem_NAME ("it is possible for the
 * implementor of the profiling system to intercept the OpenSHMEM calls that are made by the
 * user program").  This program is such a tool: it defines shmem_long_p and shmem_putmem,
 * counts the calls and forwards them; the data must arrive as without the tool, and the counts
 * must be exactly the calls made.  shmem_pcontrol, the spec's no-op routine, is called through
 * both names.  (pshmem_symbols.sh checks that every routine of shmem.h has a pshmem_ name.) */
#include "api_check.h"

#include <pshmem.h>

static long n_long_p, n_putmem;

void shmem_long_p(long *dest, long value, int pe) {
    ++n_long_p;
    pshmem_long_p(dest, value, pe);
}

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe) {
    ++n_putmem;
    pshmem_putmem(dest, source, nelems, pe);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long *x = (long *)shmem_calloc(16, sizeof(long));
    char *buf = (char *)shmem_calloc(64, 1);
    char src[64];
    for (int i = 0; i < 64; ++i) src[i] = (char)(me * 3 + i);
    shmem_barrier_all();

    for (int i = 0; i < 16; ++i) shmem_long_p(&x[i], 100L * me + i, right);
    shmem_putmem(buf, src, 32, right);
    shmem_putmem(buf + 32, src + 32, 32, right);
    pshmem_long_p(&x[15], 100L * me + 15, right); /* the shifted name itself: not counted */
    shmem_barrier_all();

    CHECK(n_long_p == 16, "the interposed shmem_long_p saw %ld calls, expected 16", n_long_p);
    CHECK(n_putmem == 2, "the interposed shmem_putmem saw %ld calls, expected 2", n_putmem);
    for (int i = 0; i < 16; ++i) CHECK(x[i] == 100L * left + i, "x[%d] = %ld, expected %ld", i, x[i], 100L * left + i);
    for (int i = 0; i < 64; ++i)
        CHECK(buf[i] == (char)(left * 3 + i), "buf[%d] = %d, expected %d", i, buf[i], (char)(left * 3 + i));
    /* another routine through both names, with a value back */
    CHECK(pshmem_long_g(&x[0], right) == shmem_long_g(&x[0], right), "pshmem_long_g and shmem_long_g differ");
    shmem_pcontrol(1);
    pshmem_pcontrol(0);
    shmem_barrier_all();
    pshmem_free(buf);
    shmem_free(x);
    mp_pass("api_pshmem");
    pshmem_finalize();
    return 0;
}
