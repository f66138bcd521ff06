// The API from C++: shmem.h compiles as C++, the typed C routines link with C linkage, and the
// C++ overloads named like the C11 generic routines (shmem_put, shmem_atomic_fetch_add,
// shmem_wait_until, shmem_sum_reduce, ...) pick the routine of the argument's type, for every
// generic family of C11 and their context forms (tools/abi's generic_parity checks the names).  Every call
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

    // strided and blocked-strided forms, with and without a context: element k of src at a
    // known place of the neighbour's block, and read back the same way
    for (int i = 0; i < 4 * N; ++i) sym[i] = T(99);
    shmem_barrier_all();
    shmem_iput(ctx, sym, src, 2, 1, 5, right_pe);           // src[0..4] to sym[0, 2, .., 8]
    shmem_ibput(sym + N, src, 3, 2, 2, 3, right_pe);        // blocks of 2: src[0,1],[2,3],[4,5] to sym[N+0,1], [N+3,4], [N+6,7]
    shmem_ibput(ctx, sym + 2 * N, src + 1, 4, 1, 1, 2, right_pe);  // src[1], src[2] to sym[2N], sym[2N+4]
    shmem_ctx_quiet(ctx);
    shmem_quiet();
    shmem_barrier_all();
    for (int k = 0; k < 5; ++k) CHECK(sym[2 * k] == T(api_val(left_pe, k)), "C++ %s shmem_iput(ctx) element %d", name, k);
    for (int b = 0; b < 3; ++b)
        for (int j = 0; j < 2; ++j)
            CHECK(sym[N + 3 * b + j] == T(api_val(left_pe, 2 * b + j)), "C++ %s shmem_ibput block %d element %d", name, b, j);
    CHECK(sym[N + 2] == T(99) && sym[N + 5] == T(99), "C++ %s shmem_ibput wrote between blocks", name);
    CHECK(sym[2 * N] == T(api_val(left_pe, 1)) && sym[2 * N + 4] == T(api_val(left_pe, 2)) && sym[2 * N + 1] == T(99),
          "C++ %s shmem_ibput(ctx)", name);
    std::memset(static_cast<void*>(back), 0, sizeof back);
    shmem_iget(ctx, back, sym, 1, 2, 5, right_pe);          // the neighbour's sym[0, 2, .., 8]: this PE's src[0..4]
    for (int k = 0; k < 5; ++k) CHECK(back[k] == T(api_val(me, k)), "C++ %s shmem_iget(ctx) element %d", name, k);
    std::memset(static_cast<void*>(back), 0, sizeof back);
    shmem_ibget(back, sym + N, 2, 3, 2, 3, right_pe);
    for (int k = 0; k < 6; ++k) CHECK(back[k] == T(api_val(me, k)), "C++ %s shmem_ibget element %d", name, k);
    std::memset(static_cast<void*>(back), 0, sizeof back);
    shmem_ibget(ctx, back, sym + 2 * N, 1, 4, 1, 2, right_pe);
    CHECK(back[0] == T(api_val(me, 1)) && back[1] == T(api_val(me, 2)), "C++ %s shmem_ibget(ctx)", name);
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

    // the non-blocking fetching forms, with and without a context: v[3] on the right PE goes
    // 0 -> +5 -> +1 -> cswap to 40 -> swap to 50 (only this PE touches it)
    T got[6] = {};
    shmem_atomic_fetch_add_nbi(&got[0], &v[3], T(5), right_pe);
    shmem_quiet();
    shmem_atomic_fetch_inc_nbi(ctx, &got[1], &v[3], right_pe);
    shmem_ctx_quiet(ctx);
    shmem_atomic_compare_swap_nbi(&got[2], &v[3], T(6), T(40), right_pe);
    shmem_quiet();
    shmem_atomic_swap_nbi(ctx, &got[3], &v[3], T(50), right_pe);
    shmem_ctx_quiet(ctx);
    shmem_atomic_fetch_nbi(&got[4], &v[3], right_pe);
    shmem_atomic_fetch_nbi(ctx, &got[5], &v[3], right_pe);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    CHECK(got[0] == T(0) && got[1] == T(5) && got[2] == T(6) && got[3] == T(40) && got[4] == T(50) && got[5] == T(50),
          "C++ %s nbi AMOs fetched %lld %lld %lld %lld %lld %lld", name, (long long)got[0], (long long)got[1],
          (long long)got[2], (long long)got[3], (long long)got[4], (long long)got[5]);
    shmem_barrier_all();
    CHECK(v[3] == T(50), "C++ %s nbi AMOs left %lld", name, (long long)v[3]);
    shmem_barrier_all();
    shmem_free(v);
}

// and/or/xor with and without a context, fetching, not fetching and fetching-nbi: each PE
// works on its own word of the right neighbour
template <typename T>
void bits(shmem_ctx_t ctx, const char* name) {
    T* w = static_cast<T*>(shmem_calloc(1, sizeof(T)));
    shmem_barrier_all();
    // (operations of two contexts are ordered by a quiet of the first between them)
    T got[6] = {};
    shmem_atomic_or(w, T(0xF0), right_pe);                            // 0xF0
    shmem_quiet();
    got[0] = shmem_atomic_fetch_or(ctx, w, T(0x0F), right_pe);        // 0xFF
    shmem_atomic_and(ctx, w, T(0x3C), right_pe);                      // 0x3C
    shmem_ctx_quiet(ctx);
    got[1] = shmem_atomic_fetch_and(w, T(0x1E), right_pe);            // 0x1C
    shmem_atomic_xor(ctx, w, T(0x01), right_pe);                      // 0x1D
    got[2] = shmem_atomic_fetch_xor(ctx, w, T(0x10), right_pe);       // 0x0D
    shmem_ctx_quiet(ctx);
    shmem_atomic_fetch_or_nbi(&got[3], w, T(0x40), right_pe);         // 0x4D
    shmem_quiet();
    shmem_atomic_fetch_and_nbi(ctx, &got[4], w, T(0x4C), right_pe);   // 0x4C
    shmem_ctx_quiet(ctx);
    shmem_atomic_fetch_xor_nbi(ctx, &got[5], w, T(0x0C), right_pe);   // 0x40
    shmem_ctx_quiet(ctx);
    shmem_atomic_xor(w, T(0), right_pe);
    shmem_barrier_all();
    CHECK(got[0] == T(0xF0) && got[1] == T(0x3C) && got[2] == T(0x1D) && got[3] == T(0x0D) && got[4] == T(0x4D) &&
          got[5] == T(0x4C) && *w == T(0x40),
          "C++ %s bitwise AMOs fetched %llx %llx %llx %llx %llx %llx, left %llx", name, (unsigned long long)got[0],
          (unsigned long long)got[1], (unsigned long long)got[2], (unsigned long long)got[3], (unsigned long long)got[4],
          (unsigned long long)got[5], (unsigned long long)*w);
    shmem_barrier_all();
    shmem_free(w);
}

// the deprecated (1.3) generic AMO names of int, long and long long
template <typename T>
void deprecated_amo(const char* name) {
    T* w = static_cast<T*>(shmem_calloc(1, sizeof(T)));
    shmem_barrier_all();
    shmem_set(w, T(10), right_pe);
    shmem_quiet();
    shmem_add(w, T(5), right_pe);
    shmem_fence();
    shmem_inc(w, right_pe);
    shmem_quiet();
    const T f1 = shmem_fadd(w, T(4), right_pe);    // 16
    const T f2 = shmem_finc(w, right_pe);          // 20
    const T f3 = shmem_cswap(w, T(21), T(30), right_pe);
    const T f4 = shmem_swap(w, T(31), right_pe);
    const T f5 = shmem_fetch(w, right_pe);
    shmem_barrier_all();
    CHECK(f1 == T(16) && f2 == T(20) && f3 == T(21) && f4 == T(30) && f5 == T(31) && *w == T(31),
          "C++ %s deprecated AMOs: %lld %lld %lld %lld %lld, left %lld", name, (long long)f1, (long long)f2,
          (long long)f3, (long long)f4, (long long)f5, (long long)*w);
    shmem_barrier_all();
    shmem_free(w);
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
    // the vector forms: iv[1..3] set by the left neighbour to 1, 2, 3
    shmem_barrier_all();
    T three[3] = {T(1), T(2), T(3)};
    shmem_put(&iv[1], three, 3, right_pe);
    shmem_wait_until_all_vector(&iv[1], 3, nullptr, SHMEM_CMP_EQ, three);
    size_t idx[3];
    CHECK(shmem_test_all_vector(&iv[1], 3, nullptr, SHMEM_CMP_EQ, three) == 1, "C++ %s test_all_vector", name);
    CHECK(shmem_wait_until_any_vector(&iv[1], 3, nullptr, SHMEM_CMP_EQ, three) < 3, "C++ %s wait_until_any_vector", name);
    CHECK(shmem_test_any_vector(&iv[1], 3, nullptr, SHMEM_CMP_EQ, three) < 3, "C++ %s test_any_vector", name);
    CHECK(shmem_wait_until_some_vector(&iv[1], 3, idx, nullptr, SHMEM_CMP_EQ, three) == 3, "C++ %s wait_until_some_vector", name);
    CHECK(shmem_test_some_vector(&iv[1], 3, idx, nullptr, SHMEM_CMP_EQ, three) == 3, "C++ %s test_some_vector", name);
    T other[3] = {T(1), T(9), T(3)};
    CHECK(shmem_test_all_vector(&iv[1], 3, nullptr, SHMEM_CMP_EQ, other) == 0, "C++ %s test_all_vector, one differs", name);
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
    // scans: PE p gets the sum of PEs 0..p (inscan) or 0..p-1 (exscan)
    T in = 0;
    for (int k = 0; k <= me; ++k) in += T(k % 5 + 1);
    CHECK(shmem_sum_inscan(SHMEM_TEAM_WORLD, dst, src, 2) == 0 && dst[0] == in && dst[1] == in, "C++ %s sum_inscan", name);
    shmem_barrier_all();
    CHECK(shmem_sum_exscan(SHMEM_TEAM_WORLD, dst, src, 2) == 0 && (me == 0 || dst[0] == in - T(me % 5 + 1)),
          "C++ %s sum_exscan", name);
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

    bits<unsigned int>(ctx, "unsigned int");
    bits<unsigned long>(ctx, "unsigned long");
    bits<unsigned long long>(ctx, "unsigned long long");
    bits<int>(ctx, "int");   // (int32)
    bits<long>(ctx, "long"); // (int64)
    deprecated_amo<int>("int");
    deprecated_amo<long>("long");
    deprecated_amo<long long>("long long");

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
        // the context forms, blocking and not
        int w[4] = {10 * me, 10 * me + 1, 10 * me + 2, 10 * me + 3};
        shmem_put_signal(ctx, d, w, 2, s, 1, SHMEM_SIGNAL_ADD, right_pe);
        shmem_put_signal_nbi(ctx, d + 2, w + 2, 2, s, 1, SHMEM_SIGNAL_ADD, right_pe);
        shmem_put_signal_nbi(d, w, 1, s, 1, SHMEM_SIGNAL_ADD, right_pe);
        shmem_ctx_quiet(ctx);
        shmem_quiet();
        CHECK(shmem_signal_wait_until(s, SHMEM_CMP_EQ, 4) == 4, "C++ put_signal(ctx): signal");
        for (int i = 0; i < 4; ++i) CHECK(d[i] == 10 * left_pe + i, "C++ put_signal(ctx) element %d", i);
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
