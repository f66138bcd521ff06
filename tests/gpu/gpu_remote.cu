// GPU test of the device path to PEs not reached by load/store, run with KISHMEM_REMOTE=ibgda
// (every other PE is reached by WQEs the kernels post to the software NIC, even on this GPU)
// and with KISHMEM_REMOTE=proxy (descriptors to the CPU proxy thread): puts of several
// sizes from heap and private sources and from a thread, a warp and a block; p/g and gets into
// heap and private buffers; a device barrier; put-with-signal (set and add) with
// signal_wait_until; fetch-add from every PE summing exactly with every old value seen once;
// 4-byte AMOs (compare-swap loops) and compare-swap; many CTAs posting at once; every lane of a
// warp putting its own piece with putmem_nbi.
// Exits 77 (CTest's skip) where no GPU is usable.
#include <cuda_runtime.h>
#include <shmem.h>
#include <shmemx.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu_check.h"

// ---- kernels ----------------------------------------------------------------------------------

// Which remote path this translation unit's device state routes peers over.
__global__ void k_probe(int* out) {
    out[0] = kishmem_dstate.ibgda != nullptr;
    // the right neighbour is not reached by load/store: its peer_base is cleared
    out[1] = kishmem_dstate.peer_base[(kishmem_dstate.my_pe + 1) % kishmem_dstate.n_pes] == nullptr;
    out[2] = kishmem_dstate.ibgda_qps_per_pe;
    out[3] = kishmem_dstate.proxy != nullptr;
}

__global__ void k_put(char* dst, const char* src, size_t n, int pe, int scope) {
    if (scope == 0 && threadIdx.x == 0) shmem_putmem(dst, src, n, pe);
    if (scope == 1 && threadIdx.x < 32) shmemx_putmem_warp(dst, src, n, pe);
    if (scope == 2) shmemx_putmem_block(dst, src, n, pe);
    if (threadIdx.x == 0) shmem_quiet();
}

__global__ void k_get(char* dst, const char* src, size_t n, int pe) {
    if (threadIdx.x == 0) shmem_getmem(dst, src, n, pe);
}

// p of a long and of an int (offset 4 of an 8-byte word) to the right PE, a device barrier,
// then g of both back from the right PE and the long this PE received from the left.
__global__ void k_p_g(long* cell, int* icell, long* out) {
    int me = shmem_my_pe(), np = shmem_n_pes(), right = (me + 1) % np;
    shmem_long_p(cell, 1000 + me, right);
    shmem_int_p(icell + 1, 7 + me, right);
    shmem_barrier_all();
    out[0] = shmem_long_g(cell, right);
    out[1] = shmem_int_g(icell + 1, right);
    out[2] = *cell;
}

// rounds of put-with-signal to the right PE, each waited for from the left one.
__global__ void k_signal(char* dst, const char* src, size_t n, uint64_t* sig, int rounds, int op) {
    int me = shmem_my_pe(), np = shmem_n_pes(), right = (me + 1) % np;
    for (int r = 1; r <= rounds; ++r) {
        if (op == SHMEM_SIGNAL_ADD) shmemx_putmem_signal_block(dst, src, n, sig, 1, SHMEM_SIGNAL_ADD, right);
        else if (threadIdx.x == 0) shmem_putmem_signal(dst, src, n, sig, (uint64_t)r, SHMEM_SIGNAL_SET, right);
        if (threadIdx.x == 0) shmem_signal_wait_until(sig, SHMEM_CMP_GE, (uint64_t)r);
        __syncthreads();
    }
}

// Every thread fetch-adds 1 to `ctr` on every PE `rounds` times; the old values go to
// fetched[pe * per_pe + k] (this PE's symmetric array). The first 8 threads also add 3 to the
// int `ictr` everywhere; thread 0 sets bit me of `bits` everywhere and tries to claim PE 0's
// `lock` with compare-swap 0 -> me + 1 (its old value into *won).
__global__ void k_amo(unsigned long long* ctr, unsigned long long* fetched, int per_pe, int rounds, int* ictr,
                      unsigned int* bits, int* lock, int* won) {
    int me = shmem_my_pe(), np = shmem_n_pes();
    int tid = blockIdx.x * blockDim.x + threadIdx.x, nt = gridDim.x * blockDim.x;
    for (int r = 0; r < rounds; ++r)
        for (int k = 0; k < np; ++k) {
            int pe = (me + k) % np;
            fetched[pe * per_pe + r * nt + tid] = shmem_ulonglong_atomic_fetch_add(ctr, 1, pe);
            if (tid < 8) shmem_int_atomic_add(ictr, 3, pe);
        }
    if (tid == 0) {
        for (int pe = 0; pe < np; ++pe) shmem_uint_atomic_fetch_or(bits, 1u << me, pe);
        *won = shmem_int_atomic_compare_swap(lock, 0, me + 1, 0);
    }
    shmem_quiet();
}

// Many CTAs at once (QPs shared within and across CTAs): thread i puts one int to the right PE.
__global__ void k_many(int* dst) {
    int me = shmem_my_pe(), np = shmem_n_pes();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    shmem_int_p(dst + i, 7 * i + me, (me + 1) % np);
    shmem_quiet();
}

// Every thread puts its own `piece` bytes of src (heap) to the right PE with putmem_nbi (the
// lanes of a warp post together), then one quiet.
__global__ void k_nbi(char* dst, const char* src, size_t piece) {
    int me = shmem_my_pe(), np = shmem_n_pes();
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    shmem_putmem_nbi(dst + i * piece, src + i * piece, piece, (me + 1) % np);
    shmem_quiet();
}

// Every block puts its own chunk of src (heap: a device source) to the right PE, then waits in
// quiet: launched with as many blocks as fill the whole GPU, they hold every SM while they wait,
// and the executor (software NIC, CPU proxy) must complete their puts without an SM.
__global__ void k_fill(char* dst, const char* src, size_t chunk) {
    int me = shmem_my_pe(), np = shmem_n_pes();
    size_t at = (size_t)blockIdx.x * chunk;
    shmemx_putmem_block(dst + at, src + at, chunk, (me + 1) % np);
    if (threadIdx.x == 0) shmem_quiet();
}

static char pattern(int pe, size_t i, int salt) { return (char)(pe * 31 + i * 7 + salt); }

int main() {
    GPU_TEST_INIT();
    int me = shmem_my_pe(), np = shmem_n_pes(), left = (me + np - 1) % np, right = (me + 1) % np;

    // 0. the device state names the remote path asked for (the test would pass over load/store
    //    too otherwise)
    const char* remote = getenv("KISHMEM_REMOTE");
    const bool want_proxy = remote && std::strcmp(remote, "proxy") == 0;
    int* dprobe = nullptr;
    int probe[4] = {0, 0, 0, 0};
    CK(cudaMalloc(&dprobe, sizeof probe));
    k_probe<<<1, 1>>>(dprobe);
    sync_device();
    CK(cudaMemcpy(probe, dprobe, sizeof probe, cudaMemcpyDeviceToHost));
    if (np > 1 && want_proxy)
        CHECK(probe[0] == 0 && probe[1] == 1 && probe[3] == 1, "the proxy is not in the device state (%d %d %d)",
              probe[0], probe[1], probe[3]);
    else if (np > 1)
        CHECK(probe[0] == 1 && probe[1] == 1 && probe[2] > 0, "IBGDA not in the device state (%d %d %d): "
              "run with KISHMEM_REMOTE=ibgda or proxy", probe[0], probe[1], probe[2]);

    // 1. puts: sizes around the inline limit (28 bytes) and large ones, from the heap (data
    //    segments) and from private GPU memory (inline chunks), by a thread, a warp, a block
    const size_t big = (1 << 20) + 5;
    char* sbuf = (char*)shmem_malloc(big + 64);
    char* rbuf = (char*)shmem_malloc(big + 64);
    char* priv = nullptr;
    CK(cudaMalloc(&priv, big + 64));
    std::vector<char> h(big + 64), hb(big + 64);
    for (size_t i = 0; i < h.size(); ++i) h[i] = pattern(me, i, 1);
    CK(cudaMemcpy(sbuf, h.data(), h.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(priv, h.data(), h.size(), cudaMemcpyHostToDevice));
    struct Case { size_t n; bool heap_src; int scope; };
    const Case cases[] = {{1, true, 0},    {8, true, 0},      {28, true, 0},   {29, true, 0},  {100, true, 1},
                          {4096, true, 2}, {65539, true, 0},  {big, true, 0},  {13, false, 0}, {100, false, 0},
                          {1000, false, 1}, {5000, false, 2}};
    int npass = 0;
    for (const Case& c : cases) {
        CK(cudaMemset(rbuf, 0, c.n + 2));
        sync_device();
        shmem_barrier_all();
        k_put<<<1, 128>>>(rbuf + 1, (c.heap_src ? sbuf : priv) + 3, c.n, right, c.scope);
        sync_device();
        shmem_barrier_all();
        CK(cudaMemcpy(hb.data(), rbuf, c.n + 2, cudaMemcpyDeviceToHost));
        CHECK(hb[0] == 0 && hb[c.n + 1] == 0, "put of %zu bytes wrote outside its range", c.n);
        for (size_t i = 0; i < c.n; ++i)
            CHECK(hb[1 + i] == pattern(left, 3 + i, 1), "put of %zu bytes (%s source, scope %d): byte %zu = %d", c.n,
                  c.heap_src ? "heap" : "private", c.scope, i, hb[1 + i]);
        ++npass;
    }
    if (me == 0) std::printf("ok puts: %d cases\n", npass);

    // 2. gets from the right PE into the heap and into private memory
    for (size_t n : {(size_t)8, (size_t)100, (size_t)4096, big}) {
        for (int to_heap = 1; to_heap >= 0; --to_heap) {
            if (!to_heap && n > 4096) continue;
            char* dst = to_heap ? rbuf : priv;
            CK(cudaMemset(dst, 0, n + 2));
            k_get<<<1, 32>>>(dst + 1, sbuf + 2, n, right);
            sync_device();
            CK(cudaMemcpy(hb.data(), dst, n + 2, cudaMemcpyDeviceToHost));
            CHECK(hb[0] == 0 && hb[n + 1] == 0, "get of %zu bytes wrote outside its range", n);
            for (size_t i = 0; i < n; ++i)
                CHECK(hb[1 + i] == pattern(right, 2 + i, 1), "get of %zu bytes into %s memory: byte %zu", n,
                      to_heap ? "heap" : "private", i);
        }
    }
    CK(cudaMemcpy(priv, h.data(), h.size(), cudaMemcpyHostToDevice));
    shmem_barrier_all();
    if (me == 0) std::printf("ok gets\n");

    // 3. p / g and a device barrier
    long* cell = (long*)shmem_calloc(1, sizeof(long));
    int* icell = (int*)shmem_calloc(2, sizeof(int));
    long* dout = nullptr;
    long out[3] = {0, 0, 0};
    CK(cudaMalloc(&dout, sizeof out));
    shmem_barrier_all();
    k_p_g<<<1, 1>>>(cell, icell, dout);
    sync_device();
    CK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    CHECK(out[0] == 1000 + me && out[1] == 7 + me && out[2] == 1000 + left, "p/g: %ld %ld %ld", out[0], out[1], out[2]);
    shmem_barrier_all();
    if (me == 0) std::printf("ok p/g and device barrier\n");

    // 4. put-with-signal: add (block, 64 KiB from the heap), then set (thread, 20 bytes inline)
    uint64_t* sig = (uint64_t*)shmem_calloc(2, sizeof(uint64_t));
    for (int op : {SHMEM_SIGNAL_ADD, SHMEM_SIGNAL_SET}) {
        const size_t n = op == SHMEM_SIGNAL_ADD ? 65536 : 20;
        uint64_t* s = sig + (op == SHMEM_SIGNAL_ADD ? 0 : 1);
        CK(cudaMemset(rbuf, 0, n));
        sync_device();
        shmem_barrier_all();
        k_signal<<<1, 128>>>(rbuf, sbuf, n, s, 6, op);
        sync_device();
        shmem_barrier_all();
        CK(cudaMemcpy(hb.data(), rbuf, n, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; ++i) CHECK(hb[i] == pattern(left, i, 1), "signal op %d data byte %zu", op, i);
        CHECK(shmem_signal_fetch(s) == 6, "signal op %d value %llu", op, (unsigned long long)shmem_signal_fetch(s));
    }
    if (me == 0) std::printf("ok put_signal + signal_wait_until\n");

    // 5. atomics from every PE to every PE
    const int blocks = 2, threads = 32, rounds = 4, nt = blocks * threads, per_pe = rounds * nt;
    unsigned long long* ctr = (unsigned long long*)shmem_calloc(1, sizeof(unsigned long long));
    unsigned long long* fetched = (unsigned long long*)shmem_calloc((size_t)np * per_pe, sizeof(unsigned long long));
    int* ictr = (int*)shmem_calloc(2, sizeof(int));
    unsigned int* bits = (unsigned int*)shmem_calloc(2, sizeof(unsigned int));
    int* lock = (int*)shmem_calloc(1, sizeof(int));
    int* won = (int*)shmem_calloc(1, sizeof(int));
    shmem_barrier_all();
    k_amo<<<blocks, threads>>>(ctr, fetched, per_pe, rounds, ictr + 1, bits + 1, lock, won);
    sync_device();
    shmem_barrier_all();
    unsigned long long total = 0;
    CK(cudaMemcpy(&total, ctr, sizeof total, cudaMemcpyDeviceToHost));
    const unsigned long long want = (unsigned long long)np * per_pe;
    CHECK(total == want, "fetch-add counter %llu, expected %llu", total, want);
    std::vector<unsigned long long> seen((size_t)np * per_pe);
    for (int p = 0; p < np; ++p) shmem_getmem(&seen[(size_t)p * per_pe], fetched + (size_t)me * per_pe, per_pe * 8, p);
    std::sort(seen.begin(), seen.end());
    for (unsigned long long i = 0; i < want; ++i) CHECK(seen[i] == i, "old values: position %llu holds %llu", i, seen[i]);
    int ic[2] = {0, 0};
    unsigned int bb[2] = {0, 0};
    CK(cudaMemcpy(ic, ictr, sizeof ic, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(bb, bits, sizeof bb, cudaMemcpyDeviceToHost));
    CHECK(ic[0] == 0 && ic[1] == 3 * 8 * rounds * np, "int add: %d %d, expected 0 %d", ic[0], ic[1], 3 * 8 * rounds * np);
    CHECK(bb[0] == 0 && bb[1] == (1u << np) - 1, "fetch_or bits: %x %x", bb[0], bb[1]);
    if (me == 0) {
        int winners = 0, winner = -1;
        for (int p = 0; p < np; ++p) {
            int w = shmem_int_g(won, p);
            if (w == 0) ++winners, winner = p;
            else CHECK(w >= 1 && w <= np, "compare-swap of PE %d returned %d", p, w);
        }
        int l = shmem_int_g(lock, 0);
        CHECK(winners == 1 && l == winner + 1, "compare-swap: %d winners, lock %d", winners, l);
    }
    shmem_barrier_all();
    if (me == 0) std::printf("ok atomics: fetch-add sum %llu on every PE\n", total);

    // 6. many CTAs posting at once
    const int mb = 16, mt = 128;
    int* many = (int*)shmem_calloc(mb * mt, sizeof(int));
    shmem_barrier_all();
    k_many<<<mb, mt>>>(many);
    sync_device();
    shmem_barrier_all();
    std::vector<int> hm(mb * mt);
    CK(cudaMemcpy(hm.data(), many, hm.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < mb * mt; ++i) CHECK(hm[i] == 7 * i + left, "many CTAs: element %d = %d", i, hm[i]);
    if (me == 0) std::printf("ok many CTAs\n");

    // 7. putmem_nbi of 40-byte pieces (data segments / put descriptors) by 4 CTAs of 96 threads
    const int nb = 4, ntb = 96;
    const size_t piece = 40;
    CK(cudaMemset(rbuf, 0, nb * ntb * piece));
    sync_device();
    shmem_barrier_all();
    k_nbi<<<nb, ntb>>>(rbuf, sbuf, piece);
    sync_device();
    shmem_barrier_all();
    CK(cudaMemcpy(hb.data(), rbuf, nb * ntb * piece, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < nb * ntb * piece; ++i) CHECK(hb[i] == pattern(left, i, 1), "putmem_nbi pieces: byte %zu", i);

    if (me == 0) std::printf("ok putmem_nbi pieces\n");

    // 8. blocks waiting in quiet fill every SM (each PE launches what fills the GPU alone)
    int dev = 0, sms = 0, per_sm = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_fill, 256, 0));
    const int fb = per_sm * sms;
    const size_t chunk = 2048;
    char* fsrc = (char*)shmem_malloc(fb * chunk);
    char* fdst = (char*)shmem_calloc(fb * chunk, 1);
    std::vector<char> hf(fb * chunk);
    for (size_t i = 0; i < hf.size(); ++i) hf[i] = pattern(me, i, 5);
    CK(cudaMemcpy(fsrc, hf.data(), hf.size(), cudaMemcpyHostToDevice));
    shmem_barrier_all();
    k_fill<<<fb, 256>>>(fdst, fsrc, chunk);
    sync_device();
    shmem_barrier_all();
    CK(cudaMemcpy(hf.data(), fdst, hf.size(), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < hf.size(); ++i)
        CHECK(hf[i] == pattern(left, i, 5), "%d blocks waiting in quiet on every SM: byte %zu", fb, i);
    if (me == 0) std::printf("ok %d blocks waiting in quiet on every SM\n", fb);

    shmem_barrier_all();
    if (me == 0) std::printf("PASS gpu_remote (%s) on %d PEs\n", want_proxy ? "proxy" : "ibgda", np);
    shmem_finalize();
    return 0;
}
