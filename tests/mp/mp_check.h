/* Helpers for multi-process tests: a failed check names the PE, the place and the values, and
 * ends the whole job with a non-zero status. */
#ifndef MP_CHECK_H
#define MP_CHECK_H
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "FAIL: PE %d: %s:%d: %s: ", shmem_my_pe(), __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
            fflush(stderr);                                                                \
            shmem_global_exit(1);                                                          \
        }                                                                                  \
    } while (0)

/* PE 0 prints the closing line after a final barrier. */
static inline void mp_pass(const char *name) {
    shmem_barrier_all();
    if (shmem_my_pe() == 0) printf("PASS %s on %d PEs\n", name, shmem_n_pes());
    fflush(stdout);
}
#endif
