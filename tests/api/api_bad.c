/* Bad input to the 1.5 / 1.6 API: each case must end the job with one clear message that names
 * the call and the PE ("kishmem: PE <n>: <call>: <what>"), never hang and never go on as if
 * nothing happened.  argv[1] picks the case; CMakeLists.txt matches the message.  Every case
 * runs on 2 PEs.  These are inputs whose behavior the spec leaves undefined; the implementation
 * reports them (the spec-defined SHMEM_TEAM_INVALID / SHMEM_CTX_INVALID results are checked
 * by api_teams and api_ctx instead). */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>
#include <unistd.h>

/* pWrk for nreduce up to 32: max(32 / 2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements or more */
#define PWRK_ELEMS (32 / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE)

/* Collectives whose dest and source overlap where the spec does not forbid it: each is called
 * twice with stderr captured, and the number of warnings the two calls gave is printed (the
 * warning comes once per routine); the data must still be right where kishmem defines it. */
/* Globals: a put that starts in bad_global and runs past its end would write bad_global_next. */
long bad_global[3], bad_global_next[5];

static int overlap_case(const char *what, int me, int npes, long *sym, long *psync) {
    (void)psync;
    char text[8192] = {0};
    int bad = 0;
    fflush(stderr);
    FILE *cap = tmpfile();
    int saved = dup(2);
    dup2(fileno(cap), 2);
    for (int k = 0; k < 2; ++k) {
        for (int i = 0; i < 16; ++i) sym[i] = 100 * me + i;
        shmem_barrier_all();
        if (!strcmp(what, "overlap_fcollect")) shmem_long_fcollect(SHMEM_TEAM_WORLD, sym + 1, sym, 2);
        if (!strcmp(what, "overlap_collect")) shmem_long_collect(SHMEM_TEAM_WORLD, sym + 1, sym, 2);
        if (!strcmp(what, "overlap_alltoall")) shmem_long_alltoall(SHMEM_TEAM_WORLD, sym, sym, 1);
        if (!strcmp(what, "overlap_alltoalls64")) shmem_alltoalls64(sym + 1, sym, 2, 2, 1, 0, 0, npes, psync);
        if (!strcmp(what, "overlap_broadcast")) { /* the root's dest gets source as it was */
            shmem_long_broadcast(SHMEM_TEAM_WORLD, sym + 2, sym, 6, 0);
            for (int i = 0; i < 6; ++i)
                if (sym[2 + i] != i) bad = 1;
        }
        shmem_barrier_all();
    }
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(cap);
    size_t n = fread(text, 1, sizeof text - 1, cap);
    text[n] = 0;
    fclose(cap);
    fputs(text, stderr);
    int warnings = 0;
    for (const char *p = text; (p = strstr(p, "warning: ")) != NULL; ++p) ++warnings;
    if (bad) printf("FAIL: api_bad %s: PE %d: dest is not the root's source as it was\n", what, me);
    printf("PE %d: %d warning(s) in 2 calls of %s\n", me, warnings, what);
    fflush(stdout);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "";
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *sym = shmem_calloc(64, sizeof(long));
    int *isym = shmem_calloc(64, sizeof(int));
    long *psync = shmem_malloc(SHMEM_BARRIER_SYNC_SIZE * sizeof(long));
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
    long local = 0;
    shmem_barrier_all();
    if (!strncmp(what, "overlap_", 8)) return overlap_case(what, me, npes, sym, psync);

    if (!strcmp(what, "team_destroyed")) { /* a destroyed team used in a collective */
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
        shmem_team_destroy(t);
        shmem_int_sum_reduce(t, isym, isym + 8, 1);
    }
    if (!strcmp(what, "team_invalid")) /* SHMEM_TEAM_INVALID in a collective */
        shmem_long_broadcast(SHMEM_TEAM_INVALID, sym, sym + 8, 1, 0);
    if (!strcmp(what, "team_left_out")) { /* PE 1 is left out of the even PEs and uses the handle */
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &t);
        if (me == 1) shmem_team_sync(t);
        shmem_barrier_all();
    }
    if (!strcmp(what, "ctx_destroyed") && me == 0) { /* a destroyed context */
        shmem_ctx_t c;
        shmem_ctx_create(0, &c);
        shmem_ctx_destroy(c);
        shmem_ctx_long_p(c, sym, 1, npes - 1);
        shmem_ctx_quiet(c);
    }
    if (!strcmp(what, "ctx_invalid") && me == 0) /* SHMEM_CTX_INVALID in an RMA call */
        shmem_ctx_long_put(SHMEM_CTX_INVALID, sym, sym + 8, 4, npes - 1);
    if (!strcmp(what, "team_pe_range") && me == npes - 1) { /* team PE past the team's end */
        shmem_team_t t;
        shmem_ctx_t c;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, 0, 1, NULL, 0, &t);
        shmem_team_create_ctx(t, 0, &c);
        shmem_ctx_long_p(c, sym, 1, 1); /* the team has one PE: 0 */
        shmem_ctx_quiet(c);
    }
    if (!strcmp(what, "team_pe_range") && me != npes - 1) {
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, 0, 1, NULL, 0, &t);
    }
    /* Handles that are not live: never read through, named by value. */
    if (!strcmp(what, "ctx_garbage") && me == 0)
        shmem_ctx_putmem((shmem_ctx_t)0xdeadbeef, sym, &local, sizeof local, npes - 1);
    if (!strcmp(what, "ctx_garbage_quiet") && me == 0) shmem_ctx_quiet((shmem_ctx_t)0xdeadbeef);
    if (!strcmp(what, "ctx_garbage_destroy") && me == 0) shmem_ctx_destroy((shmem_ctx_t)0xdeadbeef);
    if (!strcmp(what, "ctx_inside") && me == 0) { /* 8 bytes into a live context's object */
        shmem_ctx_t c;
        shmem_ctx_create(0, &c);
        shmem_ctx_long_atomic_inc((shmem_ctx_t)((char *)c + 8), sym, npes - 1);
    }
    if (!strcmp(what, "ctx_team_destroyed") && me == 0) { /* a context of a destroyed team */
        shmem_team_t t;
        shmem_ctx_t c;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &t);
        shmem_team_create_ctx(t, 0, &c);
        shmem_team_destroy(t);
        shmem_ctx_long_p(c, sym, 1, 0);
    }
    if (!strcmp(what, "ctx_team_destroyed") && me != 0) {
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &t);
    }
    if (!strcmp(what, "team_garbage_sync")) shmem_team_sync((shmem_team_t)0x1234);
    if (!strcmp(what, "team_garbage_coll")) shmem_long_broadcast((shmem_team_t)0x1234, sym, sym + 8, 1, 0);
    if (!strcmp(what, "team_garbage_my_pe") && me == npes - 1) (void)shmem_team_my_pe((shmem_team_t)0x1234);
    if (!strcmp(what, "team_garbage_split")) {
        shmem_team_t t;
        shmem_team_split_strided((shmem_team_t)0x1234, 0, 1, npes, NULL, 0, &t);
    }
    if (!strcmp(what, "team_garbage_ctx") && me == 0) {
        shmem_ctx_t c;
        shmem_team_create_ctx((shmem_team_t)0x1234, 0, &c);
    }
    if (!strcmp(what, "team_garbage_destroy")) shmem_team_destroy((shmem_team_t)0x1234);
    if (!strcmp(what, "team_destroyed_n_pes") && me == 0) {
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &t);
        shmem_team_destroy(t);
        (void)shmem_team_n_pes(t);
    }
    if (!strcmp(what, "team_destroyed_n_pes") && me != 0) {
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &t);
    }
    /* Collective buffers that are not symmetric (the stack), in both the active-set and the
       team forms; collect's dest size is the sum of every PE's nelems */
    if (!strcmp(what, "broadcast64_dest")) {
        long stack[4];
        shmem_broadcast64(stack, sym, 4, 0, 0, 0, npes, psync);
    }
    if (!strcmp(what, "broadcast64_root_dest")) { /* the root's dest only: it is not written, but it names the others' */
        long stack[4];
        shmem_broadcast64(me == 0 ? stack : sym, sym + 8, 4, 0, 0, 0, npes, psync);
    }
    if (!strcmp(what, "fcollect64_source")) {
        long stack[4] = {0};
        shmem_fcollect64(sym, stack, 2, 0, 0, npes, psync);
    }
    if (!strcmp(what, "collect64_dest")) {
        long stack[8];
        shmem_collect64(stack, sym, (size_t)me + 1, 0, 0, npes, psync);
    }
    if (!strcmp(what, "alltoall64_dest")) {
        long stack[8];
        shmem_alltoall64(stack, sym, 1, 0, 0, npes, psync);
    }
    if (!strcmp(what, "collectmem_dest")) {
        char stack[64];
        shmem_collectmem(SHMEM_TEAM_WORLD, stack, sym, 8 * ((size_t)me + 1));
    }
    if (!strcmp(what, "alltoallmem_source")) {
        char stack[64] = {0};
        shmem_alltoallmem(SHMEM_TEAM_WORLD, sym, stack, 8);
    }
    if (!strcmp(what, "fcollect_mismatch")) /* fcollect needs the same nelems everywhere */
        shmem_int_fcollect(SHMEM_TEAM_WORLD, isym, isym + 32, (size_t)me + 1);
    if (!strcmp(what, "reduce_mismatch"))
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sym, sym + 32, me == 0 ? 2 : 3);
    if (!strcmp(what, "broadcast_mismatch")) /* different roots */
        shmem_int_broadcast(SHMEM_TEAM_WORLD, isym, isym + 32, 4, me);
    /* Collectives that disagree: each is named, with the PE that made the other call. */
    if (!strcmp(what, "coll_kind")) { /* a barrier on PE 0, a reduction elsewhere */
        if (me == 0) shmem_barrier_all();
        else shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sym, sym + 32, 2);
    }
    if (!strcmp(what, "reduce_op")) /* sum on PE 0, max elsewhere */
        (me == 0 ? shmem_long_sum_reduce : shmem_long_max_reduce)(SHMEM_TEAM_WORLD, sym, sym + 32, 2);
    if (!strcmp(what, "broadcast_count")) /* the same root, different nelems */
        shmem_int_broadcast(SHMEM_TEAM_WORLD, isym, isym + 32, (size_t)me + 1, 0);
    if (!strcmp(what, "to_all_count")) { /* active-set reduction with different nreduce */
        long *pwrk = shmem_malloc(PWRK_ELEMS * sizeof(long));
        shmem_long_sum_to_all(sym, sym + 32, me + 1, 0, 0, npes, pwrk, psync);
    }
    if (!strcmp(what, "to_all_op")) { /* sum_to_all on PE 0, max_to_all elsewhere */
        long *pwrk = shmem_malloc(PWRK_ELEMS * sizeof(long));
        (me == 0 ? shmem_long_sum_to_all : shmem_long_max_to_all)(sym, sym + 32, 2, 0, 0, npes, pwrk, psync);
    }
    if (!strcmp(what, "fcollect_active_set")) { /* active-set fcollect with different nelems */
        shmem_fcollect64(sym, sym + 32, (size_t)me + 1, 0, 0, npes, psync);
    }
    if (!strcmp(what, "team_vs_active_set")) { /* a team barrier on PE 0, an active-set barrier elsewhere */
        if (me == 0) shmem_team_sync(SHMEM_TEAM_WORLD);
        else shmem_barrier(0, 0, npes, psync);
    }
    if (!strcmp(what, "malloc_vs_barrier")) { /* an allocation on PE 0, a barrier elsewhere */
        if (me == 0) (void)shmem_malloc(64);
        else shmem_barrier_all();
    }
    if (!strcmp(what, "barrier_vs_finalize")) { /* shmem_barrier_all on PE 0, shmem_finalize elsewhere */
        if (me == 0) shmem_barrier_all();
        else shmem_finalize();
    }
    if (!strcmp(what, "psync_uninit")) { /* a pSync that is not SHMEM_SYNC_VALUE on any PE */
        for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) psync[i] = 12345;
        shmem_barrier_all();
        shmem_barrier(0, 0, npes, psync);
    }
    if (!strcmp(what, "psync_in_use") && npes == 3) { /* one pSync in two active sets' barriers at once */
        if (me == 0) sleep(1); /* PE 2's signal for PE 1 (set {1, 2}) lands before PE 0's (set {0, 1}) */
        if (me < 2) shmem_barrier(0, 0, 2, psync);
        else shmem_barrier(1, 0, 2, psync);
    }
    if (!strcmp(what, "ctx_create_options") && me == 0) { /* options no version of the spec defines */
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT; /* 1.6: a failed call leaves the handle as it was */
        if (shmem_ctx_create(1L << 40, &ctx) != 0 && ctx == SHMEM_CTX_DEFAULT) shmem_global_exit(3);
    }
    if (!strcmp(what, "broadcast_root")) /* root outside the team */
        shmem_int_broadcast(SHMEM_TEAM_WORLD, isym, isym + 32, 4, npes);
    if (!strcmp(what, "split_mismatch")) { /* different triplets */
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, me + 1, NULL, 0, &t);
    }
    if (!strcmp(what, "active_set_range")) /* the active set runs past the last PE */
        shmem_barrier(0, 0, npes + 1, psync);
    if (!strcmp(what, "lock_stack") && me == 0) /* a lock that is not symmetric */
        shmem_set_lock(&local);
    if (!strcmp(what, "lock_private") && me == npes - 1) {
        long *priv = malloc(sizeof(long));
        *priv = 0;
        (void)shmem_test_lock(priv);
    }
    if (!strcmp(what, "clear_unheld")) { /* PE 1 releases the lock PE 0 holds */
        if (me == 0) shmem_set_lock(sym + 40);
        shmem_barrier_all();
        if (me == 1) shmem_clear_lock(sym + 40);
    }
    if (!strcmp(what, "set_twice") && me == 0) { /* a PE may hold a lock once */
        shmem_set_lock(sym + 40);
        shmem_set_lock(sym + 40);
    }
    if (!strcmp(what, "clear_free") && me == npes - 1) /* a lock nobody holds */
        shmem_clear_lock(sym + 40);
    if (!strcmp(what, "signal_op") && me == 0) /* neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD */
        shmem_long_put_signal(sym, sym + 8, 1, (uint64_t *)(sym + 16), 1, 12345, npes - 1);
    if (!strcmp(what, "wait_vector_cmp")) /* comparison operator out of range */
        (void)shmem_long_test_any_vector(sym, 4, NULL, 77, sym + 8);

    /* Pointers the routine writes through or reads, NULL or where they may not be */
    if (!strcmp(what, "split_null_team")) shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, NULL);
    if (!strcmp(what, "split2d_null_yteam")) {
        shmem_team_t x;
        shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &x, NULL, 0, NULL);
    }
    if (!strcmp(what, "split_config_null")) {
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, SHMEM_TEAM_NUM_CONTEXTS, &t);
    }
    if (!strcmp(what, "split_config_negative")) {
        shmem_team_config_t conf = {.num_contexts = -5};
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &conf, SHMEM_TEAM_NUM_CONTEXTS, &t);
    }
    if (!strcmp(what, "split_config_mask")) {
        shmem_team_config_t conf = {.num_contexts = 1};
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &conf, 1L << 40, &t);
    }
    if (!strcmp(what, "ctx_create_null") && me == 0) shmem_ctx_create(0, NULL);
    if (!strcmp(what, "ctx_get_team_null") && me == 0) shmem_ctx_get_team(SHMEM_CTX_DEFAULT, NULL);
    if (!strcmp(what, "info_version_null") && me == 0) shmem_info_get_version(NULL, NULL);
    if (!strcmp(what, "info_name_null") && me == 0) shmem_info_get_name(NULL);
    if (!strcmp(what, "query_thread_null") && me == 0) shmem_query_thread(NULL);
    if (!strcmp(what, "some_indices_null") && me == 0) (void)shmem_long_test_some(sym, 4, NULL, NULL, SHMEM_CMP_EQ, 0);
    if (!strcmp(what, "vector_cmp_values_null") && me == 0)
        (void)shmem_long_test_all_vector(sym, 4, NULL, SHMEM_CMP_EQ, NULL);
    if (!strcmp(what, "some_overlap") && me == 0) /* the indices written over ivars */
        (void)shmem_long_test_some(sym, 4, (size_t *)(sym + 2), NULL, SHMEM_CMP_EQ, 0);
    if (!strcmp(what, "pe_quiet_null") && me == 0) shmem_pe_quiet(NULL, 2);
    if (!strcmp(what, "pe_quiet_negative") && me == 0) {
        int one = 0;
        shmem_pe_quiet(&one, (size_t)-1);
    }
    if (!strcmp(what, "signal_misaligned") && me == 0) shmem_signal_add((uint64_t *)((char *)sym + 4), 1, npes - 1);
    if (!strcmp(what, "signal_fetch_misaligned") && me == 0) (void)shmem_signal_fetch((uint64_t *)((char *)sym + 4));
    if (!strcmp(what, "wait_wrap")) /* nelems whose size wraps past 2^64 (to 8 bytes) */
        shmem_int_test_all((int *)sym, SIZE_MAX / 4 + 2, NULL, SHMEM_CMP_EQ, 0);
    if (!strcmp(what, "wait_misaligned") && me == 0) shmem_long_wait_until((long *)((char *)sym + 4), SHMEM_CMP_EQ, 0);
    if (!strcmp(what, "lock_misaligned") && me == 0) shmem_set_lock((long *)((char *)sym + 4));
    if (!strcmp(what, "put_signal_misaligned") && me == 0)
        shmem_long_put_signal(sym, sym + 8, 1, (uint64_t *)((char *)sym + 132), 1, SHMEM_SIGNAL_ADD, npes - 1);

    /* A buffer that runs past the end of its symmetric block (sym holds 64 longs) */
    if (!strcmp(what, "put_past_block") && me == 0) {
        long src[16] = {0};
        shmem_long_put(sym + 56, src, 16, npes - 1);
    }
    if (!strcmp(what, "get_past_block") && me == 0) {
        long dst[128];
        shmem_getmem(dst, sym, 128 * sizeof(long), npes - 1);
    }
    if (!strcmp(what, "fcollect_dest_small")) shmem_long_fcollect(SHMEM_TEAM_WORLD, sym + 63, sym, 1);
    /* ... by more than the heap holds: the same message, not "outside the heap" */
    if (!strcmp(what, "put_past_heap") && me == 0) {
        long src[8] = {0};
        shmem_putmem(sym + 56, src, (size_t)1 << 40, npes - 1);
    }
    /* ... and past the end of a global or a function's static variable */
    if (!strcmp(what, "put_past_global") && me == 0) {
        long src[4] = {0};
        shmem_long_put(bad_global + 1, src, 2, npes - 1); /* fits: the check remembers the variable */
        shmem_long_put(bad_global + 1, src, 4, npes - 1);
    }
    if (!strcmp(what, "get_past_static") && me == 0) {
        static long local_static[2];
        long dst[3];
        shmem_long_get(dst, local_static, 3, npes - 1);
    }
    if (!strcmp(what, "put_global_huge") && me == 0) {
        long src[4] = {0};
        shmem_long_put(bad_global, src, (size_t)1 << 40, npes - 1);
    }

    /* Counts that are negative (an int -1 passed as size_t), overflow with the element size
       (also once per PE), or exceed the heap */
    if (!strcmp(what, "reduce_negative")) shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sym, sym + 32, (size_t)-1);
    if (!strcmp(what, "to_all_negative")) {
        long *pwrk = shmem_malloc(PWRK_ELEMS * sizeof(long));
        shmem_long_sum_to_all(sym, sym + 32, -3, 0, 0, npes, pwrk, psync);
    }
    if (!strcmp(what, "broadcast_negative")) shmem_int_broadcast(SHMEM_TEAM_WORLD, isym, isym + 32, (size_t)(int)-2, 0);
    if (!strcmp(what, "fcollect_negative")) shmem_fcollectmem(SHMEM_TEAM_WORLD, sym, sym + 32, (size_t)(int)-1);
    if (!strcmp(what, "collect64_negative")) shmem_collect64(sym, sym + 8, (size_t)(int)-1, 0, 0, npes, psync);
    if (!strcmp(what, "alltoall_negative")) shmem_long_alltoall(SHMEM_TEAM_WORLD, sym, sym + 32, (size_t)(int)-5);
    if (!strcmp(what, "alltoall_heap")) shmem_alltoallmem(SHMEM_TEAM_WORLD, sym, sym + 32, (size_t)1 << 40);
    if (!strcmp(what, "broadcast_overflow")) /* 2^61 + 1 longs: 2^64 + 8 bytes */
        shmem_long_broadcast(SHMEM_TEAM_WORLD, sym, sym + 32, ((size_t)1 << 61) + 1, 0);
    if (!strcmp(what, "fcollect_overflow")) /* 2^60 + 1 longs fit in 2^64 bytes, twice (2 PEs) do not */
        shmem_long_fcollect(SHMEM_TEAM_WORLD, sym, sym + 32, ((size_t)1 << 60) + 1);
    /* alltoalls strides must be at least 1 */
    if (!strcmp(what, "alltoalls_dst0")) shmem_long_alltoalls(SHMEM_TEAM_WORLD, sym, sym + 32, 0, 1, 1);
    if (!strcmp(what, "alltoalls64_sst0")) shmem_alltoalls64(sym, sym + 32, 1, 0, 1, 0, 0, npes, psync);
    /* Reductions and scans: in place or disjoint, nothing between */
    if (!strcmp(what, "reduce_overlap")) shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sym + 1, sym, 4);
    if (!strcmp(what, "scan_overlap")) shmem_long_sum_inscan(SHMEM_TEAM_WORLD, sym, sym + 3, 4);
    if (!strcmp(what, "to_all_overlap")) {
        long *pwrk = shmem_malloc(PWRK_ELEMS * sizeof(long));
        shmem_long_max_to_all(sym + 2, sym, 4, 0, 0, npes, pwrk, psync);
    }
    /* pWrk of the active-set reductions: max(nreduce/2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements */
    if (!strcmp(what, "pwrk_small")) {
        long *pwrk = shmem_malloc(2 * sizeof(long));
        shmem_long_sum_to_all(sym, sym + 32, 8, 0, 0, npes, pwrk, psync);
    }
    if (!strcmp(what, "pwrk_private")) {
        long pwrk[PWRK_ELEMS];
        shmem_long_sum_to_all(sym, sym + 32, 8, 0, 0, npes, pwrk, psync);
    }

    shmem_barrier_all();
    printf("no error was raised for '%s'\n", what);
    fflush(stdout);
    shmem_finalize();
    return 0;
}
