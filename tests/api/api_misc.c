/* Library constants, query routines, shmem_malloc_with_hints, the profiling control call and
 * the deprecated cache-management routines (OpenSHMEM 1.5 "Library Constants", "Library
 * Setup, Exit, and Query Routines", "shmem_malloc_with_hints", "shmem_pcontrol",
 * "Cache Management").
 *
 * Rules exercised:
 *  - shmem_info_get_version gives SHMEM_MAJOR_VERSION.SHMEM_MINOR_VERSION; shmem_info_get_name
 *    gives SHMEM_VENDOR_STRING, a null-terminated string shorter than SHMEM_MAX_NAME_LEN; the
 *    deprecated _SHMEM_* constants equal their replacements;
 *  - shmem_malloc_with_hints: symmetric memory usable with the hinted operations (AMOs for
 *    SHMEM_MALLOC_ATOMICS_REMOTE, signals for SHMEM_MALLOC_SIGNAL_REMOTE), suitably aligned, null
 *    for size 0; hints 0 behaves as shmem_malloc;
 *  - the cache routines exist, link, and leave data alone;
 *  - shmem_pcontrol accepts the levels 0, 1, 2 and others;
 *  - the extensions header shmemx.h exists (the spec requires it even when empty). */
#include "api_check.h"

#include <shmemx.h>
#include <stdalign.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    /* version and name */
    int major = -1, minor = -1;
    char name[SHMEM_MAX_NAME_LEN];
    memset(name, 'x', sizeof name);
    shmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION, "info_get_version %d.%d vs constants %d.%d",
          major, minor, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    CHECK(major == 1 && minor >= 5, "version %d.%d: this library implements OpenSHMEM 1.5 at least", major, minor);
    CHECK(memchr(name, '\0', sizeof name) != NULL, "info_get_name is not null-terminated within SHMEM_MAX_NAME_LEN");
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0, "info_get_name '%s' != SHMEM_VENDOR_STRING '%s'", name, SHMEM_VENDOR_STRING);
    CHECK(strlen(SHMEM_VENDOR_STRING) < SHMEM_MAX_NAME_LEN, "SHMEM_VENDOR_STRING longer than SHMEM_MAX_NAME_LEN");
    CHECK(_SHMEM_MAJOR_VERSION == SHMEM_MAJOR_VERSION && _SHMEM_MINOR_VERSION == SHMEM_MINOR_VERSION &&
              _SHMEM_MAX_NAME_LEN == SHMEM_MAX_NAME_LEN && strcmp(_SHMEM_VENDOR_STRING, SHMEM_VENDOR_STRING) == 0,
          "deprecated _SHMEM_ version constants");
    CHECK(_SHMEM_CMP_EQ == SHMEM_CMP_EQ && _SHMEM_CMP_NE == SHMEM_CMP_NE && _SHMEM_CMP_LT == SHMEM_CMP_LT &&
              _SHMEM_CMP_LE == SHMEM_CMP_LE && _SHMEM_CMP_GT == SHMEM_CMP_GT && _SHMEM_CMP_GE == SHMEM_CMP_GE,
          "deprecated _SHMEM_CMP_ constants");
    CHECK(_SHMEM_SYNC_VALUE == SHMEM_SYNC_VALUE && _SHMEM_BARRIER_SYNC_SIZE == SHMEM_BARRIER_SYNC_SIZE &&
              _SHMEM_BCAST_SYNC_SIZE == SHMEM_BCAST_SYNC_SIZE && _SHMEM_COLLECT_SYNC_SIZE == SHMEM_COLLECT_SYNC_SIZE &&
              _SHMEM_REDUCE_SYNC_SIZE == SHMEM_REDUCE_SYNC_SIZE &&
              _SHMEM_REDUCE_MIN_WRKDATA_SIZE == SHMEM_REDUCE_MIN_WRKDATA_SIZE,
          "deprecated _SHMEM_ collective constants");
    CHECK(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED && SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED &&
              SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE,
          "thread levels are not monotonic");
    int provided = -1;
    shmem_query_thread(&provided);
    CHECK(provided >= SHMEM_THREAD_SINGLE && provided <= SHMEM_THREAD_MULTIPLE, "query_thread after shmem_init: %d", provided);
    CHECK(SHMEM_MALLOC_ATOMICS_REMOTE != SHMEM_MALLOC_SIGNAL_REMOTE, "the malloc hints are not distinct");
    CHECK(SHMEM_TEAM_NUM_CONTEXTS != 0, "SHMEM_TEAM_NUM_CONTEXTS is no mask bit");

    /* shmem_malloc_with_hints */
    static const long hints[] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                                 SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE};
    char *anchor = shmem_malloc(64);
    for (int h = 0; h < 4; ++h) {
        uint64_t *p = shmem_malloc_with_hints(1000 * sizeof(uint64_t), hints[h]);
        CHECK(p != NULL, "shmem_malloc_with_hints(8000, %ld) returned NULL", hints[h]);
        CHECK((uintptr_t)p % alignof(max_align_t) == 0, "shmem_malloc_with_hints result %p is not suitably aligned", (void *)p);
        /* symmetric: the same offset from another symmetric block on every PE */
        long off = (long)((char *)p - anchor), off_right = -1;
        long *offs = shmem_malloc(sizeof(long));
        *offs = off;
        shmem_barrier_all();
        off_right = shmem_long_g(offs, right);
        CHECK(off_right == off, "malloc_with_hints(%ld): offset %ld here, %ld on PE %d", hints[h], off, off_right, right);
        shmem_barrier_all();
        shmem_free(offs);
        for (int i = 0; i < 1000; ++i) p[i] = 0;
        shmem_barrier_all();
        for (int pe = 0; pe < npes; ++pe) shmem_uint64_atomic_add(&p[0], (uint64_t)me + 1, pe);
        uint64_t val = 77 + (uint64_t)me;
        shmem_putmem_signal(&p[10], &val, sizeof val, &p[1], 1, SHMEM_SIGNAL_ADD, right);
        shmem_uint64_put(&p[500], &val, 1, right);
        shmem_barrier_all();
        CHECK(p[0] == (uint64_t)npes * (npes + 1) / 2, "AMOs on malloc_with_hints(%ld) memory: %llu", hints[h], (unsigned long long)p[0]);
        CHECK(shmem_signal_fetch(&p[1]) == 1 && p[10] == 77 + (uint64_t)left, "signal on malloc_with_hints(%ld) memory", hints[h]);
        CHECK(p[500] == 77 + (uint64_t)left, "put into malloc_with_hints(%ld) memory", hints[h]);
        shmem_barrier_all();
        shmem_free(p);
    }
    CHECK(shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE) == NULL, "shmem_malloc_with_hints(0, ...) must return NULL");
    CHECK(shmem_malloc_with_hints(0, 0) == NULL, "shmem_malloc_with_hints(0, 0) must return NULL");
    shmem_free(anchor);

    /* deprecated cache management: no effect on data */
    long *c = shmem_calloc(4, sizeof(long));
    shmem_barrier_all();
    shmem_long_p(&c[0], 5 + me, right);
    shmem_set_cache_inv();
    shmem_set_cache_line_inv(&c[1]);
    shmem_clear_cache_inv();
    shmem_clear_cache_line_inv(&c[1]);
    shmem_udcflush();
    shmem_udcflush_line(&c[1]);
    shmem_barrier_all();
    CHECK(c[0] == 5 + left && c[1] == 0, "cache routines changed data");

    /* profiling control */
    shmem_pcontrol(0);
    shmem_pcontrol(1);
    shmem_pcontrol(2);
    shmem_pcontrol(7, "extra", 1);
    shmem_pcontrol(1);

    /* memory ordering calls with nothing outstanding */
    shmem_fence();
    shmem_quiet();
    shmem_ctx_fence(SHMEM_CTX_DEFAULT);
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
    shmem_sync_all();

    shmem_free(c);
    mp_pass("api_misc");
    shmem_finalize();
    return 0;
}
