// The flagship: one MoE layer's communication with kishmem::ep, as in DeepSeek-V3 decode.
// Every PE holds T tokens (hidden H, bf16) and E/npes experts; node-limited top-k routing
// (select_topk) picks K experts per token; dispatch sends FP8 (or bf16) rows to the experts'
// PEs, a stand-in expert scales each row, combine brings the rows back and sums them weighted.
// Every received row and every output value is checked against a CPU computation, then both
// phases are timed and printed in the layout of DeepEP's low-latency table, beside the ideal
// time for the link (kishmem/ep/plan.h, the model kishmem-plan prints), the kernels' own time
// (the Buffer's kernel clock, in a pass of its own with the host ahead), the host's own time per call, the latency
// with the host ahead of the GPU (a pass of its own, GPU form) and the floor timed the same way:
// an empty kernel and the smallest exchange (one token with every other PE, Floor). Where kernels reach
// peers through the software NIC (KISHMEM_REMOTE=ibgda) or the CPU proxy, one more round counts
// the work requests and bytes each call posts (shmemx_nic_stats) and prints them per PE with
// the time a 400 Gb/s NIC would need for them.
//
// With a GPU (heap in GPU memory) the calls are kernels; without one (or with --cpu) the same
// API runs on the CPU over a host heap. Every failure prints one line "FAIL: PE n: ..." on stderr
// (the check and the first differing value) before the job ends. Testing only: --fault recv|out
// changes one received byte or one output value on the last PE before the first check.
//   mpirun -np 4 build/examples/04_moe_ep [--tokens 128] [--hidden 7168] [--topk 8]
//          [--experts-per-pe 32] [--format fp8|bf16] [--iters N] [--sms N] [--max-nodes N] [--cpu]
//          [--expert-out buffer|heap|device] [--stream nonblocking|legacy] [--index int32|int64]
//          [--max-tokens N]
// --max-tokens: the buffer holds N tokens a PE (at least --tokens; default --tokens) and every call
// sends --tokens of them, as a decode step sends fewer tokens than the buffer was made for.
// Expert outputs (GPU form): `buffer` (default) the Buffer's own (Config::combine_buffer, as
// DeepEP's get_next_low_latency_combine_buffer: read in place, no wait for the reads), `heap` a
// shmem_malloc'd block (read in place; the combine waits for the readers), `device` cudaMalloc'd
// memory (the rows are pushed); --expert-out-device is `device`. Stream (GPU form): `nonblocking`
// (default) one made with cudaStreamNonBlocking, `legacy` the legacy default stream (where eager
// PyTorch code runs unless it sets a stream), for comparing the two kinds of launch. Index:
// topk_idx as int32 (default) or int64 (DeepEP's type, and kishmem.ep's default from Python).
#include <shmem.h>
#include <shmemx.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kishmem/ep/ep.h"
#include "kishmem/ep/numerics.h"
#include "kishmem/ep/plan.h"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

namespace ep = kishmem::ep;

namespace {

struct Opts {
    int tokens = 128, hidden = 7168, topk = 8, experts_per_pe = 32, iters = 0, sms = 0, max_nodes = 4;
    int max_tokens = 0;  // the buffer's max_tokens_per_pe (0: tokens)
    ep::Format format = ep::Format::fp8_e4m3;
    std::string fault;  // testing only: "recv" or "out" (see the top)
    bool cpu = false;
    std::string eo = "buffer";  // where expert outputs are (GPU form): buffer, heap or device (see the top)
    bool legacy_stream = false;  // GPU form: run on the legacy default stream (see the top)
    bool idx64 = false;          // topk_idx as int64 (see the top)
};

// One line "FAIL: PE n: ..." on stderr, flushed, then the whole job ends (status 1).
[[noreturn]] __attribute__((format(printf, 1, 2))) void fail(const char* fmt, ...) {
    char m[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "FAIL: PE %d: %s\n", shmem_my_pe(), m);
    std::fflush(stderr);
    std::fflush(stdout);
    shmem_global_exit(1);
    std::abort();  // not reached
}

uint32_t mix(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}
uint16_t token_value(int pe, int t, int h) {
    return ep::float_to_bf16(static_cast<float>(static_cast<int>(mix(pe * 7919u + t * 65537u + h * 3u) % 2001u) - 1000) / 500.0f);
}
float score(int pe, int t, int e) { return static_cast<float>(mix(pe * 1000003u + t * 7717u + e * 131u) % 100000u) / 100000.0f; }
// The stand-in expert: the row times (1 + (e % 5) / 4), as bf16.
KISHMEM_HD uint16_t expert_fn(int e, float v) { return ep::float_to_bf16(v * (1.0f + static_cast<float>(e % 5) * 0.25f)); }

// Everyone's routing, computed on the CPU (the reference for what each PE receives).
struct Routing {
    std::vector<int32_t> idx;  // [npes][T][K]
    std::vector<float> w;      // [npes][T][K]
};

#if defined(__CUDACC__)
#define CK(x)                                                                                           \
    do {                                                                                                \
        cudaError_t e_ = (x);                                                                           \
        if (e_ != cudaSuccess) {                                                                        \
            fail("%s: %s", #x, cudaGetErrorString(e_));                                                 \
        }                                                                                               \
    } while (0)

// The experts on the GPU: row i of local expert le, for i < count[le] (read on the device).
__global__ void run_experts(const uint8_t* x, const float* scales, const int* count, uint16_t* out, int L, int R, int H,
                            int fp8, int first_expert) {
    const int le = blockIdx.y;
    for (int i = blockIdx.x; i < count[le]; i += gridDim.x) {
        const size_t slot = static_cast<size_t>(le) * R + i;
        for (int h = threadIdx.x; h < H; h += blockDim.x) {
            float v;
            if (fp8) v = ep::e4m3_to_float(x[slot * H + h]) * scales[slot * (H / 128) + h / 128];
            else v = ep::bf16_to_float(reinterpret_cast<const uint16_t*>(x)[slot * H + h]);
            out[slot * H + h] = expert_fn(first_expert + le, v);
        }
    }
}

// remote[p] = 1 where kernels reach PE p through the NIC or the proxy (the device shmem_ptr is
// null; the host's may not be: KISHMEM_REMOTE=ibgda sends even same-GPU peers that way).
__global__ void reached_remotely(const void* sym, int npes, int* remote) {
    for (int p = threadIdx.x; p < npes; p += blockDim.x) remote[p] = shmem_ptr(sym, p) == nullptr;
}

// The floor (below): an empty kernel, and one round of the smallest exchange by one block, warp w
// putting to the PEs me + 1 + w, me + 1 + w + warps, ... (every other PE once).
__global__ void floor_empty() {}
// The host ahead of the GPU (the timed pass of its own): one thread waits this long on the GPU
// before the barrier, so every call is queued before the GPU reaches it, as in a pipelined step.
__global__ void gpu_wait(unsigned long long ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); while (t - t0 < ns);
}
// The barrier of the kernel clock's pass: shmemx_barrier_all_on_stream's own kernel (one warp,
// shmemx_barrier_all_block), then the time it ended on this PE's GPU clock into *end: the PEs'
// calls behind it are meant to start together, and the stamps tell how close together they do.
__global__ void barrier_stamped(unsigned long long* end) {
    shmemx_barrier_all_block();
    if (threadIdx.x == 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(*end));
}
__global__ void floor_exchange(char* slots, const char* token, uint64_t* sig, size_t slot_bytes, size_t bytes, int me, int npes,
                               uint64_t round) {
    for (int i = 1 + static_cast<int>(threadIdx.x / 32); i < npes; i += blockDim.x / 32)
        shmemx_putmem_signal_warp(slots + me * slot_bytes, token, bytes, sig + me, round, SHMEM_SIGNAL_SET, (me + i) % npes);
    for (int p = threadIdx.x; p < npes; p += blockDim.x)
        if (p != me) shmem_signal_wait_until(sig + p, SHMEM_CMP_GE, round);
}
#endif

// The floor the calls are measured against (timed as they are): an empty kernel (<<<1, 32>>> on
// the stream), and the smallest exchange: one token as dispatch sends it (hidden x bytes per
// element, plus the FP8 scales) to every other PE, into this PE's slot there, with a signal (the
// round's number: rounds need no reset), then a wait for every other PE's signal of the round. GPU
// form: one kernel of one 256-thread block (put with signal, a warp per peer); CPU form: the host
// API (shmem_putmem_signal, shmem_signal_wait_until), and no empty kernel. Symmetric block
// (shmem_calloc, collective): slots [npes][B] (B: the token's bytes rounded up to 16), this PE's
// token [B], signals [npes] uint64.
char floor_byte(int pe, size_t i) { return static_cast<char>(mix(pe * 7907u + static_cast<uint32_t>(i))); }
struct Floor {
    size_t bytes = 0, B = 0;
    int me = 0, npes = 0;
    bool gpu = false;
    uint64_t round = 0;
    char* sym = nullptr;

    Floor(size_t token_bytes, int me_, int npes_, bool gpu_)
        : bytes(token_bytes), B((token_bytes + 15) / 16 * 16), me(me_), npes(npes_), gpu(gpu_) {
        const size_t total = (npes + 1) * B + npes * sizeof(uint64_t);
        if (!(sym = static_cast<char*>(shmem_calloc(1, total)))) fail("shmem_calloc of %zu bytes for the floor returned NULL", total);
        std::vector<char> t(bytes);
        for (size_t i = 0; i < bytes; ++i) t[i] = floor_byte(me, i);
#if defined(__CUDACC__)
        if (gpu) {
            CK(cudaMemcpy(sym + npes * B, t.data(), bytes, cudaMemcpyHostToDevice));
            // loaded now, not at a first launch while another PE's exchange already waits
            cudaFuncAttributes a{};
            CK(cudaFuncGetAttributes(&a, floor_empty));
            CK(cudaFuncGetAttributes(&a, floor_exchange));
        }
#endif
        if (!gpu) std::memcpy(sym + npes * B, t.data(), bytes);
        shmem_barrier_all();
    }
    ~Floor() { shmem_free(sym); }
    void empty(cudaStream_t s) {
#if defined(__CUDACC__)
        floor_empty<<<1, 32, 0, s>>>();
#endif
        (void)s;
    }
    void exchange(cudaStream_t s) {
        auto* sig = reinterpret_cast<uint64_t*>(sym + (npes + 1) * B);
        ++round;
#if defined(__CUDACC__)
        if (gpu) {
            floor_exchange<<<1, 256, 0, s>>>(sym, sym + npes * B, sig, B, bytes, me, npes, round);
            return;
        }
#endif
        (void)s;
        for (int i = 1; i < npes; ++i)
            shmem_putmem_signal(sym + me * B, sym + npes * B, bytes, sig + me, round, SHMEM_SIGNAL_SET, (me + i) % npes);
        for (int p = 0; p < npes; ++p)
            if (p != me) shmem_signal_wait_until(sig + p, SHMEM_CMP_GE, round);
    }
    // After the rounds (stream synchronized): every other PE's slot holds its token.
    void check() {
        std::vector<char> got(npes * B);
#if defined(__CUDACC__)
        if (gpu) CK(cudaMemcpy(got.data(), sym, got.size(), cudaMemcpyDeviceToHost));
#endif
        if (!gpu) std::memcpy(got.data(), sym, got.size());
        for (int p = 0; p < npes; ++p)
            for (size_t i = 0; p != me && i < bytes; ++i)
                if (got[p * B + i] != floor_byte(p, i))
                    fail("floor exchange: byte %zu of PE %d's token differs after %llu rounds", i, p, static_cast<unsigned long long>(round));
    }
};

void experts_cpu(const ep::Received& rv, const ep::Layout& l, uint16_t* out) {
    for (int le = 0; le < l.L; ++le)
        for (int i = 0; i < rv.count[le]; ++i) {
            const size_t slot = static_cast<size_t>(le) * l.R + i;
            for (int h = 0; h < l.H; ++h) {
                const float v = l.G ? ep::e4m3_to_float(static_cast<const uint8_t*>(rv.x)[slot * l.H + h]) * rv.scales[slot * l.G + h / 128]
                                    : ep::bf16_to_float(static_cast<const uint16_t*>(rv.x)[slot * l.H + h]);
                out[slot * l.H + h] = expert_fn(l.me * l.L + le, v);
            }
        }
}

// Checks this PE's received rows and its combined output against the CPU (host copies in); the
// first difference ends the job after a FAIL line naming it and the round (`when`).
void check(const char* when, const ep::Layout& l, int T, const Routing& r, const std::vector<int>& count,
           const std::vector<ep::SrcInfo>& src, const std::vector<uint8_t>& x, const std::vector<float>& scales,
           const std::vector<uint16_t>& out) {
    const int me = l.me, K = l.K, H = l.H;  // T: the call's tokens (the buffer holds l.T)
    std::map<std::pair<int, int>, int> want;  // (src pe * T + t, local expert) -> k
    for (int p = 0; p < l.npes; ++p)
        for (int t = 0; t < T; ++t)
            for (int k = 0; k < K; ++k) {
                const int e = r.idx[(static_cast<size_t>(p) * T + t) * K + k];
                if (e >= 0 && e / l.L == me) want[{p * T + t, e % l.L}] = k;
            }
    std::vector<uint16_t> tok(H);
    std::vector<uint8_t> q(H);
    std::vector<float> sc(H / 128 + 1);
    for (int le = 0; le < l.L; ++le) {
        if (count[le] < 0 || count[le] > l.R) fail("%s round: expert %d received %d rows, at most %d fit", when, le, count[le], l.R);
        for (int i = 0; i < count[le]; ++i) {
            const size_t slot = static_cast<size_t>(le) * l.R + i;
            const ep::SrcInfo s = src[slot];
            auto it = want.find({s.pe * T + s.token, le});
            if (it == want.end() || it->second != s.k)
                fail("%s round: expert %d row %d from PE %d token %d k %d was not sent here", when, le, i, s.pe, s.token, s.k);
            want.erase(it);
            for (int h = 0; h < H; ++h) tok[h] = token_value(s.pe, s.token, h);
            if (l.G) ep::quantize_token(tok.data(), H, q.data(), sc.data());
            for (int h = 0; h < H; ++h) {
#define ROW_DIFFERS "%s round: expert %d row %d (PE %d token %d) element %d differs from the token sent: "
                if (l.G && scales[slot * l.G + h / 128] != sc[h / 128])
                    fail(ROW_DIFFERS "scale %a, expected %a", when, le, i, s.pe, s.token, h, scales[slot * l.G + h / 128], sc[h / 128]);
                if (l.G && x[slot * H + h] != q[h])
                    fail(ROW_DIFFERS "FP8 byte 0x%02x, expected 0x%02x", when, le, i, s.pe, s.token, h, x[slot * H + h], q[h]);
                uint16_t got = 0;
                if (!l.G) std::memcpy(&got, &x[(slot * H + h) * 2], 2);
                if (!l.G && got != tok[h])
                    fail(ROW_DIFFERS "bf16 0x%04x, expected 0x%04x", when, le, i, s.pe, s.token, h, got, tok[h]);
#undef ROW_DIFFERS
            }
        }
    }
    if (!want.empty())
        fail("%s round: %zu rows never arrived, the first: PE %d token %d k %d for expert %d", when, want.size(),
             want.begin()->first.first / T, want.begin()->first.first % T, want.begin()->second, me * l.L + want.begin()->first.second);
    for (int t = 0; t < T; ++t) {
        for (int h = 0; h < H; ++h) tok[h] = token_value(me, t, h);
        if (l.G) ep::quantize_token(tok.data(), H, q.data(), sc.data());
        for (int h = 0; h < H; ++h) {
            const float v = l.G ? ep::e4m3_to_float(q[h]) * sc[h / 128] : ep::bf16_to_float(tok[h]);
            float acc = 0.0f;
            for (int k = 0; k < K; ++k) {
                const size_t j = (static_cast<size_t>(me) * T + t) * K + k;
                if (r.idx[j] >= 0) acc = std::fma(r.w[j], ep::bf16_to_float(expert_fn(r.idx[j], v)), acc);
            }
            if (out[static_cast<size_t>(t) * H + h] != ep::float_to_bf16(acc))
                fail("%s round: out[%d][%d] = %g (bf16 0x%04x), expected %g (bf16 0x%04x)", when, t, h,
                     ep::bf16_to_float(out[static_cast<size_t>(t) * H + h]), out[static_cast<size_t>(t) * H + h],
                     ep::bf16_to_float(ep::float_to_bf16(acc)), ep::float_to_bf16(acc));
        }
    }
}

// What one dispatch and one combine posted to the NIC (or the proxy), per PE: shmemx_nic_stats
// around each call, and the entries and rows that crossed to PEs this one does not load/store
// (from the routing).
enum Count { kSource, kDispWr, kDispBytes, kDispEntries, kCombWr, kCombBytes, kCombRows, kCounts };

// Every PE's counts (g + p * stride), as a table with the time on a 400 Gb/s NIC
// (kishmem::plan::nic_time_s: 50 GB/s, 200 M msg/s); nothing where no PE counted any.
void print_counts(const double* g, size_t stride, int npes) {
    int source = SHMEMX_NIC_SOURCE_NONE;
    for (int p = 0; p < npes; ++p) source = std::max(source, static_cast<int>(g[p * stride + kSource]));
    if (source == SHMEMX_NIC_SOURCE_NONE) return;
    std::printf("\nwork requests per call on each PE's %s (shmemx_nic_stats around one call, its stream synchronized); "
                "@ 400 Gb/s: max(bytes / 50 GB/s, work requests / 200 M/s)\n",
                source == SHMEMX_NIC_SOURCE_NIC ? "software NIC (IBGDA)" : "CPU proxy");
    std::printf("| PE | dispatch WRs | entries to remote PEs | dispatch bytes | dispatch @ 400 Gb/s | combine WRs | rows from "
                "remote PEs | combine bytes | combine @ 400 Gb/s |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int p = 0; p < npes; ++p) {
        const double* c = g + p * stride;
        std::printf("| PE %d | %.0f | %.0f | %.0f | %.2f us | %.0f | %.0f | %.0f | %.2f us |\n", p, c[kDispWr], c[kDispEntries],
                    c[kDispBytes], kishmem::plan::nic_time_s(c[kDispWr], c[kDispBytes]) * 1e6, c[kCombWr], c[kCombRows],
                    c[kCombBytes], kishmem::plan::nic_time_s(c[kCombWr], c[kCombBytes]) * 1e6);
    }
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// The PEs' stamps of each clocked round (kStampsPerRound: KernelTimes' start and end of the
// dispatch, then of the combine, then the end of the barrier before each;
// all[p * per + kStampsPerRound * round + i], one GPU's global timer), as medians over the rounds,
// dispatch then combine for each: [0, 1] how much later the latest PE's first block started than
// the earliest's, [2, 3] the time from that start to the last PE's end (what the exchange takes
// once every PE runs), [4, 5] how much later the latest PE's barrier ended than the earliest's,
// [6, 7] the most any PE's first block started after its own barrier's end.
constexpr size_t kStampsPerRound = 6;
std::vector<double> start_spread(const std::vector<unsigned long long>& all, int npes, size_t per) {
    std::vector<double> v[8];
    for (size_t r = 0; r + kStampsPerRound <= per; r += kStampsPerRound)
        for (int c = 0; c < 2; ++c) {
            unsigned long long first = ULLONG_MAX, last = 0, end = 0, bfirst = ULLONG_MAX, blast = 0, gap = 0;
            for (int p = 0; p < npes; ++p) {
                const unsigned long long* st = &all[p * per + r + 2 * c];
                const unsigned long long b = all[p * per + r + 4 + c];
                first = std::min(first, st[0]);
                last = std::max(last, st[0]);
                end = std::max(end, st[1]);
                bfirst = std::min(bfirst, b);
                blast = std::max(blast, b);
                gap = std::max(gap, st[0] > b ? st[0] - b : 0);
            }
            v[c].push_back(static_cast<double>(last - first) * 1e-3);
            v[2 + c].push_back(static_cast<double>(end - last) * 1e-3);
            v[4 + c].push_back(static_cast<double>(blast - bfirst) * 1e-3);
            v[6 + c].push_back(static_cast<double>(gap) * 1e-3);
        }
    std::vector<double> m;
    for (auto& x : v) m.push_back(median(x));
    return m;
}

// The options (usage below); false on anything else: an unknown word, an option without its
// value, a number that is not a whole integer, a choice not offered.
bool parse(int argc, char** argv, Opts* o) {
    const std::pair<const char*, int*> nums[] = {{"--tokens", &o->tokens},       {"--hidden", &o->hidden},
                                                  {"--topk", &o->topk},           {"--experts-per-pe", &o->experts_per_pe},
                                                  {"--iters", &o->iters},         {"--sms", &o->sms},
                                                  {"--max-nodes", &o->max_nodes}, {"--max-tokens", &o->max_tokens}};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--cpu") {
            o->cpu = true;
            continue;
        }
        if (a == "--expert-out-device") {
            o->eo = "device";
            continue;
        }
        if (i + 1 >= argc) return false;  // every other option takes a value
        const std::string v = argv[++i];
        bool known = false;
        for (const auto& [name, dst] : nums) {
            if (a != name) continue;
            char* end = nullptr;
            errno = 0;
            const long n = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || errno || n < INT_MIN || n > INT_MAX) return false;
            *dst = static_cast<int>(n);
            known = true;
        }
        if (known) continue;
        if (a == "--format" && (v == "fp8" || v == "bf16")) o->format = v == "fp8" ? ep::Format::fp8_e4m3 : ep::Format::bf16;
        else if (a == "--expert-out" && (v == "buffer" || v == "heap" || v == "device")) o->eo = v;
        else if (a == "--stream" && (v == "nonblocking" || v == "legacy")) o->legacy_stream = v == "legacy";
        else if (a == "--fault" && (v == "recv" || v == "out")) o->fault = v;
        else if (a == "--index" && (v == "int32" || v == "int64")) o->idx64 = v == "int64";
        else return false;
    }
    return o->iters >= 0 && (o->max_tokens == 0 || o->max_tokens >= o->tokens);  // (0: the default)
}

}  // namespace

int main(int argc, char** argv) {
    Opts o;
    if (!parse(argc, argv, &o)) {
        std::fprintf(stderr, "usage: %s [--tokens N] [--hidden H] [--topk K] [--experts-per-pe N] [--format fp8|bf16] "
                             "[--iters N] [--sms N] [--max-nodes N] [--max-tokens N >= tokens] [--cpu] [--expert-out buffer|heap|device] "
                             "[--stream nonblocking|legacy] [--index int32|int64]\n", argv[0]);
        return 2;
    }
    bool have_gpu = false;
#if defined(__CUDACC__)
    int ndev = 0;
    have_gpu = cudaGetDeviceCount(&ndev) == cudaSuccess && ndev > 0;
    if (!have_gpu) cudaGetLastError();
#endif
    if (o.cpu || !have_gpu) setenv("KISHMEM_HEAP", "host", 1);  // the CPU form
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    ep::Config c;
    c.max_tokens_per_pe = o.max_tokens > 0 ? o.max_tokens : o.tokens;
    c.hidden = o.hidden;
    c.topk = o.topk;
    c.num_experts = o.experts_per_pe * npes;
    c.format = o.format;
    c.num_sms = o.sms;
    // The buffer's own expert outputs only where the calls will be kernels: the heap in GPU memory
    // (KISHMEM_HEAP=host on a GPU machine gives the CPU form, whose experts write a vector of their own).
    bool heap_on_gpu = false;
#if defined(__CUDACC__)
    if (have_gpu && !o.cpu) {  // (collective: every PE decides alike)
        void* probe = shmem_malloc(8);
        cudaPointerAttributes pa{};
        heap_on_gpu = probe && cudaPointerGetAttributes(&pa, probe) == cudaSuccess && pa.type == cudaMemoryTypeDevice;
        cudaGetLastError();
        shmem_free(probe);
    }
#endif
    c.combine_buffer = heap_on_gpu && o.eo == "buffer";
    auto buf = ep::Buffer::create(SHMEM_TEAM_WORLD, c);
    if (!buf) {  // every PE ends create the same way, after kishmem's line saying why
        std::fprintf(stderr, "FAIL: PE %d: kishmem::ep::Buffer::create failed (the kishmem line above says why)\n", me);
        std::fflush(stderr);
        shmem_finalize();
        return 1;
    }
    const ep::Layout& l = buf->layout();
    const bool gpu = buf->on_gpu();
    const int T = o.tokens, H = o.hidden, K = o.topk, E = c.num_experts;
    const int iters = o.iters > 0 ? o.iters : gpu ? 50 : 3;

    // Inputs, and every PE's routing on the CPU (node = one PE's experts, at most max_nodes).
    std::vector<uint16_t> x(static_cast<size_t>(T) * H);
    for (int t = 0; t < T; ++t)
        for (int h = 0; h < H; ++h) x[static_cast<size_t>(t) * H + h] = token_value(me, t, h);
    Routing r;
    r.idx.resize(static_cast<size_t>(npes) * T * K);
    r.w.resize(r.idx.size());
    std::vector<float> scores(static_cast<size_t>(T) * E);
    const int max_nodes = std::min(o.max_nodes, npes);
    for (int p = 0; p < npes; ++p) {
        for (int t = 0; t < T; ++t)
            for (int e = 0; e < E; ++e) scores[static_cast<size_t>(t) * E + e] = score(p, t, e);
        if (const int rc = ep::select_topk(scores.data(), T, E, K, max_nodes, o.experts_per_pe, &r.idx[static_cast<size_t>(p) * T * K],
                                           &r.w[static_cast<size_t>(p) * T * K]))
            fail("select_topk for PE %d's tokens returned status %d", p, rc);
    }
    for (int t = 0; t < T; ++t)
        for (int e = 0; e < E; ++e) scores[static_cast<size_t>(t) * E + e] = score(me, t, e);
    const int32_t* my_idx = &r.idx[static_cast<size_t>(me) * T * K];
    const float* my_w = &r.w[static_cast<size_t>(me) * T * K];
    const std::vector<int64_t> my_idx64 =  // --index int64 only
        o.idx64 ? std::vector<int64_t>(my_idx, my_idx + static_cast<size_t>(T) * K) : std::vector<int64_t>();

    // Buffers of the form in use; one round = dispatch, experts, combine.
    const size_t rows = static_cast<size_t>(l.L) * l.R;
    std::vector<uint16_t> eo_h, out_h(static_cast<size_t>(T) * H);
    void *x_d = nullptr, *eo_d = nullptr, *out_d = nullptr;
    int32_t* idx_d = nullptr;
    int64_t* idx64_d = nullptr;
    float* w_d = nullptr;
    cudaStream_t s = nullptr;
    ep::Received rv;
    ep::Handle h;
#if defined(__CUDACC__)
    if (gpu) {
        if (o.legacy_stream) s = cudaStreamLegacy;
        else CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        CK(cudaMalloc(&x_d, x.size() * 2));
        CK(cudaMalloc(&idx_d, static_cast<size_t>(T) * K * 4));
        CK(cudaMalloc(&w_d, static_cast<size_t>(T) * K * 4));
        float* scores_d = nullptr;
        CK(cudaMalloc(&scores_d, scores.size() * 4));
        // expert outputs in the symmetric heap: combine reads them in place where the token's PE
        // maps this one (--expert-out device: plain device memory, the rows are pushed instead)
        if (o.eo == "buffer") eo_d = buf->combine_buffer();
        else if (o.eo == "device") CK(cudaMalloc(&eo_d, rows * H * 2));
        else if (!(eo_d = shmem_malloc(rows * H * 2))) {
            fail("shmem_malloc of %zu bytes for the expert outputs returned NULL", rows * H * 2);
        }
        CK(cudaMalloc(&out_d, out_h.size() * 2));
        // On the stream the kernels run on: a cudaMemcpy from pageable memory may return before its
        // data reaches the GPU, and kernels on a non-blocking stream do not wait for it.
        CK(cudaMemcpyAsync(x_d, x.data(), x.size() * 2, cudaMemcpyHostToDevice, s));
        CK(cudaMemcpyAsync(scores_d, scores.data(), scores.size() * 4, cudaMemcpyHostToDevice, s));
        // routing on the GPU, checked against the CPU's
        if (const int rc = ep::select_topk_gpu(s, scores_d, T, E, K, max_nodes, o.experts_per_pe, idx_d, w_d))
            fail("select_topk_gpu returned status %d", rc);
        std::vector<int32_t> gi(static_cast<size_t>(T) * K);
        std::vector<float> gw(gi.size());
        CK(cudaMemcpyAsync(gi.data(), idx_d, gi.size() * 4, cudaMemcpyDeviceToHost, s));
        CK(cudaMemcpyAsync(gw.data(), w_d, gw.size() * 4, cudaMemcpyDeviceToHost, s));
        if (o.idx64) {  // the CPU's routing (the GPU's is checked equal to it below)
            CK(cudaMalloc(&idx64_d, my_idx64.size() * 8));
            CK(cudaMemcpyAsync(idx64_d, my_idx64.data(), my_idx64.size() * 8, cudaMemcpyHostToDevice, s));
        }
        CK(cudaStreamSynchronize(s));
        for (size_t j = 0; j < gi.size(); ++j)
            if (gi[j] != my_idx[j] || std::memcmp(&gw[j], &my_w[j], 4))
                fail("select_topk_gpu differs from select_topk at token %zu k %zu: expert %d weight %a, expected expert %d "
                     "weight %a (max_nodes %d, %d experts per node)", j / K, j % K, gi[j], gw[j], my_idx[j], my_w[j], max_nodes,
                     o.experts_per_pe);
        CK(cudaFree(scores_d));
    }
#endif
    if (!gpu) eo_h.assign(rows * H, 0);
    auto dispatch = [&](bool hook) {
        const void* xx = gpu ? x_d : x.data();
        const int rc = o.idx64 ? buf->dispatch(s, xx, gpu ? idx64_d : my_idx64.data(), T, &rv, &h, hook)
                               : buf->dispatch(s, xx, gpu ? idx_d : my_idx, T, &rv, &h, hook);
        if (rc) fail("dispatch returned status %d", rc);
    };
    auto experts = [&] {
#if defined(__CUDACC__)
        if (gpu) {
            run_experts<<<dim3(32, l.L), 256, 0, s>>>(static_cast<const uint8_t*>(rv.x), rv.scales, rv.count,
                                                     static_cast<uint16_t*>(eo_d), l.L, l.R, H, l.G > 0, me * l.L);
            return;
        }
#endif
        experts_cpu(rv, l, eo_h.data());
    };
    auto combine = [&](bool hook) {
        if (const int rc = buf->combine(s, gpu ? eo_d : eo_h.data(), gpu ? w_d : my_w, gpu ? out_d : out_h.data(), &h, hook))
            fail("combine returned status %d", rc);
    };
    auto barrier = [&] {
#if defined(__CUDACC__)
        if (gpu) {
            shmemx_barrier_all_on_stream(s);
            return;
        }
#endif
        shmem_barrier_all();
    };
    auto verify = [&](const char* when) {
        std::vector<int> count(l.L);
        std::vector<ep::SrcInfo> src(rows);
        std::vector<uint8_t> xr(rows * H * l.xb);
        std::vector<float> sc(rows * l.G);
#if defined(__CUDACC__)
        if (gpu) {
            CK(cudaStreamSynchronize(s));
            if (const int rc = buf->check(s)) fail("%s round: Buffer::check returned status %d", when, rc);
            CK(cudaMemcpy(count.data(), rv.count, l.L * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(src.data(), rv.src, rows * 16, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(xr.data(), rv.x, xr.size(), cudaMemcpyDeviceToHost));
            if (l.G) CK(cudaMemcpy(sc.data(), rv.scales, sc.size() * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(out_h.data(), out_d, out_h.size() * 2, cudaMemcpyDeviceToHost));
        }
#endif
        if (!gpu) {
            std::memcpy(count.data(), rv.count, l.L * 4);
            std::memcpy(src.data(), rv.src, rows * 16);
            std::memcpy(xr.data(), rv.x, xr.size());
            if (l.G) std::memcpy(sc.data(), rv.scales, sc.size() * 4);
        }
        if (!o.fault.empty() && me == npes - 1 && !std::strcmp(when, "first")) {  // testing only
            const auto it = std::find_if(count.begin(), count.end(), [](int n) { return n > 0; });
            if (o.fault == "recv" && it != count.end()) xr[static_cast<size_t>(it - count.begin()) * l.R * H * l.xb] ^= 1;
            if (o.fault == "out") out_h[0] ^= 1;
        }
        check(when, l, T, r, count, src, xr, sc, out_h);
    };

    // 1. One round, checked.
    dispatch(false);
    experts();
    combine(false);
    verify("first");

    // 2. Counted (GPU form; outside the timed rounds): one more round, each call alone between
    //    stream synchronizations and host barriers (which post nothing to the NIC or proxy).
    double counts[kCounts] = {0};
    if (gpu) {
        shmemx_nic_stats_t st[4];
        int rc = 0;
        auto sync_read = [&](shmemx_nic_stats_t* to) {
#if defined(__CUDACC__)
            CK(cudaStreamSynchronize(s));
#endif
            rc |= shmemx_nic_stats(to);
        };
        sync_read(&st[0]);
        shmem_barrier_all();  // every PE is done reading the last round
        dispatch(false);
        sync_read(&st[1]);
        experts();
        sync_read(&st[2]);
        shmem_barrier_all();
        combine(false);
        sync_read(&st[3]);
        if (rc == 0) {
            std::vector<int> remote(npes, 0);
#if defined(__CUDACC__)
            int* remote_d = nullptr;  // rv.x: an address in the symmetric heap (the buffer's block)
            CK(cudaMalloc(&remote_d, npes * sizeof(int)));
            reached_remotely<<<1, 128, 0, s>>>(rv.x, npes, remote_d);
            CK(cudaMemcpyAsync(remote.data(), remote_d, npes * sizeof(int), cudaMemcpyDeviceToHost, s));
            CK(cudaStreamSynchronize(s));
            CK(cudaFree(remote_d));
#endif

            counts[kSource] = st[0].source;
            counts[kDispWr] = static_cast<double>(st[1].work_requests - st[0].work_requests);
            counts[kDispBytes] = static_cast<double>(st[1].bytes - st[0].bytes);
            counts[kCombWr] = static_cast<double>(st[3].work_requests - st[2].work_requests);
            counts[kCombBytes] = static_cast<double>(st[3].bytes - st[2].bytes);
            for (int p = 0; p < npes; ++p)
                for (size_t j = 0; j < static_cast<size_t>(T) * K; ++j) {
                    const int e = r.idx[static_cast<size_t>(p) * T * K + j];
                    if (e < 0 || (p == me) == (e / l.L == me) || !remote[p == me ? e / l.L : p]) continue;
                    counts[p == me ? kDispEntries : kCombRows] += 1;
                }
            // At least what the rows need: per entry the row, its scales (FP8) and its source
            // (ep/README.md: 3 work requests, 2 for bf16), per row pushed back one write.
            const double n = counts[kDispEntries], rows_back = counts[kCombRows];
            if (counts[kDispWr] < n * (l.G ? 3 : 2) || counts[kDispBytes] < n * (H * l.xb + l.G * 4 + 16) ||
                counts[kCombWr] < rows_back || counts[kCombBytes] < rows_back * H * 2)
                fail("dispatch posted %.0f work requests of %.0f bytes for %.0f entries, combine %.0f of %.0f bytes for %.0f rows: "
                     "fewer than the rows need", counts[kDispWr], counts[kDispBytes], n, counts[kCombWr], counts[kCombBytes], rows_back);
        }
    }

    // 3. Timed: normal calls, then send-only + hook (send and receive timed apart), then normal
    //    calls with the kernel clock on (Buffer::kernel_times: the kernels' own time; a pass of its
    //    own, so that the latency rounds run as without it, with the host ahead as pass 3: the
    //    PEs' kernels then start as their barrier ends, whatever the host takes to launch them, as
    //    in the published peers' tables).
    enum { kDisp, kComb, kDispSend, kDispRecv, kCombSend, kCombRecv, kDispKernel, kCombKernel, kFloorEmpty, kFloorExchange,
           kDispHost, kCombHost, kDispAhead, kCombAhead, kN };
    std::vector<double> tm[kN];
    std::vector<unsigned long long> stamps;  // the clocked rounds' KernelTimes stamps (start_spread)
#if defined(__CUDACC__)
    cudaEvent_t ev[8];
    if (gpu)
        for (auto& e : ev) CK(cudaEventCreate(&e));
#endif
    using clk = std::chrono::steady_clock;
    clk::time_point ct[8];
    auto mark = [&](int i) {
#if defined(__CUDACC__)
        if (gpu) {
            CK(cudaEventRecord(ev[i], s));
            return;
        }
#endif
        ct[i] = clk::now();
    };
    auto span = [&](int a, int b) {
#if defined(__CUDACC__)
        if (gpu) {
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, ev[a], ev[b]));
            return ms * 1e3;
        }
#endif
        return std::chrono::duration<double, std::micro>(ct[b] - ct[a]).count();
    };
    auto sync = [&] {
#if defined(__CUDACC__)
        if (gpu) CK(cudaStreamSynchronize(s));
#endif
    };
    // Pass 3 (GPU form): as pass 0 with the host ahead: a GPU wait of kAheadNs before each barrier
    // (longer than the host takes to queue the call), so the figure is the GPU's alone, as in a
    // pipelined step or a graph replay, whatever the calling language costs on the host.
    constexpr unsigned long long kAheadNs = 100000;
    auto ahead = [&](bool on) {
#if defined(__CUDACC__)
        if (on) gpu_wait<<<1, 1, 0, s>>>(kAheadNs);
#endif
        (void)on;
    };
    // The kernel clock's pass stamps its barriers' ends (barrier_stamped; [0] before the dispatch,
    // [1] before the combine), to tell the barrier's release from the calls' start (start_spread).
    unsigned long long* bend = nullptr;
#if defined(__CUDACC__)
    if (gpu) {
        CK(cudaMalloc(&bend, 2 * sizeof(unsigned long long)));
        cudaFuncAttributes fa{};
        CK(cudaFuncGetAttributes(&fa, barrier_stamped));  // loaded now, not at a first launch behind a waiting kernel
    }
#endif
    // The barrier, its end stamped into ends[which] where ends is given (the GPU form's clock pass).
    auto barrier_at = [&](unsigned long long* ends, int which) {
#if defined(__CUDACC__)
        if (ends) {
            barrier_stamped<<<1, 32, 0, s>>>(ends + which);
            return;
        }
#endif
        (void)ends;
        (void)which;
        barrier();
    };
    for (int pass = 0; pass < (gpu ? 4 : 3); ++pass) {
        const bool hook = pass == 1, clocked = pass == 2, ahead_pass = pass == 3, host_ahead = ahead_pass || clocked;
        buf->set_kernel_clock(clocked);
        for (int it = 0; it < iters + 2; ++it) {  // 2 warm-up rounds
            ahead(host_ahead);
            barrier_at(clocked ? bend : nullptr, 0);
            mark(0);
            const clk::time_point h0 = clk::now();
            dispatch(hook);
            const double disp_host = std::chrono::duration<double, std::micro>(clk::now() - h0).count();
            mark(1);
            if (hook) {
                barrier();
                mark(2);
                if (const int rc = buf->dispatch_recv(s, &h)) fail("dispatch_recv returned status %d", rc);
                mark(3);
            }
            experts();
            ahead(host_ahead);
            barrier_at(clocked ? bend : nullptr, 1);
            mark(4);
            const clk::time_point h1 = clk::now();
            combine(hook);
            const double comb_host = std::chrono::duration<double, std::micro>(clk::now() - h1).count();
            mark(5);
            if (hook) {
                barrier();
                mark(6);
                if (const int rc = buf->combine_recv(s, &h)) fail("combine_recv returned status %d", rc);
                mark(7);
            }
            sync();
            if (it < 2) continue;
            if (clocked) {
                const ep::KernelTimes kt = buf->kernel_times();
                if (kt.dispatch_us < 0 || kt.combine_us < 0)
                    fail("kernel_times gave dispatch %.2f us, combine %.2f us with the clock on", kt.dispatch_us, kt.combine_us);
                tm[kDispKernel].push_back(kt.dispatch_us);
                tm[kCombKernel].push_back(kt.combine_us);
                unsigned long long be[2] = {0, 0};
#if defined(__CUDACC__)
                if (bend) CK(cudaMemcpy(be, bend, sizeof be, cudaMemcpyDeviceToHost));
#endif
                stamps.insert(stamps.end(),
                              {kt.dispatch_start_ns, kt.dispatch_end_ns, kt.combine_start_ns, kt.combine_end_ns, be[0], be[1]});
            } else if (ahead_pass) {
                tm[kDispAhead].push_back(span(0, 1));
                tm[kCombAhead].push_back(span(4, 5));
            } else if (!hook) {
                tm[kDisp].push_back(span(0, 1));
                tm[kComb].push_back(span(4, 5));
                tm[kDispHost].push_back(disp_host);
                tm[kCombHost].push_back(comb_host);
            } else {
                tm[kDispSend].push_back(span(0, 1));
                tm[kDispRecv].push_back(span(2, 3));
                tm[kCombSend].push_back(span(4, 5));
                tm[kCombRecv].push_back(span(6, 7));
            }
        }
    }
    buf->set_kernel_clock(false);
    verify("last");  // the last round too (of the last pass)

    // 4. The floor, timed the same way: an empty kernel (GPU form), then the smallest exchange
    //    (one dispatched token with every other PE, Floor).
    {
        Floor fl(static_cast<size_t>(H) * l.xb + l.G * sizeof(float), me, npes, gpu);
        for (int it = 0; it < iters + 2; ++it) {
            if (gpu) {
                barrier();
                mark(0);
                fl.empty(s);
                mark(1);
            }
            barrier();
            mark(2);
            fl.exchange(s);
            mark(3);
            sync();
            if (it < 2) continue;
            if (gpu) tm[kFloorEmpty].push_back(span(0, 1));
            tm[kFloorExchange].push_back(span(2, 3));
        }
        fl.check();
    }

    // 5. The slowest PE's medians (and every PE's counts), gathered on PE 0.
    constexpr size_t kStride = kN + 1 + kCounts;
    double mine[kStride];
    for (int i = 0; i < kN; ++i) mine[i] = median(tm[i]);
    // This PE's GPU, as 52 bits of its UUID's hash (exact in a double; the PCI bus number alone
    // repeats between hosts): the PEs are on one GPU when all agree.
    double gpu_id = 0;
#if defined(__CUDACC__)
    if (gpu) {
        int dev = 0;
        cudaDeviceProp prop{};
        if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess) {
            unsigned long long h = 1469598103934665603ull;  // FNV-1a
            for (char c : prop.uuid.bytes) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
            gpu_id = static_cast<double>(h & ((1ull << 52) - 1));
        }
    }
#endif
    mine[kN] = gpu_id;
    std::copy(counts, counts + kCounts, mine + kN + 1);
    auto* all = static_cast<double*>(shmem_malloc(sizeof(double) * kStride * npes));
    if (!all) fail("shmem_malloc of %zu bytes for the results returned NULL", sizeof(double) * kStride * npes);
    shmem_putmem(all + static_cast<size_t>(me) * kStride, mine, sizeof mine, 0);
    const size_t per = stamps.size();  // (the same on every PE: iters rounds, GPU form)
    auto* stamps_all = static_cast<unsigned long long*>(shmem_malloc(sizeof(unsigned long long) * std::max<size_t>(per, 1) * npes));
    if (!stamps_all)
        fail("shmem_malloc of %zu bytes for the kernel stamps returned NULL", sizeof(unsigned long long) * std::max<size_t>(per, 1) * npes);
    if (per) shmem_putmem(stamps_all + me * per, stamps.data(), per * sizeof(unsigned long long), 0);
    shmem_barrier_all();
    if (me == 0) {
        std::vector<double> g(kStride * npes);
        shmem_getmem(g.data(), all, g.size() * sizeof(double), 0);
        double worst[kN] = {0};
        std::vector<double> spread;  // start_spread, where every PE is on this GPU
        bool one_gpu = true;
        for (int p = 0; p < npes; ++p) {
            for (int i = 0; i < kN; ++i) worst[i] = std::max(worst[i], g[p * kStride + i]);
            one_gpu &= g[p * kStride + kN] == g[kN];
        }
        namespace plan = kishmem::plan;
        const double db = l.xb, cb = 2;
        const char* link = !gpu ? "host memory (not modelled)" : one_gpu ? "one GPU's memory, 4300 GB/s" : "NVLink, 450 GB/s";
        const double link_GBps = !gpu ? 0 : one_gpu ? 4300 : 450;
        auto bw = [&](double bytes, double us) { return plan::deepep_bandwidth_GBps(T, K, H, bytes, us * 1e-6); };
        auto ideal = [&](double bytes, double GBps) { return GBps > 0 ? plan::alltoall_time_s(T, K, H, bytes, GBps) * 1e6 : 0.0; };
        std::printf("kishmem::ep flagship: %s form, %d PEs, %d tokens/PE, hidden %d, top-%d of %d experts (%d per PE, at most %d "
                    "nodes), %s dispatch (%s indices), bf16 combine; %d timed rounds, slowest PE's median\n",
                    gpu ? "GPU" : "CPU", npes, T, H, K, E, o.experts_per_pe, max_nodes, l.G ? "FP8" : "BF16",
                    o.idx64 ? "int64" : "int32", iters);
        std::printf("checked: every received row (byte-exact, with its source) and every output value (bit-exact) "
                    "against the CPU, first and last round\n\n");
        std::printf("| EP size | dispatch latency | dispatch kernel | dispatch bandwidth | combine latency | combine kernel | "
                    "combine bandwidth | ideal @ CX7 50 GB/s (dispatch / combine) | ideal @ %s |\n"
                    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n", link);
        std::printf("| %d | %.1f us | %.1f us | %.2f GB/s | %.1f us | %.1f us | %.2f GB/s | %.1f / %.1f us | ", npes, worst[kDisp],
                    worst[kDispKernel], bw(db, worst[kDisp]), worst[kComb], worst[kCombKernel], bw(cb, worst[kComb]), ideal(db, 50),
                    ideal(cb, 50));
        if (link_GBps > 0) std::printf("%.2f / %.2f us |\n", ideal(db, link_GBps), ideal(cb, link_GBps));
        else std::printf("- |\n");
        std::printf("latency: %s; kernel: %s, in a pass of its own%s\n",
                    gpu ? "between CUDA events around the call" : "the host clock around the call",
                    gpu ? "the call's kernels from the first block's start to the last block's end (%globaltimer, "
                          "Buffer::kernel_times)"
                        : "the call's work on the host (Buffer::kernel_times; the CPU form has no kernel)",
                    gpu ? " with the host ahead" : "");
        // Each PE's own medians beside the slowest: a PE whose call starts before its peers' waits
        // for their rows, so the spread between PEs tells that wait from the call's own work.
        // On the GPU also each PE's latency (plain and with the host ahead) and host time: in the
        // plain rounds a PE whose host launches later than the GPU could start its call shows it.
        std::printf("each PE's median, kernel (dispatch / combine)%s:",
                    gpu ? ", latency, latency with the host ahead, host time per call" : "");
        for (int p = 0; p < npes; ++p) {
            const double* v = &g[p * kStride];
            std::printf("%s PE %d %.1f / %.1f", p ? ";" : "", p, v[kDispKernel], v[kCombKernel]);
            if (gpu)
                std::printf(", %.1f / %.1f, %.1f / %.1f, %.1f / %.1f", v[kDisp], v[kComb], v[kDispAhead], v[kCombAhead],
                            v[kDispHost], v[kCombHost]);
            std::printf(" us");
        }
        std::printf("\n");
        if (gpu) {  // (the CPU form's latency is the host's time)
            std::printf("the host's own time per call (the checks and the launches: the host clock around the call): dispatch "
                        "%.1f us, combine %.1f us\n", worst[kDispHost], worst[kCombHost]);
            std::printf("latency with the host ahead (a %.0f us GPU wait queued before each barrier: the GPU's time alone, as "
                        "in a pipelined step): dispatch %.1f us, combine %.1f us\n",
                        kAheadNs / 1e3, worst[kDispAhead], worst[kCombAhead]);
        }
        if (gpu && one_gpu && per && npes > 1) {  // (one GPU: one global timer)
            std::vector<unsigned long long> sa(per * npes);
            shmem_getmem(sa.data(), stamps_all, sa.size() * sizeof(unsigned long long), 0);
            spread = start_spread(sa, npes, per);
            std::printf("the PEs' kernels in the kernel clock's pass (medians over its rounds): the last PE's first block started "
                        "%.1f / %.1f us after the first PE's (dispatch / combine); from that start to the last PE's end "
                        "%.1f / %.1f us\n", spread[0], spread[1], spread[2], spread[3]);
            std::printf("the barrier before each call there (on the stream): the last PE's ended %.1f / %.1f us after the first "
                        "PE's; a PE's first block started at most %.1f / %.1f us after its own barrier ended\n",
                        spread[4], spread[5], spread[6], spread[7]);
        }
        // The floor beside them, and each call as a multiple of the exchange.
        const double fx = worst[kFloorExchange];
        auto times = [&](double v) {
            char m[32] = "-";
            if (fx > 0 && npes > 1) std::snprintf(m, sizeof m, "%.1fx", v / fx);  // (one PE exchanges nothing)
            return std::string(m);
        };
        std::printf("\nthe floor, timed the same way: %s, and the smallest exchange: %s one dispatched token (%d bytes) "
                    "with a signal to each of the %d other PEs, then waits for theirs\n",
                    gpu ? "an empty kernel (<<<1, 32>>> on the stream)" : "no kernel (CPU form)",
                    gpu ? "one block of 256 threads puts" : "the host API (shmem_putmem_signal, shmem_signal_wait_until) puts",
                    H * l.xb + l.G * 4, npes - 1);
        std::printf("| EP size | empty kernel | exchange floor | dispatch / floor | combine / floor |\n| ---: | ---: | ---: | ---: | ---: |\n");
        char empty[32] = "-";
        if (gpu) std::snprintf(empty, sizeof empty, "%.1f us", worst[kFloorEmpty]);
        std::printf("| %d | %s | %.1f us | %s | %s |\n", npes, empty, fx, times(worst[kDisp]).c_str(), times(worst[kComb]).c_str());
        std::printf("\nwith the receive hook (send-only call, then the hook):\n");
        std::printf("| EP size | dispatch send | dispatch hook | combine send | combine hook |\n| ---: | ---: | ---: | ---: | ---: |\n");
        std::printf("| %d | %.1f us | %.1f us | %.1f us | %.1f us |\n", npes, worst[kDispSend], worst[kDispRecv],
                    worst[kCombSend], worst[kCombRecv]);
        if (gpu) {
            int sm = 0;
#if defined(__CUDACC__)
            int dev = 0;
            cudaGetDevice(&dev);
            cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, dev);
#endif
            const int recv_blocks = buf->receive_blocks(T);
            std::printf("\nSMs for communication (per PE, of %d): dispatch %d blocks (the last one also receives), combine %d "
                        "(one kernel sends and receives; with send_only %d send, the hook's %d receive); none between a "
                        "send-only call and its hook\nstream: %s\nexpert outputs: %s\n",
                        sm, buf->dispatch_blocks(T), recv_blocks, buf->num_sms(), recv_blocks,
                        o.legacy_stream ? "the legacy default stream" : "a non-blocking stream of its own",
                        o.eo == "device" ? "device memory (the rows are pushed to the token PEs)"
                        : o.eo == "heap" ? "a symmetric block of their own (token PEs that map this PE read them in place; "
                                           "combine waits for their reads)"
                                         : "the buffer's combine_buffer (token PEs that map this PE read them in place; "
                                           "rewritten only after the next dispatch, so combine does not wait for the reads)");
        } else {
            std::printf("\nCPU form: the calling thread of each PE does the work (no GPU)\n");
        }
        print_counts(g.data() + kN + 1, kStride, npes);
        std::printf("RESULT ep dispatch_us %.2f\nRESULT ep combine_us %.2f\n", worst[kDisp], worst[kComb]);
        if (gpu)  // (the CPU form has no kernel)
            std::printf("RESULT ep dispatch_kernel_us %.2f\nRESULT ep combine_kernel_us %.2f\nRESULT ep floor_empty_us %.2f\n"
                        "RESULT ep dispatch_host_us %.2f\nRESULT ep combine_host_us %.2f\nRESULT ep dispatch_ahead_us %.2f\n"
                        "RESULT ep combine_ahead_us %.2f\n",
                        worst[kDispKernel], worst[kCombKernel], worst[kFloorEmpty], worst[kDispHost], worst[kCombHost],
                        worst[kDispAhead], worst[kCombAhead]);
        std::printf("RESULT ep floor_exchange_us %.2f\n", fx);
        if (!spread.empty())
            std::printf("RESULT ep dispatch_start_spread_us %.2f\nRESULT ep dispatch_from_last_start_us %.2f\n"
                        "RESULT ep combine_start_spread_us %.2f\nRESULT ep combine_from_last_start_us %.2f\n"
                        "RESULT ep dispatch_barrier_spread_us %.2f\nRESULT ep combine_barrier_spread_us %.2f\n"
                        "RESULT ep dispatch_after_barrier_us %.2f\nRESULT ep combine_after_barrier_us %.2f\n",
                        spread[0], spread[2], spread[1], spread[3], spread[4], spread[5], spread[6], spread[7]);
        std::printf("PASS 04_moe_ep on %d PEs\n", npes);
        std::fflush(stdout);  // before the barrier: a PE failing after it ends the job at once
    }
    shmem_barrier_all();
    shmem_free(stamps_all);
    shmem_free(all);
#if defined(__CUDACC__)
    if (gpu && o.eo == "heap") shmem_free(eo_d);
    else if (gpu && o.eo == "device") cudaFree(eo_d);
    if (bend) cudaFree(bend);
#endif
    buf.reset();
    shmem_finalize();
    return 0;
}
