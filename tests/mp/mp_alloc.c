/* Symmetric allocation: churn with matching offsets on every PE, calloc zeroes, align aligns,
 * realloc keeps contents, exhaustion returns NULL, shmem_ptr and the accessibility queries. */
#include <string.h>

#include "mp_check.h"

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    char *base = shmem_malloc(64); /* reference point: offsets are relative to it */
    long *offs = shmem_calloc(512, sizeof(long));
    void *live[64] = {0};
    unsigned rng = 12345; /* the same sequence on every PE */
    int n = 0;
    for (int i = 0; i < 512; ++i) {
        rng = rng * 1103515245u + 12345u;
        int k = (rng >> 8) % 64;
        if (live[k]) {
            shmem_free(live[k]);
            live[k] = NULL;
        }
        size_t sz = 1 + (rng >> 4) % 20000;
        live[k] = (i % 7 == 0) ? shmem_align(4096, sz) : shmem_malloc(sz);
        CHECK(live[k] != NULL, "allocation %d of %zu bytes failed", i, sz);
        if (i % 7 == 0) CHECK(((uintptr_t)live[k] & 4095) == 0, "shmem_align(4096) gave %p", live[k]);
        offs[n++] = (char *)live[k] - base;
        memset(live[k], me, sz); /* the whole block is usable */
    }
    shmem_barrier_all(); /* PE 0 has recorded its last offset */
    /* compare every offset with PE 0's */
    long *ref = malloc(sizeof(long) * 512);
    shmem_long_get(ref, offs, 512, 0);
    for (int i = 0; i < n; ++i) CHECK(ref[i] == offs[i], "allocation %d at offset %ld here, %ld on PE 0", i, offs[i], ref[i]);
    for (int k = 0; k < 64; ++k) shmem_free(live[k]);

    /* calloc zeroes even reused memory */
    char *dirty = shmem_malloc(100000);
    memset(dirty, 0x5A, 100000);
    shmem_free(dirty);
    char *z = shmem_calloc(1000, 100);
    for (int i = 0; i < 100000; ++i) CHECK(z[i] == 0, "calloc byte %d = %d", i, z[i]);

    /* realloc: contents kept, symmetric, usable remotely */
    int *r = shmem_malloc(16 * sizeof(int));
    for (int i = 0; i < 16; ++i) r[i] = me * 100 + i;
    char *blocker = shmem_malloc(8);
    r = shmem_realloc(r, 100000 * sizeof(int));
    CHECK(r != NULL, "realloc grow");
    for (int i = 0; i < 16; ++i) CHECK(r[i] == me * 100 + i, "realloc lost element %d", i);
    shmem_int_p(&r[99999], me, (me + 1) % npes);
    shmem_barrier_all();
    CHECK(r[99999] == (me + npes - 1) % npes, "put into realloc'd block");

    /* exhaustion: NULL (and a warning), then the heap still works */
    void *huge = shmem_malloc((size_t)1 << 40);
    CHECK(huge == NULL, "a 1 TiB allocation succeeded");
    CHECK(shmem_malloc(0) == NULL, "malloc(0) must return NULL");
    shmem_free(NULL);
    /* the spec: a routine that performs no action does not barrier; PE 0 alone makes these calls,
     * and the barrier that follows must pair with the others' barrier, not with them */
    if (me == 0) {
        shmem_free(NULL);
        CHECK(shmem_malloc(0) == NULL && shmem_align(64, 0) == NULL && shmem_realloc(NULL, 0) == NULL,
              "size 0 on one PE must return NULL");
    }
    shmem_barrier_all();

    /* queries */
    CHECK(shmem_addr_accessible(r, (me + 1) % npes), "addr_accessible(heap)");
    int stack_var = 0;
    CHECK(!shmem_addr_accessible(&stack_var, 0), "addr_accessible(stack)");
    CHECK(shmem_pe_accessible(npes - 1) && !shmem_pe_accessible(npes) && !shmem_pe_accessible(-1), "pe_accessible");
    CHECK(shmem_ptr(r, me) == r, "shmem_ptr to self");
    CHECK(shmem_ptr(&stack_var, 0) == NULL, "shmem_ptr of a non-symmetric address");
    int *peer = shmem_ptr(r, (me + 1) % npes);
    int left_shares = shmem_ptr(r, (me + npes - 1) % npes) != NULL; /* the left PE stores into us */
    if (!getenv("KISHMEM_TEST_MULTIHOST")) CHECK(peer != NULL, "shmem_ptr to a same-host PE is NULL");
    shmem_barrier_all();
    if (peer) peer[5] = 4242 + me; /* same host: a usable pointer */
    shmem_barrier_all();
    if (left_shares) CHECK(r[5] == 4242 + (me + npes - 1) % npes, "store through shmem_ptr");
    int major, minor;
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    CHECK(major == 1 && minor == 5 && strcmp(name, "kishmem") == 0, "info %d.%d %s", major, minor, name);

    shmem_free(blocker);
    shmem_free(r);
    shmem_free(z);
    shmem_free(offs);
    shmem_free(base);
    free(ref);
    mp_pass("mp_alloc");
    shmem_finalize();
    return 0;
}
