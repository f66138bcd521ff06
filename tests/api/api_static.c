/* Symmetric data objects outside the heap (OpenSHMEM 1.5 "Memory Model": global and static
 * variables of a C program are symmetric and remotely accessible): RMA, AMOs, point-to-point
 * waits, locks and collectives on global and function-static variables, initialized and not,
 * the way most existing OpenSHMEM programs and test suites use them; at every PE count (one PE
 * started without a launcher too). */
#include "api_check.h"

long g_counter;                      /* zero-initialized global (.bss) */
int g_array[64] = {1, 2, 3};         /* initialized global (.data) */
double g_d = 1.5;
static long s_lock;                  /* static lock word */
static long s_src[8], s_dst[8 * 64]; /* collective buffers */
static uint64_t s_sig;
static long s_cas_lock, s_cas_count; /* a lock taken by compare_swap, and what it guards */

int main(void) {
    static int f_static[16]; /* function-static */
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    CHECK(npes <= 64, "at most 64 PEs");

    CHECK(shmem_addr_accessible(&g_counter, right) && shmem_addr_accessible(f_static, right),
          "global and static variables must be remotely accessible");
    CHECK(g_array[2] == 3 && g_d == 1.5, "initialized globals");
    /* Same-host PEs reach each other's global variables by load/store, as they do the heap
     * (shmem_ptr gives the address; the spec lets it return NULL, this library does not for
     * same-host PEs unless KISHMEM_REMOTE=ucx sends them through the network path). Every PE
     * of these tests runs on one host. */
    {
        const char *remote = getenv("KISHMEM_REMOTE");
        if (!remote || strcmp(remote, "ucx") != 0) {
            long *peer = (long *)shmem_ptr(&g_counter, right);
            CHECK(peer != NULL, "shmem_ptr of a global on same-host PE %d is NULL", right);
        }
    }
    shmem_barrier_all();

    /* RMA */
    int vals[16];
    for (int i = 0; i < 16; ++i) vals[i] = me * 16 + i;
    shmem_int_put(f_static, vals, 16, right);
    shmem_int_p(&g_array[10 + me % 50], me + 100, right);
    shmem_double_p(&g_d, 2.5 + me, right);
    shmem_barrier_all();
    for (int i = 0; i < 16; ++i) CHECK(f_static[i] == left * 16 + i, "put into a function-static array: element %d", i);
    CHECK(g_array[10 + left % 50] == left + 100 && g_array[2] == 3, "p into an initialized global array");
    CHECK(g_d == 2.5 + left, "p into an initialized global double");
    int got[16];
    shmem_int_get(got, f_static, 16, right);
    for (int i = 0; i < 16; ++i) CHECK(got[i] == me * 16 + i, "get from a function-static array: element %d", i);
    CHECK(shmem_double_g(&g_d, right) == 2.5 + me, "g of a global double");

    /* AMOs and a wait */
    for (int pe = 0; pe < npes; ++pe) shmem_long_atomic_add(&g_counter, me + 1, pe);
    shmem_barrier_all();
    CHECK(g_counter == (long)npes * (npes + 1) / 2, "atomic_add on a global: %ld", g_counter);
    shmem_barrier_all();
    shmem_long_atomic_set(&g_counter, -1 - me, right);
    shmem_long_wait_until(&g_counter, SHMEM_CMP_EQ, -1 - left);

    /* put with signal into static variables */
    long one = 1234 + me;
    shmem_long_put_signal(&s_dst[0], &one, 1, &s_sig, 9, SHMEM_SIGNAL_SET, right);
    CHECK(shmem_signal_wait_until(&s_sig, SHMEM_CMP_EQ, 9) == 9 && s_dst[0] == 1234 + left, "put_signal into statics");
    shmem_barrier_all();

    /* a static lock word */
    for (int r = 0; r < 50; ++r) {
        shmem_set_lock(&s_lock);
        int v = shmem_int_g(&g_array[0], 0);
        shmem_int_p(&g_array[0], v + 1, 0);
        shmem_clear_lock(&s_lock);
    }
    shmem_barrier_all();
    if (me == 0) CHECK(g_array[0] == 1 + 50 * npes, "static lock: counter %d, want %d", g_array[0], 1 + 50 * npes);

    /* a lock taken by compare_swap on a static word of PE 0, PE 0 spinning on its own word
     * too: a PE that spins on local atomics must still let peers' atomics on that word complete
     * (over UCX over tcp the target executes them), or the job deadlocks */
    for (int r = 0; r < 200; ++r) {
        while (shmem_long_atomic_compare_swap(&s_cas_lock, 0, me + 1, 0) != 0) {
        }
        long v = shmem_long_g(&s_cas_count, 0);
        shmem_long_p(&s_cas_count, v + 1, 0);
        shmem_quiet();
        CHECK(shmem_long_atomic_swap(&s_cas_lock, 0, 0) == me + 1, "compare_swap lock: the lock word changed while held");
    }
    shmem_barrier_all();
    if (me == 0) CHECK(s_cas_count == 200L * npes, "compare_swap lock: counter %ld, want %ld", s_cas_count, 200L * npes);

    /* collectives on static buffers */
    for (int i = 0; i < 8; ++i) s_src[i] = me * 8 + i;
    shmem_barrier_all();
    CHECK(shmem_long_fcollect(SHMEM_TEAM_WORLD, s_dst, s_src, 8) == 0, "fcollect on statics");
    for (int k = 0; k < npes; ++k)
        for (int i = 0; i < 8; ++i) CHECK(s_dst[k * 8 + i] == k * 8 + i, "fcollect on statics: PE %d element %d", k, i);
    shmem_barrier_all();
    CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, s_dst, s_src, 8) == 0, "sum_reduce on statics");
    for (int i = 0; i < 8; ++i) {
        long want = 0;
        for (int k = 0; k < npes; ++k) want += k * 8 + i;
        CHECK(s_dst[i] == want, "sum_reduce on statics: element %d", i);
    }

    mp_pass("api_static");
    shmem_finalize();
    return 0;
}
