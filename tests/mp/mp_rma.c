/* RMA between all PEs: a ring of puts, a get from every PE, every typed and sized form, p/g,
 * the _nbi forms completed by quiet, and zero-length transfers (with NULL buffers, which nelems 0 allows). */
#include <string.h>

#include "mp_check.h"

#define N 4099 /* odd: not a multiple of any word size */

/* Each type: put a pattern to the right neighbour, get it back from there, p and g. */
#define TYPED_RMA(T, NAME)                                                                   \
    {                                                                                        \
        T *sym = (T *)shmem_calloc(64, sizeof(T));                                           \
        T src[64], back[64];                                                                 \
        for (int i = 0; i < 64; ++i) src[i] = (T)((me * 64 + i) % 100);                     \
        shmem_##NAME##_put(sym, src, 64, right);                                            \
        shmem_barrier_all();                                                                 \
        for (int i = 0; i < 64; ++i)                                                         \
            CHECK(sym[i] == (T)((left * 64 + i) % 100), #NAME "_put element %d", i);         \
        shmem_##NAME##_get(back, sym, 64, right);                                            \
        for (int i = 0; i < 64; ++i) CHECK(back[i] == src[i], #NAME "_get element %d", i);   \
        shmem_barrier_all();                                                                 \
        shmem_##NAME##_p(&sym[me % 64], (T)(me + 1), right);                                 \
        shmem_barrier_all();                                                                 \
        CHECK(sym[left % 64] == (T)(left + 1), #NAME "_p");                                  \
        CHECK(shmem_##NAME##_g(&sym[me % 64], right) == (T)(me + 1), #NAME "_g");           \
        shmem_barrier_all();                                                                 \
        shmem_free(sym);                                                                     \
    }

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    /* ring of putmem */
    unsigned char *buf = shmem_malloc(N);
    unsigned char src[N];
    for (int i = 0; i < N; ++i) src[i] = (unsigned char)(me * 31 + i);
    shmem_putmem(buf, src, N, right);
    shmem_barrier_all();
    for (int i = 0; i < N; ++i) CHECK(buf[i] == (unsigned char)(left * 31 + i), "ring byte %d is %d", i, buf[i]);

    /* get from every PE (its own bytes are me*31+i shifted by one ring step) */
    unsigned char got[N];
    for (int pe = 0; pe < npes; ++pe) {
        memset(got, 0xEE, N);
        shmem_getmem(got, buf, N, pe);
        int from = (pe + npes - 1) % npes;
        for (int i = 0; i < N; ++i) CHECK(got[i] == (unsigned char)(from * 31 + i), "get from PE %d byte %d", pe, i);
    }
    shmem_barrier_all();

    /* non-blocking: many small puts then quiet; gets then quiet */
    long *arr = shmem_calloc(256, sizeof(long));
    for (int i = 0; i < 256; ++i) {
        long v = me * 1000 + i;
        shmem_long_put_nbi(&arr[i], &v, 1, right); /* source is reusable only after quiet: */
        shmem_quiet();                              /* v changes every iteration */
    }
    long block[256];
    for (int i = 0; i < 256; ++i) block[i] = -i;
    shmem_putmem_nbi(arr, block, 0, right); /* zero length: nothing moves */
    /* NULL is legal where nothing moves (nelems 0): no error, and nothing changes */
    shmem_putmem(NULL, NULL, 0, right);
    shmem_long_put(arr, NULL, 0, right);
    shmem_getmem(NULL, arr, 0, right);
    shmem_long_get_nbi(NULL, NULL, 0, right);
    shmem_long_iput(NULL, NULL, 1, 1, 0, right);
    shmem_long_iget(NULL, NULL, 1, 1, 0, right);
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < 256; ++i) CHECK(arr[i] == left * 1000 + i, "put_nbi element %d = %ld", i, arr[i]);
    long gb[256];
    shmem_long_get_nbi(gb, arr, 256, right);
    shmem_quiet();
    for (int i = 0; i < 256; ++i) CHECK(gb[i] == me * 1000 + i, "get_nbi element %d = %ld", i, gb[i]);
    shmem_barrier_all();

    /* sized forms */
    uint64_t *w = shmem_calloc(8, 16);
    uint64_t s16[16];
    for (int i = 0; i < 16; ++i) s16[i] = ((uint64_t)me << 32) | (uint64_t)i;
    shmem_put128(w, s16, 8, right);
    shmem_barrier_all();
    for (int i = 0; i < 16; ++i) CHECK(w[i] == (((uint64_t)left << 32) | (uint64_t)i), "put128 word %d", i);
    uint32_t g32[4];
    shmem_get32(g32, w, 4, me);
    CHECK(g32[0] == (uint32_t)0 && g32[1] == (uint32_t)left, "get32 from self");
    shmem_barrier_all();

    KISHMEM_RMA_TYPES(TYPED_RMA)

    shmem_free(w);
    shmem_free(arr);
    shmem_free(buf);
    mp_pass("mp_rma");
    shmem_finalize();
    return 0;
}
