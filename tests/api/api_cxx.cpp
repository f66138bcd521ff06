// The API from C++: shmem.h compiles as C++, the typed C routines link with C linkage, and the
// C++ overloads named like the C11 generic routines (shmem_put, shmem_atomic_fetch_add,
// shmem_wait_until, shmem_sum_reduce, ...) pick the routine of the argument's type.  Every call
// is checked for values, for several types, so that a wrong overload (element size or
// arithmetic) fails.
#include <shmem.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "api_check.h"

namespace {

int me, npes, right_pe, left_pe;
const int N = 11;

template <typename T>
void rma(shmem_ctx_t ctx, const char* name) {
    T* sym = static_cast<T*>(shmem_malloc(4 * N * sizeof(T)));
    T src[N], back[N];
    for (int i = 0; i < 4 * N; ++i) sym[i] = T(99);
    for (int i = 0; i < N; ++i) src[i] = T(api_val(me, i));
    shmem_barrier_all();
    shmem_put(sym, src, N, right_pe);
    shmem_put(ctx, sym + N, src, N, right_pe);
    shmem_put_nbi(sym + 2 * N, src, N, right_pe);
    shmem_p(sym + 3 * N, T(me + 1), right_pe);
    shmem_iput(sym + 3 * N + 1, src, 2, 1, 4, right_pe);
    shmem_ctx_quiet(ctx);
    shmem_quiet();
    shmem_barrier_all();
    for (int b = 0; b < 3; ++b)
        for (int i = 0; i < N; ++i)
            CHECK(sym[b * N + i] == T(api_val(left_pe, i)), "C++ %s put form %d element %d", name, b, i);
    CHECK(sym[3 * N] == T(left_pe + 1), "C++ %s shmem_p", name);
    for (int i = 0; i < 8; ++i) {
        T want = (i % 2 == 0) ? T(api_val(left_pe, i / 2)) : T(99);
        CHECK(sym[3 * N + 1 + i] == want, "C++ %s shmem_iput element %d", name, i);
    }
    CHECK(shmem_g(sym + 3 * N, right_pe) == T(me + 1), "C++ %s shmem_g", name);
    std::memset(static_cast<void*>(back), 0, sizeof back);
    shmem_get(back, sym, N, right_pe);
    for (int i = 0; i < N; ++i) CHECK(back[i] == T(api_val(me, i)), "C++ %s shmem_get element %d", name, i);
    std::memset(static_cast<void*>(back), 0, sizeof back);
    shmem_get(ctx, back, sym + N, N, right_pe);
    for (int i = 0; i < N; ++i) CHECK(back[i] == T(api_val(me, i)), "C++ %s shmem_get(ctx) element %d", name, i);
    std::memset(static_cast<void*>(back), 0, sizeof back);
    shmem_get_nbi(back, sym + 2 * N, N, right_pe);
    shmem_quiet();
    for (int i = 0; i < N; ++i) CHECK(back[i] == T(api_val(me, i)), "C++ %s shmem_get_nbi element %d", name, i);
    shmem_barrier_all();
    shmem_free(sym);
}

template <typename T>
void amo(shmem_ctx_t ctx, const char* name) {
    T* v = static_cast<T*>(shmem_calloc(4, sizeof(T)));
    shmem_barrier_all();
    for (int pe = 0; pe < npes; ++pe) {
        shmem_atomic_add(&v[0], T(2), pe);
        shmem_atomic_inc(ctx, &v[0], pe);
        (void)shmem_atomic_fetch_add(&v[1], T(3), pe);
        (void)shmem_atomic_fetch_inc(&v[1], pe);
    }
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(v[0] == T(3 * npes) && v[1] == T(4 * npes), "C++ %s add/inc: %lld %lld", name, (long long)v[0], (long long)v[1]);
    shmem_atomic_set(&v[2], T(me + 1), right_pe);
    shmem_barrier_all();
    CHECK(shmem_atomic_fetch(&v[2], right_pe) == T(me + 1), "C++ %s atomic_fetch", name);
    CHECK(shmem_atomic_swap(&v[2], T(me + 2), right_pe) == T(me + 1), "C++ %s atomic_swap", name);
    CHECK(shmem_atomic_compare_swap(&v[2], T(me + 2), T(me + 3), right_pe) == T(me + 2), "C++ %s compare_swap", name);
    CHECK(shmem_atomic_fetch(ctx, &v[2], right_pe) == T(me + 3), "C++ %s atomic_fetch(ctx)", name);
    shmem_barrier_all();
    shmem_free(v);
}

template <typename T>
void sync_and_collectives(const char* name) {
    T* iv = static_cast<T*>(shmem_calloc(4, sizeof(T)));
    T* src = static_cast<T*>(shmem_malloc(64 * sizeof(T)));
    T* dst = static_cast<T*>(shmem_malloc(64 * sizeof(T)));
    for (int i = 0; i < 64; ++i) src[i] = T(me % 5 + 1);
    shmem_barrier_all();
    shmem_atomic_set(&iv[0], T(me + 1), right_pe);
    shmem_wait_until(&iv[0], SHMEM_CMP_EQ, T(left_pe + 1));
    CHECK(shmem_test(&iv[0], SHMEM_CMP_GE, T(left_pe + 1)) == 1, "C++ %s shmem_test", name);
    T sum = 0, mx = 0;
    for (int k = 0; k < npes; ++k) {
        sum += T(k % 5 + 1);
        if (T(k % 5 + 1) > mx) mx = T(k % 5 + 1);
    }
    CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 3) == 0, "C++ %s sum_reduce rc", name);
    for (int i = 0; i < 3; ++i) CHECK(dst[i] == sum, "C++ %s sum_reduce element %d", name, i);
    shmem_barrier_all();
    CHECK(shmem_max_reduce(SHMEM_TEAM_WORLD, dst, src, 2) == 0 && dst[0] == mx && dst[1] == mx, "C++ %s max_reduce", name);
    shmem_barrier_all();
    CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, dst, src, 4, npes - 1) == 0, "C++ %s broadcast rc", name);
    for (int i = 0; i < 4; ++i) CHECK(dst[i] == T((npes - 1) % 5 + 1), "C++ %s broadcast element %d", name, i);
    shmem_barrier_all();
    CHECK(shmem_fcollect(SHMEM_TEAM_WORLD, dst, src, 1) == 0, "C++ %s fcollect rc", name);
    for (int k = 0; k < npes; ++k) CHECK(dst[k] == T(k % 5 + 1), "C++ %s fcollect element %d", name, k);
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
    shmem_free(iv);
}

}  // namespace

int main() {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right_pe = (me + 1) % npes;
    left_pe = (me + npes - 1) % npes;
    CHECK(npes <= 16, "values stay in range for at most 16 PEs");
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create");

    // the typed C routines, called from C++
    long* x = static_cast<long*>(shmem_calloc(2, sizeof(long)));
    shmem_barrier_all();
    shmem_long_p(&x[0], me + 10, right_pe);
    shmem_long_atomic_add(&x[1], me + 1, 0);
    shmem_barrier_all();
    CHECK(x[0] == left_pe + 10, "shmem_long_p from C++");
    if (me == 0) CHECK(x[1] == (long)npes * (npes + 1) / 2, "shmem_long_atomic_add from C++");
    shmem_barrier_all();
    shmem_free(x);

    rma<char>(ctx, "char");
    rma<signed char>(ctx, "signed char");
    rma<short>(ctx, "short");
    rma<int>(ctx, "int");
    rma<long>(ctx, "long");
    rma<long long>(ctx, "long long");
    rma<unsigned long long>(ctx, "unsigned long long");
    rma<float>(ctx, "float");
    rma<double>(ctx, "double");
    rma<long double>(ctx, "long double");
    rma<int32_t>(ctx, "int32_t");
    rma<uint16_t>(ctx, "uint16_t");
    rma<size_t>(ctx, "size_t");

    amo<int>(ctx, "int");
    amo<long>(ctx, "long");
    amo<long long>(ctx, "long long");
    amo<unsigned int>(ctx, "unsigned int");
    amo<unsigned long long>(ctx, "unsigned long long");
    amo<int64_t>(ctx, "int64_t");
    amo<uint32_t>(ctx, "uint32_t");
    amo<size_t>(ctx, "size_t");
    amo<ptrdiff_t>(ctx, "ptrdiff_t");

    sync_and_collectives<int>("int");
    sync_and_collectives<long>("long");
    sync_and_collectives<long long>("long long");
    sync_and_collectives<unsigned long>("unsigned long");
    sync_and_collectives<uint64_t>("uint64_t");

    // floating point: RMA and collectives through the overloads
    {
        double* d = static_cast<double*>(shmem_calloc(2, sizeof(double)));
        float* fsrc = static_cast<float*>(shmem_malloc(4 * sizeof(float)));
        float* fdst = static_cast<float*>(shmem_malloc(4 * sizeof(float)));
        fsrc[0] = 0.5f * (me + 1);
        shmem_barrier_all();
        shmem_atomic_set(&d[0], 1.5 * me, right_pe);
        shmem_barrier_all();
        CHECK(d[0] == 1.5 * left_pe, "C++ double atomic_set");
        shmem_barrier_all();
        CHECK(shmem_atomic_swap(&d[0], 2.0, right_pe) == 1.5 * me, "C++ double atomic_swap");
        CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, fdst, fsrc, 1) == 0, "C++ float sum_reduce rc");
        CHECK(fdst[0] == 0.25f * npes * (npes + 1), "C++ float sum_reduce: %g", (double)fdst[0]);
        shmem_barrier_all();
        shmem_free(fdst);
        shmem_free(fsrc);
        shmem_free(d);
    }

    // put-with-signal overload
    {
        int* d = static_cast<int*>(shmem_calloc(4, sizeof(int)));
        uint64_t* s = static_cast<uint64_t*>(shmem_calloc(1, sizeof(uint64_t)));
        int v[4] = {me, me + 1, me + 2, me + 3};
        shmem_barrier_all();
        shmem_put_signal(d, v, 4, s, 1, SHMEM_SIGNAL_ADD, right_pe);
        CHECK(shmem_signal_wait_until(s, SHMEM_CMP_EQ, 1) == 1, "C++ put_signal: signal");
        for (int i = 0; i < 4; ++i) CHECK(d[i] == left_pe + i, "C++ put_signal element %d", i);
        shmem_barrier_all();
        shmem_free(s);
        shmem_free(d);
    }

    shmem_ctx_destroy(ctx);
    /* shmem_sync(team) overload beside the active-set shmem_sync (1.5 "SHMEM_SYNC") */
    CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0, "shmem_sync(SHMEM_TEAM_WORLD) did not return 0");
    mp_pass("api_cxx");
    shmem_finalize();
    return 0;
}
