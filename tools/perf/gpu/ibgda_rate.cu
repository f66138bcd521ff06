// Message rate of 8-byte device-initiated puts, K = 1..132 CTAs, one QP (or proxy channel
// share) per CTA, three ways in one run (docs/ibgda.md has the measured table):
//   (a) posting rate, NIC emulated: kernels post mlx5 WQEs (device/include/kishmem/device/
//       ibgda/post.h) into rings in GPU memory, doorbell records in GPU memory and doorbell
//       registers in host-mapped pages; no NIC reads them. The emulated NIC consumes every WQE
//       the moment its doorbell rings (post.h's InstantNic credit policy), so it never
//       throttles. Two posting styles: warp-cooperative (one reservation, one doorbell record
//       update and one doorbell per 32 WQEs) and one WQE per thread with a doorbell per post.
//   (b) the software NIC (SimNic, runtime/src/transport/ibgda) executing the same WQEs: rings,
//       doorbell records, doorbell pages and CQs in host-pinned memory mapped into the GPU;
//       one progress thread decodes, checks and executes every write into a host buffer and
//       writes one CQE per 32-WQE batch; kernels poll the CQ for credits and for quiet.
//   (c) a CPU proxy: kernels push 16-byte descriptors into one host-mapped ring (a warp
//       reserves 32 entries with one atomic), one proxy thread drains it, issues each as an
//       8-byte store (memcpy) into a host buffer, and signals completion back through a
//       head counter in host-mapped memory that kernels poll for credits and for quiet.
// Times are CUDA events around each kernel ((b) and (c) include the final quiet). Every
// buffer (b) and (c) write is checked afterwards, and (a)'s rings are decoded the way the NIC
// would read them. Prints a markdown table and "RESULT ibgda_rate <column> <K> <Mops/s>".
//
//   ibgda_rate [--warps W] [--quick]
#include <cuda_runtime.h>
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "kishmem/device/ibgda/mlx5_defs.h"
#include "kishmem/device/ibgda/mlx5_wqe.h"
#include "kishmem/device/ibgda/post.h"
#include "transport/ibgda/heap_access.h"
#include "transport/ibgda/sim_nic.h"
#include "transport/ibgda/wqe_decode.h"

namespace ib = kishmem::device::ibgda;
namespace m5 = kishmem::mlx5;
using kishmem::Status;

#define CK(x)                                                                                          \
    do {                                                                                               \
        cudaError_t e_ = (x);                                                                          \
        if (e_ != cudaSuccess) {                                                                       \
            std::fprintf(stderr, "FAIL: %s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            std::exit(1);                                                                              \
        }                                                                                              \
    } while (0)

namespace {

constexpr int kKs[] = {1, 2, 4, 8, 16, 32, 66, 132};
constexpr int kMaxK = 132;
constexpr uint32_t kLogRingA = 10;      // (a): 1024 WQEs (64 KiB) per QP, stays in L2
constexpr uint32_t kLogRingB = 12;      // (b): 4096 WQEs per QP, CQ of as many entries
constexpr uint32_t kLogProxyRing = 16;  // (c): 65536 descriptors (1 MiB)
constexpr size_t kRegionBytes = 4096;   // (b)/(c): each CTA's part of the target buffer

int failures = 0;

#define EXPECT(cond, ...)                                                                  \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            std::printf("FAIL: %s:%d: %s: ", __FILE__, __LINE__, #cond);                   \
            std::printf(__VA_ARGS__);                                                      \
            std::printf("\n");                                                             \
            ++failures;                                                                    \
        }                                                                                  \
    } while (0)

// Value thread t of CTA q writes in its j-th put of run r; the last one is what must remain.
__host__ __device__ inline uint64_t put_value(uint32_t run, uint32_t q, uint32_t t, uint32_t j) {
    return (static_cast<uint64_t>(run & 0xff) << 56) | (static_cast<uint64_t>(q & 0xfff) << 44) |
           (static_cast<uint64_t>(t & 0xfff) << 32) | j;
}

// ---- kernels: IBGDA posting ---------------------------------------------------------------------

// Each warp posts `batches` warp-cooperative batches of 32 8-byte inline writes to its CTA's QP;
// thread t writes slot t of the CTA's region. kLease: the QP's counters live in shared memory
// for the kernel (the CTA owns the QP); else in global memory. kQuiet: thread 0 waits for
// every completion before the kernel ends, and records an error CQE's syndrome in errs.
template <class Credit, bool kLease, bool kQuiet>
__global__ void __launch_bounds__(1024) warp_puts(const ib::DeviceQp* qps, uint32_t batches, uint32_t run,
                                                  uint32_t* errs) {
    __shared__ ib::QpCounters sc;
    const ib::DeviceQp g = qps[blockIdx.x];
    const ib::DeviceQp qp = kLease ? ib::lease_counters(g, &sc) : g;
    const uint64_t roff = 8ull * threadIdx.x;
    for (uint32_t b = 0; b < batches; ++b)
        ib::put8_warp<ib::Share::cta, Credit>(qp, roff, put_value(run, blockIdx.x, threadIdx.x, b));
    if constexpr (kQuiet) {
        __syncthreads();
        if (threadIdx.x == 0) {
            const uint32_t e = ib::quiet<ib::Share::cta>(qp);
            if (e != 0) errs[blockIdx.x] = e;
        }
    }
    if constexpr (kLease) ib::release_counters(g, &sc);
}

// Every thread posts `iters` single 8-byte inline writes, each with its own doorbell record
// update and doorbell; every 32nd slot is signalled.
template <bool kLease>
__global__ void __launch_bounds__(1024) thread_puts(const ib::DeviceQp* qps, uint32_t iters, uint32_t run) {
    __shared__ ib::QpCounters sc;
    const ib::DeviceQp g = qps[blockIdx.x];
    const ib::DeviceQp qp = kLease ? ib::lease_counters(g, &sc) : g;
    const uint64_t roff = 8ull * threadIdx.x;
    for (uint32_t j = 0; j < iters; ++j)
        ib::put8_thread<ib::Share::cta, ib::InstantNic>(qp, roff, put_value(run, blockIdx.x, threadIdx.x, j), 32);
    if constexpr (kLease) ib::release_counters(g, &sc);
}

// ---- kernels and thread: CPU proxy ----------------------------------------------------------------

struct alignas(16) Desc {
    uint64_t value;
    uint32_t off;  // target word index
    uint32_t seq;  // (ring index + 1) mod 2^32: the entry is valid for this pass
};
static_assert(sizeof(Desc) == 16, "16-byte descriptors");

struct ProxyRing {
    Desc* ring;                      // host-mapped, 1 << log entries
    uint32_t log;
    unsigned long long* tail;        // device memory: next entry to reserve
    unsigned long long* head_cache;  // device memory: largest head seen
    volatile unsigned long long* head;  // host-mapped: entries below it are issued (completed)
};

__device__ __forceinline__ void store_desc(Desc* d, uint64_t value, uint32_t off, uint32_t seq) {
    asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(d), "r"(static_cast<uint32_t>(value)),
                 "r"(static_cast<uint32_t>(value >> 32)), "r"(off), "r"(seq)
                 : "memory");
}

__global__ void __launch_bounds__(1024) proxy_puts(ProxyRing r, uint32_t batches, uint32_t run) {
    const uint32_t lane = threadIdx.x & 31;
    const unsigned long long size = 1ull << r.log;
    const uint32_t off = static_cast<uint32_t>(blockIdx.x * (kRegionBytes / 8) + threadIdx.x);
    unsigned long long end = 0;
    for (uint32_t b = 0; b < batches; ++b) {
        unsigned long long base = 0;
        if (lane == 0) {
            base = atomicAdd(r.tail, 32ull);
            unsigned long long h = *reinterpret_cast<volatile unsigned long long*>(r.head_cache);
            while (base + 32 - h > size) {
                h = *r.head;
                atomicMax(r.head_cache, h);
            }
        }
        base = __shfl_sync(0xffffffffu, base, 0);
        const unsigned long long idx = base + lane;
        store_desc(&r.ring[idx & (size - 1)], put_value(run, blockIdx.x, threadIdx.x, b), off,
                   static_cast<uint32_t>(idx + 1));
        end = base + 32;
    }
    if (lane == 0)  // quiet: this warp's puts are issued once the proxy's head passes them
        while (*r.head < end) {
        }
}

// The proxy: drains descriptors in ring order, issues each as an 8-byte store into target,
// publishes the head (credits and completions) every 32 entries and whenever the ring is empty.
void proxy_main(ProxyRing r, uint64_t* target, std::atomic<bool>* stop, std::atomic<uint64_t>* issued) {
    const uint64_t mask = (1ull << r.log) - 1;
    uint64_t h = *r.head, published = h;
    for (;;) {
        const Desc* d = &r.ring[h & mask];
        const uint32_t seq = __atomic_load_n(&d->seq, __ATOMIC_ACQUIRE);
        if (seq == static_cast<uint32_t>(h + 1)) {
            const uint64_t v = d->value;
            const uint32_t off = d->off;
            std::memcpy(&target[off], &v, sizeof v);  // the put
            ++h;
            if ((h & 31) == 0) {
                __atomic_store_n(const_cast<unsigned long long*>(r.head), h, __ATOMIC_RELEASE);
                published = h;
            }
            continue;
        }
        if (published != h) {
            __atomic_store_n(const_cast<unsigned long long*>(r.head), h, __ATOMIC_RELEASE);
            published = h;
            issued->store(h, std::memory_order_relaxed);
        }
        if (stop->load(std::memory_order_relaxed)) break;
        _mm_pause();
    }
    issued->store(h, std::memory_order_relaxed);
}

// ---- the software NIC's view of "remote" memory: one host buffer as PE 0's heap ------------------

class LocalHeap final : public kishmem::ibgda::HeapAccess {
public:
    explicit LocalHeap(uint8_t* base) : base_(base) {}
    Status write(int, std::size_t off, const void* src, std::size_t n) override {
        std::memcpy(base_ + off, src, n);
        return Status::ok;
    }
    Status read(int, std::size_t off, void* dst, std::size_t n) override {
        std::memcpy(dst, base_ + off, n);
        return Status::ok;
    }
    Status fetch_add(int, std::size_t off, uint64_t add, uint64_t* old) override {
        *old = __atomic_fetch_add(reinterpret_cast<uint64_t*>(base_ + off), add, __ATOMIC_SEQ_CST);
        return Status::ok;
    }
    Status compare_swap(int, std::size_t off, uint64_t compare, uint64_t swap, uint64_t* old) override {
        uint64_t* p = reinterpret_cast<uint64_t*>(base_ + off);
        __atomic_compare_exchange_n(p, &compare, swap, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        *old = compare;
        return Status::ok;
    }
    Status flush() override {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        return Status::ok;
    }

private:
    uint8_t* base_;
};

// ---- timing --------------------------------------------------------------------------------------

template <class Launch>
float time_ms(Launch launch) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a));
    launch();
    CK(cudaGetLastError());
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return ms;
}

template <class Launch>
float median_ms(int reps, Launch launch) {
    std::vector<float> t;
    for (int i = 0; i < reps; ++i) t.push_back(time_ms(launch));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

double mops(double ops, float ms) { return ops / (ms * 1e3); }

// ---- (a): queues nobody reads, checked the way a NIC would read them --------------------------

struct EmulatedQueues {
    uint8_t* rings = nullptr;      // device
    uint32_t* dbrecs = nullptr;    // device, 64 bytes per QP
    uint8_t* uars = nullptr;       // host-mapped, a 4 KiB page per QP
    ib::QpCounters* ctr = nullptr; // device
    ib::DeviceQp* qps = nullptr;   // device
    std::vector<ib::DeviceQp> host_qps;

    void create() {
        const size_t ring_bytes = size_t{64} << kLogRingA;
        CK(cudaMalloc(&rings, ring_bytes * kMaxK));
        CK(cudaMemset(rings, 0, ring_bytes * kMaxK));
        CK(cudaMalloc(&dbrecs, 64 * kMaxK));
        CK(cudaMalloc(&ctr, sizeof(ib::QpCounters) * kMaxK));
        CK(cudaHostAlloc(reinterpret_cast<void**>(&uars), 4096 * kMaxK, cudaHostAllocMapped | cudaHostAllocPortable));
        CK(cudaMalloc(&qps, sizeof(ib::DeviceQp) * kMaxK));
        uint8_t* uars_dev = nullptr;
        CK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&uars_dev), uars, 0));
        for (int q = 0; q < kMaxK; ++q) {
            ib::DeviceQp d{};
            d.sq = rings + ring_bytes * q;
            d.log_bbs = kLogRingA;
            d.qpn = 0x100 + q;
            d.dbrec = dbrecs + 16 * q;
            d.db = reinterpret_cast<volatile uint64_t*>(uars_dev + 4096 * q + 0x800);
            d.ctr = ctr + q;
            d.lkey = 0x1234;
            d.rkey = 0x5678;
            d.remote_base = 0x7f0000000000ull + kRegionBytes * q;
            host_qps.push_back(d);
        }
        CK(cudaMemcpy(qps, host_qps.data(), sizeof(ib::DeviceQp) * kMaxK, cudaMemcpyHostToDevice));
        reset();
    }
    void reset() {
        CK(cudaMemset(dbrecs, 0, 64 * kMaxK));
        CK(cudaMemset(ctr, 0, sizeof(ib::QpCounters) * kMaxK));
        std::memset(uars, 0, 4096 * kMaxK);
    }

    // After `expect_total` posts to QP q in run `run`, each thread's j at most last_j: the
    // counters, the doorbell record, the doorbell and the last ring's worth of WQEs.
    void check(int q, uint32_t expect_total, bool warp_batches, uint32_t threads, uint32_t run, uint32_t last_j) {
        ib::QpCounters c;
        CK(cudaMemcpy(&c, ctr + q, sizeof c, cudaMemcpyDeviceToHost));
        EXPECT(c.resv == expect_total && c.ready == expect_total, "QP %d: resv %u ready %u, expected %u", q, c.resv,
               c.ready, expect_total);
        uint32_t dbrec[2];
        CK(cudaMemcpy(dbrec, dbrecs + 16 * q, sizeof dbrec, cudaMemcpyDeviceToHost));
        EXPECT(m5::be32(dbrec[m5::kSndDbr]) == (expect_total & 0xffff), "QP %d: doorbell record %u, expected %u", q,
               m5::be32(dbrec[m5::kSndDbr]), expect_total & 0xffff);
        const uint64_t db = *reinterpret_cast<volatile uint64_t*>(uars + 4096 * q + 0x800);
        EXPECT(db == m5::make_doorbell_value(m5::kOpRdmaWrite, static_cast<uint16_t>(expect_total - 1), 0x100 + q, 3),
               "QP %d: doorbell 0x%016" PRIx64 " is not the last WQE's ctrl qword", q, db);
        const size_t ring_bytes = size_t{64} << kLogRingA;
        std::vector<uint8_t> ring(ring_bytes);
        CK(cudaMemcpy(ring.data(), rings + ring_bytes * q, ring_bytes, cudaMemcpyDeviceToHost));
        const uint32_t n = std::min<uint32_t>(expect_total, 1u << kLogRingA);
        int bad = 0;
        for (uint32_t i = expect_total - n; i != expect_total && bad < 5; ++i) {
            kishmem::ibgda::WqeBytes bytes;
            kishmem::ibgda::DecodedWqe d;
            const bool ok = kishmem::ibgda::decode_wqe(ring.data(), kLogRingA, i, expect_total - i, 0x100 + q, &bytes, &d);
            uint64_t v = 0;
            if (ok && d.is_inline && d.inline_len == 8) std::memcpy(&v, d.inline_data, 8);
            const uint32_t t = static_cast<uint32_t>((d.raddr - (0x7f0000000000ull + kRegionBytes * q)) / 8);
            bool good = ok && d.opcode == m5::kOpRdmaWrite && d.rkey == 0x5678 && d.is_inline && d.inline_len == 8 &&
                        t < threads && (v >> 32) == (put_value(run, q, t, 0) >> 32) &&
                        static_cast<uint32_t>(v) <= last_j;
            // A warp batch is 32 slots from a multiple of 32, lane order, its last WQE signalled;
            // single posts are signalled on every 32nd slot.
            if (warp_batches) good = good && (t & 31) == (i & 31);
            good = good && d.signaled() == (((i + 1) & 31) == 0);
            if (!good) {
                ++bad;
                EXPECT(good, "QP %d WQE %u: decode %d (%s) opcode 0x%x inline %d len %u thread %u value 0x%016" PRIx64
                       " signalled %d", q, i, ok, kishmem::ibgda::wqe_fault_name(d.fault), d.opcode, d.is_inline,
                       d.inline_len, t, v, d.signaled());
            }
        }
    }
};

struct Options {
    int warps = 4;
    bool quick = false;
};

}  // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--warps") && i + 1 < argc) o.warps = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--quick")) o.quick = true;
        else {
            std::fprintf(stderr, "usage: %s [--warps W (1..32)] [--quick]\n", argv[0]);
            return 2;
        }
    }
    if (o.warps < 1 || o.warps > 32) return 2;
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        std::printf("SKIP: no CUDA device\n");
        return 0;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const uint32_t threads = 32u * o.warps;
    const uint32_t scale = o.quick ? 16 : 1;
    const uint32_t a_batches = 1024 / scale;           // per warp: 32 Ki puts per warp, 128 Ki per CTA at W=4
    const uint32_t a_iters = 256 / scale;              // per thread: 32 Ki puts per CTA at W=4
    const uint64_t b_total = (1ull << 20) / scale;     // per K, split over the CTAs
    const uint64_t c_total = (1ull << 21) / scale;
    std::printf("# ibgda_rate: %s, %d SMs; %d warps (%u threads) per CTA, one QP per CTA\n", prop.name,
                prop.multiProcessorCount, o.warps, threads);

    struct Row {
        int k;
        double a_warp, a_thread, a_warp_g, a_thread_g, b, c;
    };
    std::vector<Row> rows;
    for (int k : kKs) rows.push_back(Row{k, 0, 0, 0, 0, 0, 0});

    // ---- (a) ------------------------------------------------------------------------------
    EmulatedQueues eq;
    eq.create();
    uint32_t run = 1;
    for (Row& r : rows) {
        const int k = r.k;
        // warp-cooperative, counters leased into shared memory, then in global memory
        for (int lease = 1; lease >= 0; --lease) {
            eq.reset();
            auto launch = [&](uint32_t batches) {
                if (lease) warp_puts<ib::InstantNic, true, false><<<k, threads>>>(eq.qps, batches, run, nullptr);
                else warp_puts<ib::InstantNic, false, false><<<k, threads>>>(eq.qps, batches, run, nullptr);
            };
            time_ms([&] { launch(a_batches / 8 + 1); });  // warm-up
            eq.reset();
            const int reps = 3;
            const float ms = median_ms(reps, [&] { launch(a_batches); });
            const double ops = double(a_batches) * threads * k;
            (lease ? r.a_warp : r.a_warp_g) = mops(ops, ms);
            eq.check(0, reps * a_batches * threads, true, threads, run, a_batches - 1);
            eq.check(k - 1, reps * a_batches * threads, true, threads, run, a_batches - 1);
        }
        // one WQE per thread
        for (int lease = 1; lease >= 0; --lease) {
            eq.reset();
            auto launch = [&](uint32_t iters) {
                if (lease) thread_puts<true><<<k, threads>>>(eq.qps, iters, run);
                else thread_puts<false><<<k, threads>>>(eq.qps, iters, run);
            };
            time_ms([&] { launch(a_iters / 8 + 1); });
            eq.reset();
            const int reps = 3;
            const float ms = median_ms(reps, [&] { launch(a_iters); });
            const double ops = double(a_iters) * threads * k;
            (lease ? r.a_thread : r.a_thread_g) = mops(ops, ms);
            eq.check(0, reps * a_iters * threads, false, threads, run, a_iters - 1);
            eq.check(k - 1, reps * a_iters * threads, false, threads, run, a_iters - 1);
        }
        ++run;
        std::printf("# (a) K=%3d  warp %.1f / %.1f Mops/s   thread %.1f / %.1f Mops/s  (shared / global counters)\n",
                    k, r.a_warp, r.a_warp_g, r.a_thread, r.a_thread_g);
        std::fflush(stdout);
    }

    // ---- (b) ------------------------------------------------------------------------------
    std::string b_note;
    {
        const size_t heap_bytes = kRegionBytes * kMaxK;
        std::vector<uint8_t> heap(heap_bytes, 0);
        LocalHeap access(heap.data());
        kishmem::ibgda::SimNicOptions so;
        so.max_wqes_per_pass = 256;
        so.idle_spin_us = 2000;
        kishmem::ibgda::SimNic nic(&access, so);
        kishmem::ibgda::MemoryKey key;
        bool ok = nic.register_memory(heap.data(), heap_bytes, &key) == Status::ok;
        std::vector<ib::DeviceQp> hq;
        ib::QpCounters* ctr = nullptr;
        CK(cudaMalloc(&ctr, sizeof(ib::QpCounters) * kMaxK));
        CK(cudaMemset(ctr, 0, sizeof(ib::QpCounters) * kMaxK));
        for (int q = 0; ok && q < kMaxK; ++q) {
            uint32_t cqn = 0, qpn = 0;
            ok = nic.create_cq(kLogRingB, &cqn) == Status::ok &&
                 nic.create_qp(cqn, kLogRingB,
                               kishmem::ibgda::RemoteHeap{0, key.key, reinterpret_cast<uint64_t>(heap.data()), heap_bytes},
                               &qpn) == Status::ok;
            if (!ok) break;
            const kishmem::ibgda::SimQpView v = nic.qp_view(qpn);
            const kishmem::ibgda::SimCqView c = nic.cq_view(cqn);
            cudaPointerAttributes at{};
            if (cudaPointerGetAttributes(&at, v.sq) != cudaSuccess || at.type != cudaMemoryTypeHost ||
                at.devicePointer != v.sq) {
                cudaGetLastError();
                b_note = "software NIC queues are not mapped into the GPU (alloc_queue_memory fell back to plain host memory)";
                ok = false;
                break;
            }
            ib::DeviceQp d{};
            d.sq = v.sq;
            d.log_bbs = v.log_bbs;
            d.qpn = v.qpn;
            d.dbrec = v.dbrec;
            d.db = v.doorbell;
            d.ctr = ctr + q;
            d.lkey = key.key;
            d.rkey = key.key;
            d.remote_base = reinterpret_cast<uint64_t>(heap.data()) + kRegionBytes * q;
            d.cq = c.buf;
            d.log_cq = c.log_size;
            d.cq_dbrec = c.dbrec;
            hq.push_back(d);
        }
        if (ok) {
            ib::DeviceQp* qps = nullptr;
            uint32_t* errs = nullptr;
            CK(cudaMalloc(&qps, sizeof(ib::DeviceQp) * kMaxK));
            CK(cudaMemcpy(qps, hq.data(), sizeof(ib::DeviceQp) * kMaxK, cudaMemcpyHostToDevice));
            CK(cudaMalloc(&errs, sizeof(uint32_t) * kMaxK));
            CK(cudaMemset(errs, 0, sizeof(uint32_t) * kMaxK));
            nic.start();
            for (Row& r : rows) {
                const int k = r.k;
                const uint32_t batches =
                    std::max<uint32_t>(1, static_cast<uint32_t>(b_total / (uint64_t(k) * threads)));
                auto launch = [&](uint32_t nb) {
                    nic.kick();
                    warp_puts<ib::CqCredit, true, true><<<k, threads>>>(qps, nb, run, errs);
                };
                time_ms([&] { launch(batches / 8 + 1); });
                const kishmem::ibgda::SimNicStats s0 = nic.stats();
                const float ms = time_ms([&] { launch(batches); });
                const kishmem::ibgda::SimNicStats s1 = nic.stats();
                const double ops = double(batches) * threads * k;
                r.b = mops(ops, ms);
                // Check: every WQE executed, no error, every thread's last value in place.
                std::vector<uint32_t> e(k);
                CK(cudaMemcpy(e.data(), errs, sizeof(uint32_t) * k, cudaMemcpyDeviceToHost));
                for (int q = 0; q < k; ++q) EXPECT(e[q] == 0, "(b) K=%d QP %d: error CQE, syndrome 0x%x", k, q, e[q] & 0xff);
                EXPECT(s1.wqes - s0.wqes == uint64_t(ops) && s1.errors == 0 && s1.flushed == 0,
                       "(b) K=%d: NIC executed %" PRIu64 " WQEs (expected %.0f), %" PRIu64 " errors, %" PRIu64 " flushed", k,
                       s1.wqes - s0.wqes, ops, s1.errors, s1.flushed);
                int bad = 0;
                for (int q = 0; q < k && bad < 5; ++q)
                    for (uint32_t t = 0; t < threads && bad < 5; ++t) {
                        uint64_t v;
                        std::memcpy(&v, heap.data() + kRegionBytes * q + 8 * t, 8);
                        const uint64_t want = put_value(run, q, t, batches - 1);
                        if (v != want) {
                            ++bad;
                            EXPECT(v == want, "(b) K=%d CTA %d thread %u: 0x%016" PRIx64 ", expected 0x%016" PRIx64, k, q, t,
                                   v, want);
                        }
                    }
                std::printf("# (b) K=%3d  %.2f Mops/s  (%" PRIu64 " WQEs, %" PRIu64 " CQEs, %" PRIu64
                            " doorbell changes seen, %" PRIu64 " CQ-full stalls)\n",
                            k, r.b, s1.wqes - s0.wqes, s1.cqes - s0.cqes, s1.doorbells - s0.doorbells,
                            s1.cq_full_stalls - s0.cq_full_stalls);
                std::fflush(stdout);
                ++run;
            }
            nic.stop();
            CK(cudaFree(qps));
            CK(cudaFree(errs));
        } else if (b_note.empty()) {
            b_note = "software NIC setup failed";
        }
        CK(cudaFree(ctr));
        if (!b_note.empty()) std::printf("# (b) skipped: %s\n", b_note.c_str());
    }

    // ---- (c) ------------------------------------------------------------------------------
    {
        ProxyRing r{};
        r.log = kLogProxyRing;
        Desc* ring_h = nullptr;
        unsigned long long* head_h = nullptr;
        CK(cudaHostAlloc(reinterpret_cast<void**>(&ring_h), sizeof(Desc) << r.log, cudaHostAllocMapped | cudaHostAllocPortable));
        CK(cudaHostAlloc(reinterpret_cast<void**>(&head_h), 4096, cudaHostAllocMapped | cudaHostAllocPortable));
        std::memset(ring_h, 0, sizeof(Desc) << r.log);
        std::memset(head_h, 0, 4096);
        CK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&r.ring), ring_h, 0));
        unsigned long long* head_d = nullptr;
        CK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&head_d), head_h, 0));
        r.head = head_d;
        CK(cudaMalloc(&r.tail, 16));
        r.head_cache = r.tail + 1;
        CK(cudaMemset(r.tail, 0, 16));
        std::vector<uint64_t> target(kRegionBytes / 8 * kMaxK, 0);
        ProxyRing hr = r;  // the proxy's view: host addresses
        hr.ring = ring_h;
        hr.head = head_h;
        std::atomic<bool> stop{false};
        std::atomic<uint64_t> issued{0};
        std::thread proxy(proxy_main, hr, target.data(), &stop, &issued);
        uint64_t expect_issued = 0;
        for (Row& row : rows) {
            const int k = row.k;
            const uint32_t batches = std::max<uint32_t>(1, static_cast<uint32_t>(c_total / (uint64_t(k) * threads)));
            time_ms([&] { proxy_puts<<<k, threads>>>(r, batches / 8 + 1, run); });
            expect_issued += uint64_t(batches / 8 + 1) * threads * k;
            const float ms = time_ms([&] { proxy_puts<<<k, threads>>>(r, batches, run); });
            const double ops = double(batches) * threads * k;
            expect_issued += uint64_t(ops);
            row.c = mops(ops, ms);
            const uint64_t h = __atomic_load_n(head_h, __ATOMIC_ACQUIRE);
            EXPECT(h == expect_issued, "(c) K=%d: proxy head %" PRIu64 ", expected %" PRIu64, k, h, expect_issued);
            int bad = 0;
            for (int q = 0; q < k && bad < 5; ++q)
                for (uint32_t t = 0; t < threads && bad < 5; ++t) {
                    const uint64_t v = __atomic_load_n(&target[q * (kRegionBytes / 8) + t], __ATOMIC_RELAXED);
                    const uint64_t want = put_value(run, q, t, batches - 1);
                    if (v != want) {
                        ++bad;
                        EXPECT(v == want, "(c) K=%d CTA %d thread %u: 0x%016" PRIx64 ", expected 0x%016" PRIx64, k, q, t, v,
                               want);
                    }
                }
            std::printf("# (c) K=%3d  %.2f Mops/s\n", k, row.c);
            std::fflush(stdout);
            ++run;
        }
        stop.store(true);
        proxy.join();
        CK(cudaFree(r.tail));
        CK(cudaFreeHost(ring_h));
        CK(cudaFreeHost(head_h));
    }

    // ---- the table ------------------------------------------------------------------------
    auto ratio = [](double x, double y) { return y > 0 ? x / y : 0.0; };
    std::printf("\n| CTAs = QPs | (a) warp-coop, Mops/s | (a) 1 WQE/thread, Mops/s | (b) software NIC, Mops/s | "
                "(c) CPU proxy, Mops/s | (a) warp / (c) | (a) thread / (c) | (b) / (c) |\n");
    std::printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (const Row& r : rows)
        std::printf("| %d | %.1f | %.1f | %.2f | %.2f | %.1fx | %.1fx | %.2fx |\n", r.k, r.a_warp, r.a_thread, r.b, r.c,
                    ratio(r.a_warp, r.c), ratio(r.a_thread, r.c), ratio(r.b, r.c));
    std::printf("\n(a) with the QP counters in global memory instead of shared memory:\n\n");
    std::printf("| CTAs = QPs | (a) warp-coop, Mops/s | (a) 1 WQE/thread, Mops/s |\n| ---: | ---: | ---: |\n");
    for (const Row& r : rows) std::printf("| %d | %.1f | %.1f |\n", r.k, r.a_warp_g, r.a_thread_g);
    std::printf("\n");
    for (const Row& r : rows) {
        std::printf("RESULT ibgda_rate a_warp %d %.2f Mops/s\n", r.k, r.a_warp);
        std::printf("RESULT ibgda_rate a_thread %d %.2f Mops/s\n", r.k, r.a_thread);
        std::printf("RESULT ibgda_rate a_warp_gmem %d %.2f Mops/s\n", r.k, r.a_warp_g);
        std::printf("RESULT ibgda_rate a_thread_gmem %d %.2f Mops/s\n", r.k, r.a_thread_g);
        std::printf("RESULT ibgda_rate b_simnic %d %.2f Mops/s\n", r.k, r.b);
        std::printf("RESULT ibgda_rate c_proxy %d %.2f Mops/s\n", r.k, r.c);
    }
    const Row& top = rows.back();
    std::printf("TARGET warp-coop (a) >= 215 Mops/s at 132 CTAs: %s (%.1f)\n", top.a_warp >= 215 ? "met" : "MISSED", top.a_warp);
    std::printf("TARGET 1 WQE/thread (a) >= 100 Mops/s at 132 CTAs: %s (%.1f)\n", top.a_thread >= 100 ? "met" : "MISSED",
                top.a_thread);
    std::printf("TARGET (a) warp >= 20x (c) at 132 CTAs: %s (%.1fx)\n", ratio(top.a_warp, top.c) >= 20 ? "met" : "MISSED",
                ratio(top.a_warp, top.c));
    if (failures) std::printf("FAIL: %d check(s) failed\n", failures);
    else std::printf("PASS ibgda_rate: every check passed\n");
    return failures ? 1 : 0;
}
