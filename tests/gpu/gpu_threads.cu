// GPU test: host atomics on a GPU heap from 4 threads per PE at once (SHMEM_THREAD_MULTIPLE),
// to every PE. Checked independently of the runtime:
//  - fetch-add of 1 from every thread of every PE: each target's counter ends at the number of
//    calls, and the values fetched from it (gathered on the target) are exactly 0..N-1, each
//    once: a thread that read another thread's result would duplicate one and miss another;
//  - one thread's fetches from one target increase (its atomics run in its call order);
//  - a 4-byte compare-swap increment loop under contention counts every increment;
//  - set then fetch of a word of the thread's own, many times: the fetch sees the value set;
//  - a host atomic completes while a kernel on another stream spins until it sees it (the
//    atomic waits for its own stream only, not for the device).
// Exits 77 (CTest's skip) where no GPU is usable.
#include <cuda_runtime.h>
#include <shmem.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "gpu_check.h"

namespace {

constexpr int kThreads = 4;
constexpr int kAdds = 150;  // fetch-adds per thread per target
constexpr int kCas = 40;    // compare-swap increments per thread per target
constexpr int kSets = 60;   // set/fetch pairs per thread

// Spins until *word == want or about `ns` nanoseconds pass; *seen = the last value read.
__global__ void k_spin_until(const unsigned long long* word, unsigned long long want, long long ns,
                             unsigned long long* seen) {
    const long long t0 = clock64();
    const long long limit = ns * 2;  // clock64 ticks faster than 1 GHz on every GPU this runs on
    unsigned long long v = 0;
    while ((v = *reinterpret_cast<const volatile unsigned long long*>(word)) != want && clock64() - t0 < limit) {
    }
    *seen = v;
}

}  // namespace

int main() {
    GPU_TEST_REQUIRE_GPU();
    int provided = -1;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "shmem_init_thread failed");
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided thread level %d", provided);
    const int me = shmem_my_pe(), np = shmem_n_pes();
    const int calls = np * kThreads * kAdds;  // fetch-adds each PE's counter receives

    auto* counter = static_cast<unsigned long long*>(shmem_calloc(1, sizeof(unsigned long long)));
    auto* counter32 = static_cast<unsigned int*>(shmem_calloc(1, sizeof(unsigned int)));
    // gathered[(src * kThreads + t) * kAdds + k]: what thread t of PE src fetched from this PE
    auto* gathered = static_cast<unsigned long long*>(shmem_calloc(calls, sizeof(unsigned long long)));
    auto* own = static_cast<unsigned long long*>(shmem_calloc(kThreads, sizeof(unsigned long long)));
    CHECK(counter && counter32 && gathered && own, "shmem_calloc failed");
    shmem_barrier_all();

    // fetched[t][q * kAdds + k]: thread t's k-th fetch from PE q
    std::vector<std::vector<unsigned long long>> fetched(kThreads, std::vector<unsigned long long>(np * kAdds));
    std::vector<int> bad_set(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int k = 0; k < kAdds; ++k)
                for (int i = 0; i < np; ++i) {
                    const int q = (me + i) % np;
                    fetched[t][q * kAdds + k] = shmem_ulonglong_atomic_fetch_add(counter, 1ull, q);
                }
            for (int k = 0; k < kCas; ++k)
                for (int i = 0; i < np; ++i) {
                    const int q = (me + np - i) % np;
                    unsigned int v = shmem_uint_atomic_fetch(counter32, q);
                    for (;;) {
                        const unsigned int old = shmem_uint_atomic_compare_swap(counter32, v, v + 1, q);
                        if (old == v) break;
                        v = old;
                    }
                }
            const int q = (me + 1) % np;  // a word of this thread's own on the right neighbour
            for (int k = 0; k < kSets; ++k) {
                const unsigned long long want = (static_cast<unsigned long long>(me) << 40) | (t << 20) | k;
                shmem_ulonglong_atomic_set(own + t, want, q);
                if (shmem_ulonglong_atomic_fetch(own + t, q) != want) ++bad_set[t];
            }
        });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) CHECK(bad_set[t] == 0, "thread %d: %d fetches missed the value it set", t, bad_set[t]);
    for (int t = 0; t < kThreads; ++t)
        for (int q = 0; q < np; ++q)
            for (int k = 1; k < kAdds; ++k)
                CHECK(fetched[t][q * kAdds + k] > fetched[t][q * kAdds + k - 1],
                      "thread %d's fetches from PE %d out of order at %d: %llu after %llu", t, q, k,
                      fetched[t][q * kAdds + k], fetched[t][q * kAdds + k - 1]);
    // Every PE sends what each of its threads fetched from PE q to q.
    for (int q = 0; q < np; ++q)
        for (int t = 0; t < kThreads; ++t)
            shmem_putmem(gathered + (me * kThreads + t) * kAdds, fetched[t].data() + q * kAdds,
                         kAdds * sizeof(unsigned long long), q);
    shmem_barrier_all();

    unsigned long long total = 0;
    unsigned int total32 = 0;
    CK(cudaMemcpy(&total, counter, sizeof total, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&total32, counter32, sizeof total32, cudaMemcpyDeviceToHost));
    CHECK(total == static_cast<unsigned long long>(calls), "counter %llu, expected %d", total, calls);
    CHECK(total32 == static_cast<unsigned int>(np * kThreads * kCas), "4-byte counter %u, expected %d", total32,
          np * kThreads * kCas);
    std::vector<unsigned long long> all(calls);
    CK(cudaMemcpy(all.data(), gathered, calls * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    std::vector<int> hits(calls, 0);
    for (int i = 0; i < calls; ++i) {
        CHECK(all[i] < static_cast<unsigned long long>(calls), "fetched value %llu (call %d) is out of range", all[i], i);
        ++hits[all[i]];
    }
    for (int v = 0; v < calls; ++v) CHECK(hits[v] == 1, "value %d was fetched %d times", v, hits[v]);
    std::vector<unsigned long long> owns(kThreads);
    CK(cudaMemcpy(owns.data(), own, sizeof(unsigned long long) * kThreads, cudaMemcpyDeviceToHost));
    const int left = (me + np - 1) % np;
    for (int t = 0; t < kThreads; ++t)
        CHECK(owns[t] == ((static_cast<unsigned long long>(left) << 40) | (t << 20) | (kSets - 1)),
              "word of thread %d of PE %d holds %llx", t, left, owns[t]);
    shmem_barrier_all();

    // A kernel on a stream of its own spins until this PE's flag is 1; the host sets it with an
    // atomic while the kernel runs, then waits for that stream only.
    auto* flag = static_cast<unsigned long long*>(shmem_calloc(1, sizeof(unsigned long long)));
    unsigned long long* seen = nullptr;
    CK(cudaMalloc(&seen, sizeof *seen));
    CK(cudaMemset(seen, 0, sizeof *seen));
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    k_spin_until<<<1, 1, 0, st>>>(flag, 1ull, 10'000'000'000ll, seen);
    CK(cudaGetLastError());
    std::thread setter([&] { shmem_ulonglong_atomic_set(flag, 1ull, me); });
    setter.join();
    CK(cudaStreamSynchronize(st));
    unsigned long long got = 0;
    CK(cudaMemcpy(&got, seen, sizeof got, cudaMemcpyDeviceToHost));
    CHECK(got == 1ull, "the spinning kernel saw %llu: the host atomic waited for it", got);
    CK(cudaStreamDestroy(st));
    CK(cudaFree(seen));

    shmem_barrier_all();
    if (me == 0) std::printf("PASS gpu_threads on %d PEs\n", np);
    std::fflush(stdout);
    shmem_finalize();
    return 0;
}
