// GPU test: device-side RMA, atomics, signals, barriers and warp/block puts on a GPU heap, plus
// the host API on that heap.  Exits 77 (CTest's skip) where no GPU is usable.
#include <cuda_runtime.h>
#include <shmem.h>
#include <shmemx.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu_kernels.h"

#include "gpu_check.h"


int main() {
    GPU_TEST_INIT();
    int me = shmem_my_pe(), np = shmem_n_pes(), left = (me + np - 1) % np;

    // 1. device ring put (kernel in the other translation unit)
    const int n = 4099;
    int* dst = (int*)shmem_malloc(n * sizeof(int));
    int* src = (int*)shmem_malloc(n * sizeof(int));
    std::vector<int> h(n);
    for (int i = 0; i < n; ++i) h[i] = me * 100000 + i;
    CK(cudaMemcpy(src, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(dst, 0xff, n * sizeof(int)));
    sync_device();  // (a memset may still run after it returns: done before any peer writes or reads)
    shmem_barrier_all();
    launch_ring_put(dst, src, n);
    sync_device();
    shmem_barrier_all();
    CK(cudaMemcpy(h.data(), dst, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) CHECK(h[i] == left * 100000 + i, "ring element %d = %d", i, h[i]);

    // 2. device p, barrier_all in a kernel, g
    long* cell = (long*)shmem_calloc(1, sizeof(long));
    long* out = nullptr;
    CK(cudaMalloc(&out, sizeof(long)));
    shmem_barrier_all();
    launch_p_g(cell, out);
    sync_device();
    long got = 0;
    CK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
    CHECK(got == 1000 + me, "g after p on the right neighbour: %ld", got);
    shmem_barrier_all();

    // 3. device atomics from every PE to every PE: each value fetched exactly once per target
    const int rounds = 50;
    unsigned long long* counter = (unsigned long long*)shmem_calloc(1, sizeof(unsigned long long));
    unsigned long long* fetched = nullptr;
    CK(cudaMalloc(&fetched, rounds * np * sizeof(unsigned long long)));
    shmem_barrier_all();
    launch_atomics(counter, rounds, fetched);
    sync_device();
    shmem_barrier_all();
    unsigned long long total = 0;
    CK(cudaMemcpy(&total, counter, sizeof total, cudaMemcpyDeviceToHost));
    CHECK(total == (unsigned long long)rounds * np, "counter %llu, expected %llu", total, (unsigned long long)rounds * np);
    // every PE has read its counter before its right neighbour adds 5 to it (without this barrier
    // a PE late to read saw the neighbour's 5 too: "counter 205, expected 200" between hosts)
    shmem_barrier_all();
    // host atomics on the device heap, and host get of another PE's counter
    unsigned long long before = shmem_ulonglong_atomic_fetch_add(counter, 5, left);
    CHECK(before >= (unsigned long long)rounds * np, "host fetch_add returned %llu", before);
    shmem_barrier_all();
    CK(cudaMemcpy(&total, counter, sizeof total, cudaMemcpyDeviceToHost));
    CHECK(total == (unsigned long long)rounds * np + 5, "after host fetch_add: %llu", total);

    // 4. put-with-signal ring from a block, repeated
    const size_t bytes = 1 << 20;
    char* sbuf = (char*)shmem_malloc(bytes);
    char* rbuf = (char*)shmem_malloc(bytes);
    uint64_t* sig = (uint64_t*)shmem_calloc(1, sizeof(uint64_t));
    CK(cudaMemset(sbuf, 0x30 + me, bytes));
    sync_device();
    shmem_barrier_all();
    launch_signal(rbuf, sbuf, bytes, sig, 10);
    sync_device();
    shmem_barrier_all();
    std::vector<char> hb(bytes);
    CK(cudaMemcpy(hb.data(), rbuf, bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < bytes; i += 4093) CHECK(hb[i] == (char)(0x30 + left), "signal data byte %zu", i);
    CHECK(shmem_signal_fetch(sig) == 10, "signal value %llu", (unsigned long long)shmem_signal_fetch(sig));

    // 5. thread / warp / block puts (scopes 0-2) and gets (3-5) of odd sizes and alignments: both
    // ends one byte past 16-byte alignment (the copy's general path), and both 16-byte aligned (up
    // to 64 bytes a lane: the paths with no loop, with their 8-byte and byte tails, a tail in the
    // last lane, and the sizes on either side of one and of four words a lane: 16 and 64 bytes by a
    // thread, 512 and 2048 by a warp, 4096 and 16384 by a block of 256; above: the loops). Every
    // byte of the 32 around the range is checked to be untouched.
    for (size_t off : {(size_t)1, (size_t)16}) {
        for (int scope = 0; scope < 6; ++scope) {
            const int from = scope < 3 ? left : (me + 1) % np;  // whose sbuf lands in this PE's rbuf
            for (size_t sz : {(size_t)1, (size_t)7, (size_t)12, (size_t)15, (size_t)16, (size_t)17, (size_t)24,
                              (size_t)28, (size_t)40, (size_t)63, (size_t)64, (size_t)65, (size_t)100, (size_t)511,
                              (size_t)512, (size_t)513, (size_t)2047, (size_t)2048, (size_t)2049, (size_t)4095,
                              (size_t)4096, (size_t)4097, (size_t)16383, (size_t)16384, (size_t)16385,
                              (size_t)65536 + 3}) {
                CK(cudaMemset(rbuf, 0, sz + 32));
                CK(cudaMemset(sbuf, 0x41 + scope + me, sz + 32));
                sync_device();  // (else a peer's get may read sbuf before the memset ran: seen at 4 PEs)
                shmem_barrier_all();
                launch_coop_put(rbuf + off, sbuf + off, sz, scope);
                sync_device();
                shmem_barrier_all();
                CK(cudaMemcpy(hb.data(), rbuf, sz + 32, cudaMemcpyDeviceToHost));
                for (size_t i = 0; i < sz + 32; ++i) {
                    const char want = i >= off && i < off + sz ? (char)(0x41 + scope + from) : 0;
                    CHECK(hb[i] == want, "scope %d size %zu offset %zu byte %zu = %d (%s)", scope, sz, off, i, hb[i],
                          want ? "not written" : "outside the range");
                }
            }
        }
    }

    // 6. host put into a device heap, host wait_until on a device-heap variable
    long* flag = (long*)shmem_calloc(1, sizeof(long));
    shmem_long_p(flag, 42 + me, (me + 1) % np);
    shmem_long_wait_until(flag, SHMEM_CMP_EQ, 42 + left);
    CHECK(shmem_long_g(flag, me) == 42 + left, "host g of own device heap");
    {  // shmem_ptr maps exactly the PEs of this host (SHMEM_TEAM_SHARED), on one host or several
        const int right_pe = (me + 1) % np;
        const bool same_host = shmem_team_translate_pe(SHMEM_TEAM_WORLD, right_pe, SHMEM_TEAM_SHARED) >= 0;
        CHECK((shmem_ptr(flag, right_pe) != nullptr) == same_host,
              same_host ? "shmem_ptr to a same-host GPU heap" : "shmem_ptr NULL to another host's GPU heap");
    }

    // 7. stream-ordered calls, directly and captured into a CUDA graph replayed three times
    int right = (me + 1) % np;
    uint64_t* sig2 = (uint64_t*)shmem_calloc(1, sizeof(uint64_t));
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CK(cudaMemset(rbuf, 0, 4096));
    CK(cudaMemset(sbuf, 0x60 + me, 4096));
    CK(cudaDeviceSynchronize());
    shmem_barrier_all();
    CHECK(shmemx_putmem_signal_on_stream(rbuf, sbuf, 4096, sig2, 1, SHMEM_SIGNAL_ADD, right, st) == 0, "launch");
    CHECK(shmemx_signal_wait_until_on_stream(sig2, SHMEM_CMP_GE, 1, st) == 0, "launch");
    CHECK(shmemx_quiet_on_stream(st) == 0 && shmemx_barrier_all_on_stream(st) == 0, "launch");
    CK(cudaStreamSynchronize(st));
    CK(cudaMemcpy(hb.data(), rbuf, 4096, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 4096; ++i) CHECK(hb[i] == (char)(0x60 + left), "on-stream put byte %d", i);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    shmemx_putmem_signal_on_stream(rbuf, sbuf, 64, sig2, 1, SHMEM_SIGNAL_ADD, right, st);
    shmemx_barrier_all_on_stream(st);
    CK(cudaStreamEndCapture(st, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));
    for (int r = 0; r < 3; ++r) CK(cudaGraphLaunch(exec, st));
    CK(cudaStreamSynchronize(st));
    shmem_barrier_all();
    CHECK(shmem_signal_fetch(sig2) == 4, "signal after 1 + 3 graph replays: %llu", (unsigned long long)shmem_signal_fetch(sig2));

    // 8. a collective launch: all blocks resident, grid sync, then a device barrier
    const int blocks = 8;
    int* cdst = (int*)shmem_calloc(blocks, sizeof(int));
    shmem_barrier_all();
    CK((cudaError_t)launch_collective(cdst, blocks));
    sync_device();
    shmem_barrier_all();
    std::vector<int> hc(blocks);
    CK(cudaMemcpy(hc.data(), cdst, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; ++b) CHECK(hc[b] == 1000 * left + b, "collective launch block %d wrote %d", b, hc[b]);
    // ... bounded by what co-resides beside every other PE on this GPU: the blocks per SM times the
    // SMs less one block, shared by the PEs on the GPU (all of them where the machine has one GPU);
    // one block more is refused before anything runs.
    int gpus = 0, sms = 0, dev = 0, most = 0, per_sm = 0;
    CK(cudaGetDeviceCount(&gpus));
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const int gpu_pes = shmemx_gpu_pes();
    CHECK(gpu_pes >= 1 && gpu_pes <= np && (gpus > 1 || gpu_pes == np), "shmemx_gpu_pes() = %d with %d PEs on %d GPUs",
          gpu_pes, np, gpus);
    CK((cudaError_t)collective_gridsize(&most, &per_sm));
    CHECK(most == (per_sm * sms - 1) / gpu_pes && most >= blocks, "query_gridsize %d, expected (%d x %d SMs - 1) / %d PEs",
          most, per_sm, sms, gpu_pes);
    CHECK(launch_collective(cdst, most + 1) == (int)cudaErrorCooperativeLaunchTooLarge,
          "a collective launch of %d blocks (most %d) was not refused", most + 1, most);

    // 9. device strided RMA and the array waits
    int* sdst = (int*)shmem_calloc(40, sizeof(int));
    int* ssrc = (int*)shmem_malloc(40 * sizeof(int));
    int* got9 = nullptr;
    unsigned long long* out9 = nullptr;
    CK(cudaMalloc(&got9, 10 * sizeof(int)));
    CK(cudaMalloc(&out9, 5 * sizeof(unsigned long long)));
    std::vector<int> hs(40);
    for (int i = 0; i < 40; ++i) hs[i] = 100 * me + i;
    CK(cudaMemcpy(ssrc, hs.data(), 40 * sizeof(int), cudaMemcpyHostToDevice));
    int* flags9 = (int*)shmem_calloc(4, sizeof(int));
    shmem_barrier_all();
    launch_strided(sdst, ssrc, got9);
    sync_device();
    std::vector<int> hg(10);
    CK(cudaMemcpy(hg.data(), got9, 10 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 10; ++i) CHECK(hg[i] == 100 * me + 2 * i, "iput/iget element %d = %d", i, hg[i]);
    shmem_barrier_all();
    launch_waits(flags9, 4, out9);
    sync_device();
    unsigned long long h9[5];
    CK(cudaMemcpy(h9, out9, sizeof h9, cudaMemcpyDeviceToHost));
    CHECK(h9[0] == 2 && h9[1] == 2 && h9[2] == 2 && h9[3] == (unsigned long long)SIZE_MAX && h9[4] == 1,
          "array waits: any %llu some %llu first %llu masked-any %llu all_vector %llu", h9[0], h9[1], h9[2], h9[3], h9[4]);

    // 10. teams in kernels: queries and team barriers
    shmem_team_t even = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (np + 1) / 2, nullptr, 0, &even);
    int* tout = nullptr;
    CK(cudaMalloc(&tout, 4 * sizeof(int)));
    launch_teams(even, tout);
    sync_device();
    int ht[4];
    CK(cudaMemcpy(ht, tout, sizeof ht, cudaMemcpyDeviceToHost));
    CHECK(ht[0] == me && ht[1] == np, "device team_my_pe/n_pes(WORLD): %d %d", ht[0], ht[1]);
    CHECK(me % 2 ? (ht[2] == -1 && ht[3] == -1) : (ht[2] == me / 2 && ht[3] == (np + 1) / 2),
          "device team_my_pe/n_pes(even team): %d %d", ht[2], ht[3]);
    shmem_barrier_all();
    shmem_team_destroy(even);

    shmem_barrier_all();
    if (me == 0) std::printf("PASS gpu_rma on %d PEs\n", np);
    shmem_finalize();
    return 0;
}
