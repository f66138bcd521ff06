// GPU test of the team collectives in kernels: alltoall (thread, warp, block; mem and typed),
// fcollect, broadcast (the root's dest included), reductions (sum/max/min/prod/xor, out of
// place and in place, thread and block scope) on SHMEM_TEAM_WORLD and on a strided sub-team,
// the host form of shmem_alltoallmem compiled in the same .cu file, and a kernel that
// calls the collectives in a loop; strided alltoall and sum scans; then the device forms of the 1.6 signal routines, blocked
// strided RMA, the sized strided/signal forms and the fetching non-blocking AMOs. Every
// expected value is computed here on the host.
// Run with the default routes and with KISHMEM_REMOTE=ibgda|proxy (remote peers).
// Exits 77 (CTest's skip) where no GPU is usable.
#include <cuda_runtime.h>
#include <shmem.h>
#include <shmemx.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu_check.h"

namespace {

constexpr size_t kN = 37;  // ints per member in the alltoall/fcollect cases (not a multiple of 4)

uint32_t val(int from, int to, size_t i) { return static_cast<uint32_t>(from * 1000003 + to * 1009 + i * 7 + 1); }

// scope 0: thread 0 of block 0; 1: warp 0 of block 0; 2: block 0. Every PE launches the same.
__global__ void k_alltoall(shmem_team_t team, int* dest, const int* source, size_t n, int scope, int typed) {
    if (blockIdx.x != 0) return;
    if (scope == 0 && threadIdx.x == 0) {
        if (typed) shmem_int_alltoall(team, dest, source, n);
        else shmem_alltoallmem(team, dest, source, n * sizeof(int));
    }
    if (scope == 1 && threadIdx.x < 32) shmemx_alltoallmem_warp(team, dest, source, n * sizeof(int));
    if (scope == 2) shmemx_alltoallmem_block(team, dest, source, n * sizeof(int));
}

__global__ void k_fcollect_bcast(shmem_team_t team, int* fdest, const int* fsrc, size_t n, int* bdest, const int* bsrc,
                                 int root) {
    shmemx_fcollectmem_block(team, fdest, fsrc, n * sizeof(int));
    if (threadIdx.x < 32) shmemx_broadcastmem_warp(team, bdest, bsrc, n * sizeof(int), root);
    __syncthreads();
    if (threadIdx.x == 0) shmem_int_broadcast(team, bdest + n, bsrc, n, (root + 1) % shmem_team_n_pes(team));
}

// Out of place: long sum and double sum (thread), int max and min (block); in place: unsigned
// xor (block) and long prod (thread).
__global__ void k_reduce(shmem_team_t team, long* lsum, const long* lsrc, double* dsum, const double* dsrc, int* imax,
                         int* imin, const int* isrc, unsigned* xin, long* prod, size_t n) {
    if (threadIdx.x == 0) {
        shmem_long_sum_reduce(team, lsum, lsrc, n);
        shmem_double_sum_reduce(team, dsum, dsrc, n);
    }
    __syncthreads();
    shmemx_int_max_reduce_block(team, imax, isrc, n);
    shmemx_int_min_reduce_block(team, imin, isrc, n);
    shmemx_uint_xor_reduce_block(team, xin, xin, n);
    if (threadIdx.x == 0) shmem_long_prod_reduce(team, prod, prod, 3);
}

// Small reductions (pushed, not pulled: coll.h's reduce_push) many times in a row by one scope
// (0 a thread, 1 a warp, 2 the block): the rounds alternate the two halves of the pushed data,
// every third is in place and every fourth is followed by the team's barrier (the two mixed on
// one team); each result is checked in the kernel (mismatches counted in *bad).
__global__ void k_small_reduces(shmem_team_t team, long* dst, long* src, size_t n, int rounds, int scope, int* bad) {
    const int me = shmem_team_my_pe(team), np = shmem_team_n_pes(team);
    for (int r = 0; r < rounds; ++r) {
        long* d = r % 3 == 2 ? src : dst;
        for (size_t i = threadIdx.x; i < n; i += blockDim.x) src[i] = me * 1000L + r * 7L + static_cast<long>(i);
        __syncthreads();
        if (scope == 0) {
            if (threadIdx.x == 0) shmem_long_sum_reduce(team, d, src, n);
        } else if (scope == 1) {
            if (threadIdx.x < 32) shmemx_long_sum_reduce_warp(team, d, src, n);
        } else {
            shmemx_long_sum_reduce_block(team, d, src, n);
        }
        if (r % 4 == 3) {
            if (scope == 0) {
                if (threadIdx.x == 0) shmem_team_sync(team);
            } else if (scope == 1) {
                if (threadIdx.x < 32) shmemx_team_sync_warp(team);
            } else {
                shmemx_team_sync_block(team);
            }
        }
        __syncthreads();
        const long base = 1000L * np * (np - 1) / 2;
        for (size_t i = threadIdx.x; i < n; i += blockDim.x)
            if (d[i] != base + np * (r * 7L + static_cast<long>(i))) atomicAdd(bad, 1);
        __syncthreads();
    }
}

// `rounds` alltoalls in one kernel by a block, each round's data depending on the last.
__global__ void k_rounds(shmem_team_t team, int* a, int* b, size_t n, int rounds) {
    int np = shmem_team_n_pes(team);
    for (int r = 0; r < rounds; ++r) {
        shmemx_alltoallmem_block(team, b, a, n * sizeof(int));
        for (size_t i = threadIdx.x; i < n * np; i += blockDim.x) a[i] = b[i] + 1;
        __syncthreads();
    }
}

// Device forms of the 1.6 additions and nbi AMOs, thread 0 of one block, to the right PE
// (and AMOs to PE 0):
//   sig[0] += 3 (signal_add), sig[1] = me + 7 (signal_set), sig[2] += 1 (put64_signal of 2
//   words into w64 + 8); ibput of 4 blocks of 2 ints (dst stride 5, src stride 3) into ib;
//   iput64 of 3 words with dst stride 2 into w64; iget128 of 2 16-byte items with source stride
//   2 from the right PE's q128 into out128; ibget32 of 3 blocks of 2 (src stride 4) into outb;
//   fetch_add_nbi / fetch_or_nbi / swap_nbi / compare_swap_nbi on PE 0's ctr/bits/swp/cas.
__global__ void k_extras(uint64_t* sig, int* ib, const int* isrc, unsigned long long* w64, const unsigned long long* wsrc,
                         const uint4* q128, uint4* out128, const unsigned* bsrc, unsigned* outb, long* ctr,
                         unsigned* bits, int* swp, int* cas, long* fetched, unsigned* fbits, int* fswp, int* fcas) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    const int me = shmem_my_pe(), np = shmem_n_pes(), right = (me + 1) % np;
    shmem_signal_add(sig, 3, right);
    shmem_signal_set(sig + 1, me + 7, right);
    shmem_int_ibput(ib, isrc, 5, 3, 2, 4, right);
    shmem_iput64(w64, wsrc, 2, 1, 3, right);
    shmem_put64_signal(w64 + 8, wsrc, 2, sig + 2, 1, SHMEM_SIGNAL_ADD, right);
    shmem_iget128(out128, q128, 1, 2, 2, right);
    shmem_ibget32(outb, bsrc, 2, 4, 2, 3, right);
    shmem_long_atomic_fetch_add_nbi(fetched, ctr, 1, 0);
    shmem_uint_atomic_fetch_or_nbi(fbits, bits, 1u << me, 0);
    shmem_int_atomic_swap_nbi(fswp, swp, me + 1, 0);
    shmem_int_atomic_compare_swap_nbi(fcas, cas, 0, me + 1, 0);
    shmem_quiet();
}

// Strided alltoall (dst stride 2, src stride 3) of n ints, sum scans of n longs (inclusive and
// exclusive), by thread 0.
__global__ void k_strided_scans(shmem_team_t team, int* sdst, const int* ssrc, size_t n, long* in, long* ex,
                                const long* src) {
    if (threadIdx.x != 0) return;
    shmem_int_alltoalls(team, sdst, ssrc, 2, 3, n);
    shmem_long_sum_inscan(team, in, src, n);
    shmem_long_sum_exscan(team, ex, src, n);
}


template <class T>
std::vector<T> to_host(const T* d, size_t n) {
    std::vector<T> h(n);
    CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

template <class T>
void to_dev(T* d, const std::vector<T>& h) {
    CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
}

// The members' world PEs of a strided team.
std::vector<int> members(int start, int stride, int size) {
    std::vector<int> m;
    for (int i = 0; i < size; ++i) m.push_back(start + i * stride);
    return m;
}

// The alltoall cases on `team` (whose members are `mem`; this PE is member `me_t`).
void check_alltoall(shmem_team_t team, const std::vector<int>& mem, int me_t, int* dest, int* source, const char* what) {
    const int np = static_cast<int>(mem.size());
    for (int scope = 0; scope < 4; ++scope) {
        std::vector<int> h(kN * np);
        for (int j = 0; j < np; ++j)
            for (size_t i = 0; i < kN; ++i) h[j * kN + i] = static_cast<int>(val(mem[me_t], mem[j], i) + scope);
        to_dev(source, h);
        CK(cudaMemset(dest, 0xee, kN * np * sizeof(int) + 8));
        sync_device();
        shmem_team_sync(team);
        if (scope < 3) k_alltoall<<<2, 128>>>(team, dest, source, kN, scope, 0);
        else k_alltoall<<<1, 64>>>(team, dest, source, kN, 0, 1);
        sync_device();
        std::vector<int> got = to_host(dest, kN * np + 2);
        for (int j = 0; j < np; ++j)
            for (size_t i = 0; i < kN; ++i)
                CHECK(got[j * kN + i] == static_cast<int>(val(mem[j], mem[me_t], i) + scope),
                      "%s alltoall scope %d: from member %d element %zu = %d", what, scope, j, i, got[j * kN + i]);
        CHECK(got[kN * np] == static_cast<int>(0xeeeeeeee), "%s alltoall scope %d wrote past its end", what, scope);
    }
}

}  // namespace

int main() {
    GPU_TEST_INIT();
    const int me = shmem_my_pe(), np = shmem_n_pes();
    const std::vector<int> world = members(0, 1, np);

    int* dest = static_cast<int*>(shmem_malloc(kN * np * sizeof(int) + 64));
    int* source = static_cast<int*>(shmem_malloc(kN * np * sizeof(int) + 64));

    // 1. alltoall on the world: thread, warp, block (mem), thread (typed)
    check_alltoall(SHMEM_TEAM_WORLD, world, me, dest, source, "world");
    // ... and on the even PEs (a strided sub-team published to kernels at creation)
    shmem_team_t evens = SHMEM_TEAM_INVALID;
    const int ne = (np + 1) / 2;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, ne, nullptr, 0, &evens);
    if (evens != SHMEM_TEAM_INVALID) check_alltoall(evens, members(0, 2, ne), shmem_team_my_pe(evens), dest, source, "evens");
    shmem_barrier_all();
    if (me == 0) std::printf("ok alltoall (world and even PEs; thread, warp, block, typed)\n");

    // 2. fcollect by a block; broadcast by a warp (root 1 % np) and typed by a thread (root + 1)
    int* fdest = static_cast<int*>(shmem_malloc(kN * np * sizeof(int)));
    int* bdest = static_cast<int*>(shmem_malloc(2 * kN * sizeof(int)));
    std::vector<int> h(kN);
    for (size_t i = 0; i < kN; ++i) h[i] = static_cast<int>(val(me, 77, i));
    to_dev(source, h);
    CK(cudaMemset(bdest, 0, 2 * kN * sizeof(int)));
    sync_device();
    shmem_barrier_all();
    const int root = 1 % np;
    k_fcollect_bcast<<<1, 96>>>(SHMEM_TEAM_WORLD, fdest, source, kN, bdest, source, root);
    sync_device();
    std::vector<int> f = to_host(fdest, kN * np), b = to_host(bdest, 2 * kN);
    for (int j = 0; j < np; ++j)
        for (size_t i = 0; i < kN; ++i)
            CHECK(f[j * kN + i] == static_cast<int>(val(j, 77, i)), "fcollect: member %d element %zu", j, i);
    for (size_t i = 0; i < kN; ++i) {
        CHECK(b[i] == static_cast<int>(val(root, 77, i)), "broadcastmem from %d: element %zu = %d", root, i, b[i]);
        CHECK(b[kN + i] == static_cast<int>(val((root + 1) % np, 77, i)), "int_broadcast: element %zu", i);
    }
    shmem_barrier_all();
    if (me == 0) std::printf("ok fcollect and broadcast\n");

    // 3. reductions
    const size_t nr = 300;  // more than a block's 128 threads: several in-place rounds
    long* lsrc = static_cast<long*>(shmem_malloc(nr * sizeof(long)));
    long* lsum = static_cast<long*>(shmem_malloc(nr * sizeof(long)));
    double* dsrc = static_cast<double*>(shmem_malloc(nr * sizeof(double)));
    double* dsum = static_cast<double*>(shmem_malloc(nr * sizeof(double)));
    int* isrc = static_cast<int*>(shmem_malloc(nr * sizeof(int)));
    int* imax = static_cast<int*>(shmem_malloc(nr * sizeof(int)));
    int* imin = static_cast<int*>(shmem_malloc(nr * sizeof(int)));
    unsigned* xin = static_cast<unsigned*>(shmem_malloc(nr * sizeof(unsigned)));
    long* prod = static_cast<long*>(shmem_malloc(3 * sizeof(long)));
    std::vector<long> hl(nr), hp = {me + 2L, -(me + 1L), 1};
    std::vector<double> hd(nr);
    std::vector<int> hi(nr);
    std::vector<unsigned> hx(nr);
    for (size_t i = 0; i < nr; ++i) {
        hl[i] = static_cast<long>(i) * (me + 1) - 5;
        hd[i] = 0.25 * static_cast<double>(i + me);
        hi[i] = static_cast<int>((i * 37 + me * 101) % 211) - 100;
        hx[i] = val(me, 5, i);
    }
    to_dev(lsrc, hl);
    to_dev(dsrc, hd);
    to_dev(isrc, hi);
    to_dev(xin, hx);
    to_dev(prod, hp);
    sync_device();
    shmem_barrier_all();
    k_reduce<<<1, 128>>>(SHMEM_TEAM_WORLD, lsum, lsrc, dsum, dsrc, imax, imin, isrc, xin, prod, nr);
    sync_device();
    std::vector<long> gl = to_host(lsum, nr), gp = to_host(prod, 3);
    std::vector<double> gd = to_host(dsum, nr);
    std::vector<int> gmax = to_host(imax, nr), gmin = to_host(imin, nr);
    std::vector<unsigned> gx = to_host(xin, nr);
    for (size_t i = 0; i < nr; ++i) {
        long s = 0;
        double d = 0;
        int mx = -1000, mn = 1000;
        unsigned x = 0;
        for (int p = 0; p < np; ++p) {
            s += static_cast<long>(i) * (p + 1) - 5;
            d += 0.25 * static_cast<double>(i + p);
            const int v = static_cast<int>((i * 37 + p * 101) % 211) - 100;
            mx = v > mx ? v : mx;
            mn = v < mn ? v : mn;
            x ^= val(p, 5, i);
        }
        CHECK(gl[i] == s, "long sum element %zu: %ld, expected %ld", i, gl[i], s);
        CHECK(gd[i] == d, "double sum element %zu: %g, expected %g", i, gd[i], d);
        CHECK(gmax[i] == mx && gmin[i] == mn, "int max/min element %zu: %d/%d, expected %d/%d", i, gmax[i], gmin[i], mx, mn);
        CHECK(gx[i] == x, "in-place xor element %zu: %x, expected %x", i, gx[i], x);
    }
    long p0 = 1, p1 = 1;
    for (int p = 0; p < np; ++p) p0 *= p + 2L, p1 *= -(p + 1L);
    CHECK(gp[0] == p0 && gp[1] == p1 && gp[2] == 1, "in-place prod: %ld %ld %ld, expected %ld %ld 1", gp[0], gp[1], gp[2], p0, p1);
    shmem_barrier_all();
    if (me == 0) std::printf("ok reductions (sum, max, min, prod, xor; in place and not)\n");
    {  // small reductions, pushed (up to 512 bytes) and just above (pulled), many in a row: on the
       // world, on the even PEs, and on a team made, destroyed and made again (its slot reused)
        long* sd = static_cast<long*>(shmem_malloc(65 * sizeof(long)));
        long* ss = static_cast<long*>(shmem_malloc(65 * sizeof(long)));
        int* bad = nullptr;
        CK(cudaMalloc(&bad, sizeof(int)));
        auto small_reduces = [&](shmem_team_t team, const char* what) {
            for (size_t n : {(size_t)0, (size_t)1, (size_t)7, (size_t)64, (size_t)65}) {
                for (int scope = 0; scope < 3; ++scope) {
                    CK(cudaMemset(bad, 0, sizeof(int)));
                    shmem_team_sync(team);
                    k_small_reduces<<<1, 128>>>(team, sd, ss, n, 20, scope, bad);
                    sync_device();
                    int hbad = 0;
                    CK(cudaMemcpy(&hbad, bad, sizeof hbad, cudaMemcpyDeviceToHost));
                    CHECK(hbad == 0, "small sum reductions on %s of %zu longs by scope %d: %d wrong elements in 20 rounds", what,
                          n, scope, hbad);
                }
            }
            shmem_team_sync(team);
        };
        small_reduces(SHMEM_TEAM_WORLD, "the world");
        if (evens != SHMEM_TEAM_INVALID) small_reduces(evens, "the even PEs");
        shmem_barrier_all();
        for (int again = 0; again < 2; ++again) {
            shmem_team_t t = SHMEM_TEAM_INVALID;
            shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, np, nullptr, 0, &t);
            CHECK(t != SHMEM_TEAM_INVALID, "split of the world for the small reductions");
            small_reduces(t, again ? "a team made again" : "a team made");
            shmem_team_destroy(t);
        }
        shmem_barrier_all();
        CK(cudaFree(bad));
        shmem_free(ss);
        shmem_free(sd);
        if (me == 0)
            std::printf("ok small reductions (0, 1, 7, 64 and 65 longs; thread, warp, block; 20 rounds each, with barriers; "
                        "world, even PEs, a team made twice)\n");
    }

    // 4. the host form from a .cu file (the __host__ half of the same name), then 20 rounds in a kernel
    std::vector<int> hs(kN * np);
    for (int j = 0; j < np; ++j)
        for (size_t i = 0; i < kN; ++i) hs[j * kN + i] = static_cast<int>(val(me, j, i));
    to_dev(source, hs);
    sync_device();
    shmem_alltoallmem(SHMEM_TEAM_WORLD, dest, source, kN * sizeof(int));
    std::vector<int> hd2 = to_host(dest, kN * np);
    for (int j = 0; j < np; ++j)
        for (size_t i = 0; i < kN; ++i) CHECK(hd2[j * kN + i] == static_cast<int>(val(j, me, i)), "host alltoallmem");
    const int rounds = 20;
    to_dev(source, hs);
    sync_device();
    shmem_barrier_all();
    k_rounds<<<1, 256>>>(SHMEM_TEAM_WORLD, source, dest, kN, rounds);
    sync_device();
    // after r rounds, element i from member j holds: alternately transposed values plus r
    std::vector<int> gr = to_host(source, kN * np);
    for (int j = 0; j < np; ++j)
        for (size_t i = 0; i < kN; ++i) {
            const int base = rounds % 2 ? static_cast<int>(val(j, me, i)) : static_cast<int>(val(me, j, i));
            CHECK(gr[j * kN + i] == base + rounds, "round trip: member %d element %zu = %d, expected %d", j, i,
                  gr[j * kN + i], base + rounds);
        }
    shmem_barrier_all();
    if (me == 0) std::printf("ok host alltoallmem from a .cu file and %d alltoall rounds in one kernel\n", rounds);

    // 5. signal_add/set, blocked and sized strided RMA, fetching nbi AMOs in a kernel
    {
        struct alignas(16) Q { unsigned long long a, b; };
        uint64_t* sig = static_cast<uint64_t*>(shmem_calloc(3, sizeof(uint64_t)));
        int* ib = static_cast<int*>(shmem_calloc(20, sizeof(int)));
        int* isrc = static_cast<int*>(shmem_malloc(12 * sizeof(int)));
        unsigned long long* w64 = static_cast<unsigned long long*>(shmem_calloc(12, 8));
        unsigned long long* wsrc = static_cast<unsigned long long*>(shmem_malloc(3 * 8));
        Q* q128 = static_cast<Q*>(shmem_malloc(4 * sizeof(Q)));
        Q* out128 = static_cast<Q*>(shmem_calloc(2, sizeof(Q)));
        unsigned* bsrc = static_cast<unsigned*>(shmem_malloc(12 * sizeof(unsigned)));
        unsigned* outb = static_cast<unsigned*>(shmem_calloc(6, sizeof(unsigned)));
        long* ctr = static_cast<long*>(shmem_calloc(1, sizeof(long)));
        unsigned* bits = static_cast<unsigned*>(shmem_calloc(1, sizeof(unsigned)));
        int* swp = static_cast<int*>(shmem_calloc(1, sizeof(int)));
        int* cas = static_cast<int*>(shmem_calloc(1, sizeof(int)));
        long* fetched = static_cast<long*>(shmem_calloc(1, sizeof(long)));
        unsigned* fbits = static_cast<unsigned*>(shmem_calloc(1, sizeof(unsigned)));
        int* fswp = static_cast<int*>(shmem_calloc(1, sizeof(int)));
        int* fcas = static_cast<int*>(shmem_calloc(1, sizeof(int)));
        std::vector<int> hi(12);
        std::vector<unsigned long long> hw(3);
        std::vector<Q> hq(4);
        std::vector<unsigned> hb(12);
        for (int i = 0; i < 12; ++i) hi[i] = me * 100 + i, hb[i] = 1000u * me + i;
        for (int i = 0; i < 3; ++i) hw[i] = 0x1000000000ull * (me + 1) + i;
        for (int i = 0; i < 4; ++i) hq[i] = Q{1000ull * me + i, ~(1000ull * me + i)};
        to_dev(isrc, hi);
        to_dev(wsrc, hw);
        to_dev(q128, hq);
        to_dev(bsrc, hb);
        sync_device();
        shmem_barrier_all();
        k_extras<<<1, 32>>>(sig, ib, isrc, w64, wsrc, reinterpret_cast<const uint4*>(q128), reinterpret_cast<uint4*>(out128),
                            bsrc, outb, ctr, bits, swp, cas, fetched, fbits, fswp, fcas);
        sync_device();
        shmem_barrier_all();
        const int left = (me + np - 1) % np, right = (me + 1) % np;
        std::vector<uint64_t> gs = to_host(sig, 3);
        CHECK(gs[0] == 3 && gs[1] == uint64_t(left + 7) && gs[2] == 1, "signal_add/set, put64_signal: %llu %llu %llu",
              (unsigned long long)gs[0], (unsigned long long)gs[1], (unsigned long long)gs[2]);
        std::vector<int> gib = to_host(ib, 20);
        for (int b = 0; b < 4; ++b)
            for (int k = 0; k < 2; ++k)
                CHECK(gib[b * 5 + k] == left * 100 + b * 3 + k, "ibput block %d element %d = %d", b, k, gib[b * 5 + k]);
        CHECK(gib[2] == 0 && gib[19] == 0, "ibput wrote between blocks");
        std::vector<unsigned long long> gw = to_host(w64, 12);
        for (int i = 0; i < 3; ++i) CHECK(gw[2 * i] == 0x1000000000ull * (left + 1) + i && gw[2 * i + 1] == 0, "iput64 %d", i);
        CHECK(gw[8] == 0x1000000000ull * (left + 1) && gw[9] == 0x1000000000ull * (left + 1) + 1, "put64_signal data");
        std::vector<Q> gq = to_host(out128, 2);
        for (int i = 0; i < 2; ++i)
            CHECK(gq[i].a == 1000ull * right + 2 * i && gq[i].b == ~(1000ull * right + 2 * i), "iget128 item %d", i);
        std::vector<unsigned> gb = to_host(outb, 6);
        for (int b = 0; b < 3; ++b)
            for (int k = 0; k < 2; ++k)
                CHECK(gb[b * 2 + k] == 1000u * right + b * 4 + k, "ibget32 block %d element %d = %u", b, k, gb[b * 2 + k]);
        // AMOs on PE 0: every PE's fetched counter value distinct, bits all set, one compare-swap winner
        long f = to_host(fetched, 1)[0];
        int fc = to_host(fcas, 1)[0];
        CHECK(f >= 0 && f < np, "fetch_add_nbi fetched %ld", f);
        long* allf = static_cast<long*>(shmem_calloc(np, sizeof(long)));
        int* allc = static_cast<int*>(shmem_calloc(np, sizeof(int)));
        shmem_long_p(allf + me, f, 0);
        shmem_int_p(allc + me, fc, 0);
        shmem_barrier_all();
        if (me == 0) {
            std::vector<long> fs(np);
            CK(cudaMemcpy(fs.data(), allf, np * sizeof(long), cudaMemcpyDeviceToHost));
            std::vector<int> cs(np);
            CK(cudaMemcpy(cs.data(), allc, np * sizeof(int), cudaMemcpyDeviceToHost));
            std::vector<int> seen(np, 0);
            int winners = 0;
            for (int p = 0; p < np; ++p) {
                CHECK(fs[p] >= 0 && fs[p] < np && !seen[fs[p]], "fetch_add_nbi values not distinct");
                seen[fs[p]] = 1;
                winners += cs[p] == 0;
            }
            CHECK(to_host(ctr, 1)[0] == np && to_host(bits, 1)[0] == (np >= 32 ? ~0u : (1u << np) - 1) && winners == 1,
                  "AMOs on PE 0: counter %ld bits %x, %d compare-swap winners", to_host(ctr, 1)[0], to_host(bits, 1)[0],
                  winners);
        }
        shmem_barrier_all();
        if (me == 0) std::printf("ok signal_add/set, ibput/ibget, sized iput/iget/put_signal, nbi AMOs in a kernel\n");
    }

    // 6. strided alltoall and sum scans
    {
        const size_t n = 5;
        int* sdst = static_cast<int*>(shmem_calloc(2 * n * np + 2, sizeof(int)));
        int* ssrc = static_cast<int*>(shmem_malloc(3 * n * np * sizeof(int)));
        long* in = static_cast<long*>(shmem_calloc(n, sizeof(long)));
        long* ex = static_cast<long*>(shmem_calloc(n, sizeof(long)));
        long* lsrc2 = static_cast<long*>(shmem_malloc(n * sizeof(long)));
        std::vector<int> hs3(3 * n * np, -1);
        for (size_t i = 0; i < n * np; ++i) hs3[3 * i] = me * 1000 + static_cast<int>(i);
        std::vector<long> hl2(n);
        for (size_t i = 0; i < n; ++i) hl2[i] = (me + 1) * 10 + static_cast<long>(i);
        to_dev(ssrc, hs3);
        to_dev(lsrc2, hl2);
        sync_device();
        shmem_barrier_all();
        k_strided_scans<<<1, 32>>>(SHMEM_TEAM_WORLD, sdst, ssrc, n, in, ex, lsrc2);
        sync_device();
        std::vector<int> gsd = to_host(sdst, 2 * n * np + 2);
        for (int j = 0; j < np; ++j)
            for (size_t e = 0; e < n; ++e) {
                const int want = j * 1000 + static_cast<int>(me * n + e);
                CHECK(gsd[2 * (j * n + e)] == want, "alltoalls from member %d element %zu = %d, expected %d", j, e,
                      gsd[2 * (j * n + e)], want);
                CHECK(gsd[2 * (j * n + e) + 1] == 0, "alltoalls wrote between strided elements");
            }
        std::vector<long> gin = to_host(in, n), gex = to_host(ex, n);
        for (size_t i = 0; i < n; ++i) {
            long before = 0;
            for (int p = 0; p < me; ++p) before += (p + 1) * 10 + static_cast<long>(i);
            CHECK(gex[i] == before && gin[i] == before + (me + 1) * 10 + static_cast<long>(i),
                  "scans element %zu: in %ld ex %ld, expected %ld and %ld", i, gin[i], gex[i],
                  before + (me + 1) * 10 + static_cast<long>(i), before);
        }
        shmem_barrier_all();
        if (me == 0) std::printf("ok alltoalls and sum scans in a kernel\n");
    }

    const char* remote = getenv("KISHMEM_REMOTE");
    if (me == 0) std::printf("PASS gpu_coll (%s) on %d PEs\n", remote ? remote : "auto", np);
    if (evens != SHMEM_TEAM_INVALID) shmem_team_destroy(evens);
    shmem_finalize();
    return 0;
}
