/* A user's C file that owns short names the public headers once used for themselves (KS, kd,
 * K_ARG0, K_HD, CHECK).  Before the includes they are defined to values that break any header
 * code that uses them; after, the checks below prove that no header defined or undefined them,
 * and the user's own definitions then work next to the API, its C11 generic selections
 * included (whose macros expand here, in the user's code).  Run as one PE: prints
 * "PASS user_macros.c". */
#include "user_names.h"  /* the user's names, set to values no header may use */

#include <shmem.h>
#include <shmemx.h>
#include <pshmem.h>

#include "user_names.h"  /* checked untouched, then undefined */

#include <stdio.h>

/* The user's own meanings.  K_ARG0 yields an int whatever its argument: a generic selection that
 * used it to pick the pointer type would find no association and fail to compile. */
#define KS 4
#define kd user_kd
#define K_ARG0(a, ...) user_arg0((long)(a))
#define K_HD static inline
#define CHECK(cond)                                                     \
    do {                                                                \
        if (!(cond)) {                                                  \
            printf("FAIL: user_macros.c:%d: %s\n", __LINE__, #cond);    \
            return 1;                                                   \
        }                                                               \
    } while (0)

K_HD int user_arg0(long a) { return (int)a; }

static long user_kd[KS];

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    long *x = (long *)shmem_malloc(KS * sizeof(long));
    CHECK(x != NULL);
    for (int i = 0; i < KS; ++i) kd[i] = 10 * i + me;
    shmem_put(x, kd, KS, me);                     /* C11 generic selection */
    shmem_barrier_all();
    for (int i = 0; i < KS; ++i) CHECK(shmem_g(&x[i], me) == 10 * i + me);
    CHECK(shmem_atomic_fetch_add(&x[0], 5L, me) == me);
    shmem_wait_until(&x[0], SHMEM_CMP_EQ, 5L + me);
    CHECK(K_ARG0(7, 0) == 7);
    CHECK(pshmem_n_pes() == npes);                /* the profiling name, same routine */
    shmem_free(x);
    shmem_finalize();
    printf("PASS user_macros.c on %d PE(s)\n", npes);
    return 0;
}
