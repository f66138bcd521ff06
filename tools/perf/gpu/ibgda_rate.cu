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
//   (c) the runtime's CPU proxy (runtime/src/transport/proxy, the device side in device/
//       include/kishmem/device/proxy): kernels write 64-byte descriptors into host-mapped
//       channels (lanes posting together take their slots with one atomic), one proxy thread
//       executes them, issuing each put as an 8-byte store into a host buffer or as an inline
//       RDMA-write WQE into a host send ring (a doorbell per proxy pass), and publishes
//       completions through a done word kernels poll for credits and for quiet.
// Times are CUDA events around each kernel ((b) and (c) include the final quiet). Every
// buffer (b) and (c) write is checked afterwards, and (a)'s rings are decoded the way the NIC
// would read them. Prints a markdown table and "RESULT ibgda_rate <column> <K> <Mops/s>".
//
//   ibgda_rate [--warps W] [--quick]
#include <cuda_runtime.h>
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
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
#include "kishmem/device/proxy/backend.h"
#include "transport/ibgda/heap_access.h"
#include "transport/ibgda/sim_nic.h"
#include "transport/ibgda/wqe_decode.h"
#include "transport/proxy/device_proxy.h"
#include "transport/proxy/proxy.h"

namespace ib = kishmem::device::ibgda;
namespace m5 = kishmem::mlx5;
namespace kp = kishmem::proxy;
namespace kdp = kishmem::device::proxy;
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

// The same single posts with a QP per warp (QP blockIdx.x * warps + warp): the in-order hand-off
// of step 5 then runs among one warp's lanes only, and a CTA has `warps` independent chains.
__global__ void __launch_bounds__(1024) thread_puts_qp_per_warp(const ib::DeviceQp* qps, uint32_t iters, uint32_t run) {
    __shared__ ib::QpCounters sc[32];
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const uint32_t qi = blockIdx.x * (blockDim.x >> 5) + warp;
    const ib::DeviceQp g = qps[qi];
    if (lane == 0) sc[warp] = *g.ctr;  // the warp owns its QP for the kernel: counters in shared memory
    __syncwarp();
    ib::DeviceQp qp = g;
    qp.ctr = &sc[warp];
    for (uint32_t j = 0; j < iters; ++j)
        ib::put8_thread<ib::Share::cta, ib::InstantNic>(qp, 8ull * lane, put_value(run, qi, lane, j), 32);
    __syncwarp();
    if (lane == 0) *g.ctr = sc[warp];
}

// ---- kernels and executors: the CPU proxy ---------------------------------------------------------

// Every thread posts `iters` 8-byte puts as inline descriptors (device/include/kishmem/device/
// proxy/backend.h: lanes posting to one channel take their slots with one atomic) to channel
// (block % n) of the runtime's CPU proxy, then waits until its last one is complete (quiet).
__global__ void __launch_bounds__(1024) proxy_puts(const kp::ChannelTable* t, uint32_t iters, uint32_t run) {
    const kp::Channel& c = t->channels[blockIdx.x % t->n];
    const uint64_t roff = kRegionBytes * blockIdx.x + 8ull * threadIdx.x;
    uint32_t last = 0;
    for (uint32_t j = 0; j < iters; ++j) {
        const uint64_t v = put_value(run, blockIdx.x, threadIdx.x, j);
        last = kdp::post(c, kp::kOpPutInline, 8, 0, kp::body_inline(roff, &v, 8));
    }
    kdp::until(c, last + 1);
}

// The second way the proxy issues a put (the first is LocalHeap below: a store into host
// memory): the way a CPU proxy posts to a ConnectX, an 8-byte inline RDMA-write WQE built into
// a host send ring per put, and per flush (the proxy flushes once per pass, before it
// publishes completions) one doorbell record update and one 8-byte doorbell store, each after
// a store fence (x86 needs one before a write-combined doorbell). No NIC reads that ring.
struct HostSq {
    uint8_t* ring;  // 64 << kLogHostSq bytes
    uint32_t* dbrec;
    uint64_t* db;
    uint32_t pi = 0;
    uint64_t doorbells = 0;
};
constexpr uint32_t kLogHostSq = 12;

class WqeHeap final : public kishmem::ibgda::HeapAccess {
public:
    explicit WqeHeap(HostSq* sq) : sq_(sq) {}
    Status write(int, std::size_t off, const void* src, std::size_t n) override {
        uint64_t v = 0;
        std::memcpy(&v, src, n < 8 ? n : 8);
        const m5::WqeHeader hdr{static_cast<uint16_t>(sq_->pi), 0x200, 0};
        m5::build_rdma_write_inline_value(sq_->ring + (size_t{sq_->pi & ((1u << kLogHostSq) - 1)} << 6), hdr,
                                          m5::RemoteRef{0x7f0000000000ull + off, 0x5678}, v, 8);
        ++sq_->pi;
        ++unrung_;
        return Status::ok;
    }
    Status read(int, std::size_t, void*, std::size_t) override { return Status::unsupported; }
    Status fetch_add(int, std::size_t, uint64_t, uint64_t*) override { return Status::unsupported; }
    Status compare_swap(int, std::size_t, uint64_t, uint64_t, uint64_t*) override { return Status::unsupported; }
    Status flush() override {
        if (unrung_ == 0) return Status::ok;
        _mm_sfence();  // WQEs before the record
        __atomic_store_n(&sq_->dbrec[m5::kSndDbr], m5::be32(sq_->pi & 0xffff), __ATOMIC_RELAXED);
        _mm_sfence();  // record before the doorbell
        const uint32_t last = sq_->pi - 1;
        __atomic_store_n(sq_->db, m5::doorbell_value(sq_->ring + (size_t{last & ((1u << kLogHostSq) - 1)} << 6)),
                         __ATOMIC_RELAXED);
        ++sq_->doorbells;
        unrung_ = 0;
        return Status::ok;
    }

private:
    HostSq* sq_;
    uint32_t unrung_ = 0;
};

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

// (b) and (c) write into a host buffer: each thread's slot of its CTA's region must hold its
// last put (index `last` of run `run`). Reports up to five wrong slots.
void expect_last_values(const char* col, const uint8_t* buf, int k, uint32_t threads, uint32_t run, uint32_t last) {
    int bad = 0;
    for (int q = 0; q < k && bad < 5; ++q)
        for (uint32_t t = 0; t < threads && bad < 5; ++t) {
            uint64_t v;
            std::memcpy(&v, buf + kRegionBytes * q + 8 * t, 8);
            const uint64_t want = put_value(run, q, t, last);
            if (v != want) {
                ++bad;
                EXPECT(v == want, "%s K=%d CTA %d thread %u: 0x%016" PRIx64 ", expected 0x%016" PRIx64, col, k, q, t, v,
                       want);
            }
        }
}

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
    int n = 0;                     // QPs
    uint8_t* rings = nullptr;      // device
    uint32_t* dbrecs = nullptr;    // device, 64 bytes per QP
    uint8_t* uars = nullptr;       // host-mapped, a 4 KiB page per QP
    ib::QpCounters* ctr = nullptr; // device
    ib::DeviceQp* qps = nullptr;   // device
    std::vector<ib::DeviceQp> host_qps;

    void create(int nqps) {
        n = nqps;
        const size_t ring_bytes = size_t{64} << kLogRingA;
        CK(cudaMalloc(&rings, ring_bytes * n));
        CK(cudaMemset(rings, 0, ring_bytes * n));
        CK(cudaMalloc(&dbrecs, 64 * n));
        CK(cudaMalloc(&ctr, sizeof(ib::QpCounters) * n));
        CK(cudaHostAlloc(reinterpret_cast<void**>(&uars), 4096 * n, cudaHostAllocMapped | cudaHostAllocPortable));
        CK(cudaMalloc(&qps, sizeof(ib::DeviceQp) * n));
        uint8_t* uars_dev = nullptr;
        CK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&uars_dev), uars, 0));
        for (int q = 0; q < n; ++q) {
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
        CK(cudaMemcpy(qps, host_qps.data(), sizeof(ib::DeviceQp) * n, cudaMemcpyHostToDevice));
        reset();
    }
    void reset() {
        CK(cudaMemset(dbrecs, 0, 64 * n));
        CK(cudaMemset(ctr, 0, sizeof(ib::QpCounters) * n));
        std::memset(uars, 0, 4096 * size_t(n));
    }
    void destroy() {
        CK(cudaFree(rings));
        CK(cudaFree(dbrecs));
        CK(cudaFree(ctr));
        CK(cudaFree(qps));
        CK(cudaFreeHost(uars));
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

// A hung phase must not stall the job: after `limit_s` in one phase, say which and exit.
struct Watchdog {
    std::atomic<const char*> phase{"start"};
    std::atomic<int> k{0};
    std::atomic<long> since{0};
    std::atomic<bool> done{false};
    std::thread t;
    void enter(const char* p, int kk) {
        phase = p;
        k = kk;
        since = static_cast<long>(time(nullptr));
    }
    void start(int limit_s) {
        since = static_cast<long>(time(nullptr));
        t = std::thread([this, limit_s] {
            while (!done) {
                std::this_thread::sleep_for(std::chrono::milliseconds(200));
                if (time(nullptr) - since.load() > limit_s) {
                    std::printf("FAIL: phase %s at K=%d ran over %d s: hung\n", phase.load(), k.load(), limit_s);
                    std::fflush(stdout);
                    std::_Exit(3);
                }
            }
        });
    }
    void stop() {
        done = true;
        t.join();
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
            std::fprintf(stderr, "usage: %s [--warps W (1..16)] [--quick]\n", argv[0]);
            return 2;
        }
    }
    if (o.warps < 1 || o.warps > 16) return 2;  // a CTA's threads write 8 bytes each into 4 KiB
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
        double a_warp = 0, a_thread = 0, a_thread_w = 0, a_warp_g = 0, a_thread_g = 0, b = 0, c = 0, c_wqe = 0;
    };
    Watchdog wd;
    wd.start(60);
    std::vector<Row> rows;
    for (int k : kKs) rows.push_back(Row{k});

    // ---- (a) ------------------------------------------------------------------------------
    EmulatedQueues eq;
    eq.create(kMaxK * o.warps);  // a QP per CTA uses the first K; a QP per warp the first K * warps
    uint32_t run = 1;
    const int reps = 3;
    for (Row& r : rows) {
        const int k = r.k;
        wd.enter("(a)", k);
        // warp-cooperative, counters leased into shared memory, then in global memory
        for (int lease = 1; lease >= 0; --lease) {
            auto launch = [&](uint32_t batches) {
                if (lease) warp_puts<ib::InstantNic, true, false><<<k, threads>>>(eq.qps, batches, run, nullptr);
                else warp_puts<ib::InstantNic, false, false><<<k, threads>>>(eq.qps, batches, run, nullptr);
            };
            eq.reset();
            time_ms([&] { launch(a_batches / 8 + 1); });  // warm-up
            eq.reset();
            const float ms = median_ms(reps, [&] { launch(a_batches); });
            (lease ? r.a_warp : r.a_warp_g) = mops(double(a_batches) * threads * k, ms);
            eq.check(0, reps * a_batches * threads, true, threads, run, a_batches - 1);
            eq.check(k - 1, reps * a_batches * threads, true, threads, run, a_batches - 1);
        }
        // one WQE per thread, a QP per CTA (counters in shared, then global memory)
        for (int lease = 1; lease >= 0; --lease) {
            auto launch = [&](uint32_t iters) {
                if (lease) thread_puts<true><<<k, threads>>>(eq.qps, iters, run);
                else thread_puts<false><<<k, threads>>>(eq.qps, iters, run);
            };
            eq.reset();
            time_ms([&] { launch(a_iters / 8 + 1); });
            eq.reset();
            const float ms = median_ms(reps, [&] { launch(a_iters); });
            (lease ? r.a_thread : r.a_thread_g) = mops(double(a_iters) * threads * k, ms);
            eq.check(0, reps * a_iters * threads, false, threads, run, a_iters - 1);
            eq.check(k - 1, reps * a_iters * threads, false, threads, run, a_iters - 1);
        }
        // one WQE per thread, a QP per warp
        {
            auto launch = [&](uint32_t iters) { thread_puts_qp_per_warp<<<k, threads>>>(eq.qps, iters, run); };
            eq.reset();
            time_ms([&] { launch(a_iters / 8 + 1); });
            eq.reset();
            const float ms = median_ms(reps, [&] { launch(a_iters); });
            r.a_thread_w = mops(double(a_iters) * threads * k, ms);
            eq.check(0, reps * a_iters * 32, false, 32, run, a_iters - 1);
            eq.check(k * o.warps - 1, reps * a_iters * 32, false, 32, run, a_iters - 1);
        }
        ++run;
        std::printf("# (a) K=%3d  warp %.1f / %.1f Mops/s   thread %.1f / %.1f Mops/s  (shared / global counters)"
                    "   thread, QP per warp %.1f Mops/s\n",
                    k, r.a_warp, r.a_warp_g, r.a_thread, r.a_thread_g, r.a_thread_w);
        std::fflush(stdout);
    }
    eq.destroy();

    // ---- (c) ------------------------------------------------------------------------------
    // The runtime's CPU proxy (runtime/src/transport/proxy) as kernels use it: 8 channels of
    // 1024 descriptors, CTA b on channel b % 8, one proxy thread; issuing into host memory
    // (LocalHeap) or as WQEs into a host send ring (WqeHeap).
    {
        constexpr int kChannels = 8;
        std::vector<uint8_t> target(kRegionBytes * kMaxK, 0);
        std::vector<uint8_t> sq_mem((size_t{64} << kLogHostSq) + 4096 + 64, 0);
        HostSq sq;
        sq.ring = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(sq_mem.data()) + 63) & ~uintptr_t{63});
        sq.dbrec = reinterpret_cast<uint32_t*>(sq.ring + (size_t{64} << kLogHostSq));
        sq.db = reinterpret_cast<uint64_t*>(sq.ring + (size_t{64} << kLogHostSq) + 64);
        LocalHeap store(target.data());
        WqeHeap wqe(&sq);
        for (int mode = 0; mode < 2; ++mode) {
            kishmem::proxy::Proxy proxy(mode == 0 ? static_cast<kishmem::ibgda::HeapAccess*>(&store) : &wqe, 1,
                                        target.size());
            EXPECT(proxy.open(kChannels, 10) == Status::ok, "(c) proxy channels");
            // The kernels' view of the channels, as the runtime builds it for KISHMEM_REMOTE=proxy.
            void* block = nullptr;
            std::string why;
            if (kishmem::proxy::make_device_channels(proxy, &block, &why) != Status::ok) {
                EXPECT(false, "(c) device channels: %s", why.c_str());
                break;
            }
            const kp::ChannelTable* dch = static_cast<const kp::ChannelTable*>(block);
            proxy.start();
            for (Row& row : rows) {
                const int k = row.k;
                wd.enter(mode == 0 ? "(c) store" : "(c) wqe", k);
                const uint32_t iters = std::max<uint32_t>(1, static_cast<uint32_t>(c_total / (uint64_t(k) * threads)));
                time_ms([&] { proxy_puts<<<k, threads>>>(dch, iters / 8 + 1, run); });
                const kishmem::proxy::ProxyStats s0 = proxy.stats();
                const uint32_t pi0 = sq.pi;
                const float ms = time_ms([&] { proxy_puts<<<k, threads>>>(dch, iters, run); });
                const kishmem::proxy::ProxyStats s1 = proxy.stats();
                const double ops = double(iters) * threads * k;
                (mode == 0 ? row.c : row.c_wqe) = mops(ops, ms);
                EXPECT(s1.executed - s0.executed == uint64_t(ops) && s1.errors == 0,
                       "(c) K=%d: proxy executed %" PRIu64 " descriptors (expected %.0f), %" PRIu64 " errors", k,
                       s1.executed - s0.executed, ops, s1.errors);
                if (mode == 0) {
                    expect_last_values("(c)", target.data(), k, threads, run, iters - 1);
                    std::printf("# (c) K=%3d  proxy, puts as host stores: %.2f Mops/s\n", k, row.c);
                } else {
                    // Every descriptor became a WQE; the ring's last one decodes as an 8-byte inline write.
                    EXPECT(sq.pi - pi0 == uint32_t(ops), "(c) K=%d: proxy posted %u WQEs, expected %.0f", k, sq.pi - pi0, ops);
                    kishmem::ibgda::WqeBytes bytes;
                    kishmem::ibgda::DecodedWqe d;
                    const bool ok = kishmem::ibgda::decode_wqe(sq.ring, kLogHostSq, sq.pi - 1, 1, 0x200, &bytes, &d);
                    uint64_t v = 0;
                    if (ok && d.is_inline && d.inline_len == 8) std::memcpy(&v, d.inline_data, 8);
                    EXPECT(ok && (v >> 56) == (run & 0xff), "(c) K=%d: last proxy WQE decodes %d, value 0x%016" PRIx64, k,
                           ok, v);
                    EXPECT(m5::be32(sq.dbrec[m5::kSndDbr]) == (sq.pi & 0xffff), "(c) K=%d: doorbell record", k);
                    std::printf("# (c) K=%3d  proxy, puts as proxy-posted WQEs: %.2f Mops/s\n", k, row.c_wqe);
                }
                std::fflush(stdout);
                ++run;
            }
            proxy.stop();
            CK(cudaFree(block));
        }
        std::printf("# (c) proxy WQE mode: %" PRIu64 " doorbells for %u WQEs\n", sq.doorbells, sq.pi);
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
                wd.enter("(b)", k);
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
                expect_last_values("(b)", heap.data(), k, threads, run, batches - 1);
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

    wd.stop();

    // ---- the table ------------------------------------------------------------------------
    auto ratio = [](double x, double y) { return y > 0 ? x / y : 0.0; };
    std::printf("\n| CTAs | (a) warp-coop, QP per CTA | (a) 1 WQE/thread, QP per CTA | (a) 1 WQE/thread, QP per warp | "
                "(b) software NIC | (c) proxy, host-store puts | (c) proxy, posts WQEs | (a) warp / (c) store | "
                "(a) warp / (c) WQE | (a) thread per CTA / (c) WQE | (b) / (c) WQE |\n");
    std::printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (const Row& r : rows)
        std::printf("| %d | %.1f | %.1f | %.1f | %.2f | %.1f | %.1f | %.1fx | %.1fx | %.2fx | %.2fx |\n", r.k, r.a_warp,
                    r.a_thread, r.a_thread_w, r.b, r.c, r.c_wqe, ratio(r.a_warp, r.c), ratio(r.a_warp, r.c_wqe),
                    ratio(r.a_thread, r.c_wqe), ratio(r.b, r.c_wqe));
    std::printf("\nMops/s (8-byte puts per microsecond). (a) with the QP counters in global memory instead of shared "
                "memory:\n\n");
    std::printf("| CTAs | (a) warp-coop, QP per CTA | (a) 1 WQE/thread, QP per CTA |\n| ---: | ---: | ---: |\n");
    for (const Row& r : rows) std::printf("| %d | %.1f | %.1f |\n", r.k, r.a_warp_g, r.a_thread_g);
    std::printf("\n");
    for (const Row& r : rows) {
        std::printf("RESULT ibgda_rate a_warp %d %.2f Mops/s\n", r.k, r.a_warp);
        std::printf("RESULT ibgda_rate a_thread %d %.2f Mops/s\n", r.k, r.a_thread);
        std::printf("RESULT ibgda_rate a_thread_qp_per_warp %d %.2f Mops/s\n", r.k, r.a_thread_w);
        std::printf("RESULT ibgda_rate a_warp_gmem %d %.2f Mops/s\n", r.k, r.a_warp_g);
        std::printf("RESULT ibgda_rate a_thread_gmem %d %.2f Mops/s\n", r.k, r.a_thread_g);
        std::printf("RESULT ibgda_rate b_simnic %d %.2f Mops/s\n", r.k, r.b);
        std::printf("RESULT ibgda_rate c_proxy_store %d %.2f Mops/s\n", r.k, r.c);
        std::printf("RESULT ibgda_rate c_proxy_wqe %d %.2f Mops/s\n", r.k, r.c_wqe);
    }
    const Row& top = rows.back();
    auto verdict = [](bool ok) { return ok ? "met" : "MISSED"; };
    std::printf("TARGET warp-coop (a) >= 215 Mops/s at 132 CTAs: %s (%.1f)\n", verdict(top.a_warp >= 215), top.a_warp);
    std::printf("TARGET 1 WQE/thread (a) >= 100 Mops/s at 132 CTAs: QP per CTA %s (%.1f), QP per warp %s (%.1f)\n",
                verdict(top.a_thread >= 100), top.a_thread, verdict(top.a_thread_w >= 100), top.a_thread_w);
    std::printf("TARGET (a) warp >= 20x (c) at 132 CTAs: host-store proxy %s (%.1fx), WQE-posting proxy %s (%.1fx)\n",
                verdict(ratio(top.a_warp, top.c) >= 20), ratio(top.a_warp, top.c), verdict(ratio(top.a_warp, top.c_wqe) >= 20),
                ratio(top.a_warp, top.c_wqe));
    if (failures) std::printf("FAIL: %d check(s) failed\n", failures);
    else std::printf("PASS ibgda_rate: every check passed\n");
    return failures ? 1 : 0;
}
