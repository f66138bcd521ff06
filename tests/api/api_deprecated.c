/* Deprecated API that OpenSHMEM 1.5 still requires ("Deprecated API" annex: supported until the
 * specification says otherwise): the mpp/ header directory, start_pes with implicit
 * finalization, _my_pe / _num_pes, shmalloc / shfree / shrealloc / shmemalign, the pre-1.4 AMO
 * names (shmem_TYPENAME_fetch/set/swap/cswap/finc/inc/fadd/add and the C11 generic shmem_fetch,
 * shmem_set, ...), shmem_TYPENAME_wait / shmem_wait and the long-typed shmem_wait_until.
 * Old programs call these; they must compile, link and behave as their replacements.
 *
 * The program starts with start_pes and does not call shmem_finalize: finalization is implicit
 * at exit. */
#include "api_check.h"

#include <mpp/shmem.h>
#include <mpp/shmemx.h>

/* pre-1.4 AMO names: standard AMO types of 1.3 */
#define OLD_AMO(T, NAME)                                                                           \
    static void old_amo_##NAME(int me, int npes, int right, int left) {                            \
        T *v = (T *)shmalloc(4 * sizeof(T));                                                       \
        for (int i = 0; i < 4; ++i) v[i] = 0;                                                      \
        shmem_barrier_all();                                                                       \
        for (int pe = 0; pe < npes; ++pe) {                                                        \
            shmem_##NAME##_inc(&v[0], pe);                                                         \
            shmem_##NAME##_add(&v[0], (T)2, pe);                                                   \
            (void)shmem_##NAME##_finc(&v[1], pe);                                                  \
            (void)shmem_##NAME##_fadd(&v[1], (T)3, pe);                                            \
            shmem_inc(&v[3], pe);            /* C11 generic, deprecated */                         \
            (void)shmem_fadd(&v[3], (T)2, pe);                                                     \
        }                                                                                          \
        shmem_##NAME##_set(&v[2], (T)(me + 1), right);                                             \
        shmem_barrier_all();                                                                       \
        CHECK(v[0] == (T)(3 * npes) && v[1] == (T)(4 * npes) && v[3] == (T)(3 * npes), "old " #NAME " inc/add/finc/fadd"); \
        CHECK(v[2] == (T)(left + 1), "shmem_" #NAME "_set");                                       \
        CHECK(shmem_##NAME##_fetch(&v[2], right) == (T)(me + 1), "shmem_" #NAME "_fetch");         \
        CHECK(shmem_fetch(&v[2], right) == (T)(me + 1), "generic shmem_fetch (" #NAME ")");        \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_##NAME##_swap(&v[2], (T)(me + 5), right) == (T)(me + 1), "shmem_" #NAME "_swap"); \
        CHECK(shmem_##NAME##_cswap(&v[2], (T)(me + 5), (T)(me + 6), right) == (T)(me + 5), "shmem_" #NAME "_cswap"); \
        CHECK(shmem_swap(&v[2], (T)(me + 7), right) == (T)(me + 6), "generic shmem_swap (" #NAME ")"); \
        CHECK(shmem_cswap(&v[2], (T)(me + 7), (T)(me + 8), right) == (T)(me + 7), "generic shmem_cswap (" #NAME ")"); \
        CHECK(shmem_finc(&v[2], right) == (T)(me + 8), "generic shmem_finc (" #NAME ")");          \
        shmem_add(&v[2], (T)10, right);                                                            \
        shmem_set(&v[1], (T)0, right);                                                             \
        shmem_barrier_all();                                                                       \
        CHECK(v[2] == (T)(left + 19) && v[1] == 0, "generic shmem_add / shmem_set (" #NAME ")");   \
        shmem_barrier_all();                                                                       \
        shfree(v);                                                                                 \
    }
OLD_AMO(int, int)
OLD_AMO(long, long)
OLD_AMO(long long, longlong)

#define OLD_EXT(T, NAME)                                                                           \
    static void old_ext_##NAME(int me, int right, int left) {                                      \
        T *v = (T *)shmalloc(sizeof(T));                                                           \
        shmem_barrier_all();                                                                       \
        shmem_##NAME##_set(v, (T)(me + 0.5), right);                                               \
        shmem_barrier_all();                                                                       \
        CHECK(*v == (T)(left + 0.5), "shmem_" #NAME "_set");                                       \
        CHECK(shmem_##NAME##_fetch(v, right) == (T)(me + 0.5), "shmem_" #NAME "_fetch");           \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_##NAME##_swap(v, (T)-3, right) == (T)(me + 0.5), "shmem_" #NAME "_swap");      \
        shmem_barrier_all();                                                                       \
        shfree(v);                                                                                 \
    }
OLD_EXT(float, float)
OLD_EXT(double, double)

#define OLD_WAIT(T, NAME)                                                                          \
    static void old_wait_##NAME(int me, int right, int left) {                                     \
        T *v = (T *)shmalloc(2 * sizeof(T));                                                       \
        v[0] = v[1] = 0;                                                                           \
        shmem_barrier_all();                                                                       \
        shmem_##NAME##_p(&v[0], (T)(me + 1), right);                                               \
        shmem_##NAME##_wait(&v[0], (T)0); /* until it is no longer 0 */                           \
        CHECK(v[0] == (T)(left + 1), "shmem_" #NAME "_wait returned with %lld", (long long)v[0]);   \
        shmem_barrier_all();                                                                       \
        shfree(v);                                                                                 \
    }
OLD_WAIT(short, short)
OLD_WAIT(int, int)
OLD_WAIT(long, long)
OLD_WAIT(long long, longlong)

int main(void) {
    start_pes(0);
    int me = _my_pe(), npes = _num_pes();
    CHECK(me == shmem_my_pe() && npes == shmem_n_pes(), "_my_pe / _num_pes differ from shmem_my_pe / shmem_n_pes");
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    /* the old allocator names are the symmetric allocator */
    long *a = shmalloc(16 * sizeof(long));
    long *b = shmemalign(64, 8 * sizeof(long));
    CHECK(a && b && ((uintptr_t)b % 64) == 0, "shmalloc / shmemalign");
    for (int i = 0; i < 16; ++i) a[i] = me * 100 + i;
    a = shrealloc(a, 4096 * sizeof(long));
    CHECK(a != NULL, "shrealloc");
    for (int i = 0; i < 16; ++i) CHECK(a[i] == me * 100 + i, "shrealloc lost element %d", i);
    shmem_barrier_all();
    shmem_long_put(b, &a[0], 1, right);
    shmem_barrier_all();
    CHECK(b[0] == left * 100, "put into shmemalign memory");

    /* long-typed shmem_wait and shmem_wait_until */
    long *w = shmalloc(2 * sizeof(long));
    w[0] = w[1] = 0;
    shmem_barrier_all();
    shmem_long_p(&w[0], 5, right);
    shmem_wait(&w[0], 0);
    shmem_long_p(&w[1], 6, right);
    shmem_wait_until(&w[1], SHMEM_CMP_EQ, 6);
    CHECK(w[0] == 5 && w[1] == 6, "shmem_wait / shmem_wait_until");
    shmem_barrier_all();

    old_amo_int(me, npes, right, left);
    old_amo_long(me, npes, right, left);
    old_amo_longlong(me, npes, right, left);
    old_ext_float(me, right, left);
    old_ext_double(me, right, left);
    old_wait_short(me, right, left);
    old_wait_int(me, right, left);
    old_wait_long(me, right, left);
    old_wait_longlong(me, right, left);

    shfree(w);
    shfree(b);
    shfree(a);
    mp_pass("api_deprecated");
    return 0; /* implicit finalization */
}
