/* shmem_align (OpenSHMEM 1.5 section "SHMEM_MALLOC, SHMEM_FREE, SHMEM_REALLOC, SHMEM_ALIGN"):
 * "The shmem_align routine allocates a block in the symmetric heap that has a byte alignment
 * specified by the alignment argument."  The address itself must be a multiple of the
 * alignment (whatever the heap's base happens to be), the block must be symmetric (the same
 * object on every PE: a put through the same address lands in the block of the PE named) and
 * usable over its whole length.  Alignments up to half the 64 MiB test heap (SHMEM_SYMMETRIC_SIZE
 * in tests/CMakeLists.txt), then the whole heap in one block. */
#include "api_check.h"

#include <stdlib.h>
#include <string.h>

#define MIB ((size_t)1 << 20)

/* Fills the first and last words of the right neighbour's block, then checks what the left
 * neighbour wrote into this PE's block. */
static void check_block(long *p, size_t align, size_t size) {
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    size_t n = size / sizeof(long);
    CHECK(p != NULL, "shmem_align(%zu, %zu) returned NULL", align, size);
    CHECK(((uintptr_t)p % align) == 0, "shmem_align(%zu, %zu) = %p is not a multiple of %zu (remainder %zu)", align,
          size, (void *)p, align, (size_t)((uintptr_t)p % align));
    CHECK(shmem_addr_accessible(p, right) && shmem_addr_accessible(p + n - 1, right),
          "shmem_align(%zu, %zu) block is not accessible on PE %d", align, size, right);
    p[0] = p[n - 1] = -1;
    shmem_barrier_all();
    long v0 = 1000 * me + 1, v1 = 1000 * me + 2;
    shmem_long_p(p, v0, right);
    shmem_long_p(p + n - 1, v1, right);
    shmem_barrier_all();
    CHECK(p[0] == 1000 * left + 1 && p[n - 1] == 1000 * left + 2,
          "shmem_align(%zu, %zu): block holds %ld, %ld, expected %ld, %ld from PE %d", align, size, p[0], p[n - 1],
          1000L * left + 1, 1000L * left + 2, left);
    /* and read back from the neighbour: what this PE put there */
    CHECK(shmem_long_g(p, right) == v0 && shmem_long_g(p + n - 1, right) == v1, "get back from PE %d", right);
    shmem_barrier_all();
}

int main(void) {
    shmem_init();
    static const struct {
        size_t align, size;
    } cases[] = {
        {64, MIB},       {4096, 100},     {MIB, 8 * MIB}, {8 * MIB, MIB},
        {4 * MIB, 24},   {2 * MIB, 3 * MIB}, {16 * MIB, 4096}, {32 * MIB, 16},
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);

    /* one at a time, after a small allocation that shifts the heap's first free offset */
    long *shift = shmem_malloc(24);
    CHECK(shift != NULL, "shmem_malloc(24)");
    for (int i = 0; i < ncases; ++i) {
        long *p = shmem_align(cases[i].align, cases[i].size);
        check_block(p, cases[i].align, cases[i].size);
        shmem_free(p);
    }

    /* several live at once, interleaved with unaligned allocations */
    long *live[4], *small[4];
    for (int i = 0; i < 4; ++i) {
        small[i] = shmem_malloc(40 + 8 * i);
        live[i] = shmem_align(cases[2 + i].align, cases[2 + i].size);
        CHECK(small[i] != NULL, "shmem_malloc(%d)", 40 + 8 * i);
    }
    for (int i = 0; i < 4; ++i) check_block(live[i], cases[2 + i].align, cases[2 + i].size);
    for (int i = 0; i < 4; ++i) {
        shmem_free(live[i]);
        shmem_free(small[i]);
    }
    shmem_free(shift);

    /* "SHMEM_SYMMETRIC_SIZE: Number of bytes to allocate for symmetric heap": with nothing else
     * allocated, the program gets all of them (the runtime's own regions are not taken from it),
     * and not one block more. */
    const char *set = getenv("SHMEM_SYMMETRIC_SIZE");
    CHECK(set != NULL && strcmp(set, "64M") == 0, "the test expects SHMEM_SYMMETRIC_SIZE=64M, has %s", set ? set : "(unset)");
    long *whole = shmem_malloc(64 * MIB);
    check_block(whole, 64, 64 * MIB);
    long *more = shmem_malloc(64);
    CHECK(more == NULL, "shmem_malloc(64) beside a block of the whole SHMEM_SYMMETRIC_SIZE returned %p", (void *)more);
    shmem_free(whole);
    mp_pass("api_align");
    shmem_finalize();
    return 0;
}
