// The GPU form: launches of the kernels of gpu_kernels.cuh on the caller's stream. Nothing here
// synchronizes, allocates or reads device memory during dispatch/combine (graph capturable);
// only create (init) and check synchronize.
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_kernels.cuh"

// The kernels' argument block for a call of kind `call` on stream s (GpuPath, a friend of
// Buffer, builds it).
#define KISHMEM_EP_ARGS(b, s, call) \
    (gpu::Args{(b).layout_, (b).base_, static_cast<ErrorRecord*>((b).err_), GpuPath::clock_slot(b, s, Buffer::call)})

namespace kishmem::ep {
namespace {

// Buffer::received_bf16: block (x, e) takes rows x, x + gridDim.x, ... of local expert e below its
// count; a thread 8 values at a time (8 FP8 bytes or 16 bf16 bytes in, 16 bytes out).
__global__ void received_bf16_kernel(const uint8_t* x, const float* scales, const int* count, uint4* out, int R, int H,
                                     int fp8) {
    const int le = blockIdx.y;
    const int n = min(count[le], R);
    const int chunks = H / 8;
    for (int i = blockIdx.x; i < n; i += gridDim.x) {
        const size_t slot = static_cast<size_t>(le) * R + i;
        uint4* o = out + slot * chunks;
        if (!fp8) {
            const auto* in = reinterpret_cast<const uint4*>(x + slot * H * 2);
            for (int c = threadIdx.x; c < chunks; c += blockDim.x) o[c] = in[c];
            continue;
        }
        const auto* q = reinterpret_cast<const uint2*>(x + slot * H);
        const float* sc = scales + slot * (H / kScaleGroup);
        for (int c = threadIdx.x; c < chunks; c += blockDim.x) {
            const uint2 v = q[c];
            const float s = sc[c / (kScaleGroup / 8)];
            uint32_t w[4];
            for (int j = 0; j < 4; ++j) {  // bytes 2j and 2j + 1 (little-endian) into word j
                const uint32_t b = (j < 2 ? v.x : v.y) >> ((j & 1) * 16);
                w[j] = fp8_to_bf16(b & 0xff, s) | static_cast<uint32_t>(fp8_to_bf16((b >> 8) & 0xff, s)) << 16;
            }
            o[c] = make_uint4(w[0], w[1], w[2], w[3]);
        }
    }
}

// Loaded at init, not at a first launch behind a kernel that waits (kishmem/device/state.h).
const kishmem::device::PreloadKernels<gpu::dispatch_send<int64_t>, gpu::dispatch_send<int32_t>, gpu::dispatch_recv,
                                      gpu::combine_send, gpu::combine_recv, gpu::combine_all, received_bf16_kernel>
    g_preload;

int launched(Buffer& b, const char* call) {
    const cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) return kOk;
    char m[256];
    std::snprintf(m, sizeof m, "kishmem::ep::%s: PE %d: kernel launch failed: %s", call, shmem_my_pe(), cudaGetErrorString(e));
    std::fprintf(stderr, "kishmem: %s\n", m);
    (void)b;
    return kBadArgument;
}

}  // namespace

bool GpuPath::is_device_memory(const void* p) {
    static const int devices = [] {  // asked once per process, not at every check
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess) {
            cudaGetLastError();
            n = 0;
        }
        return n;
    }();
    if (!p || devices == 0) return false;
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

bool GpuPath::capturing(cudaStream_t s) {
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(s, &st) != cudaSuccess) cudaGetLastError();
    return st != cudaStreamCaptureStatusNone;
}

long long GpuPath::device_id() {
    int d = 0;
    cudaDeviceProp prop{};
    if (cudaGetDevice(&d) != cudaSuccess || cudaGetDeviceProperties(&prop, d) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    uint64_t h = 1469598103934665603ull;  // FNV-1a over the UUID (the same physical GPU in every process)
    for (unsigned char c : prop.uuid.bytes) h = (h ^ c) * 1099511628211ull;
    return static_cast<long long>(h >> 1) + 1;  // positive, never 0
}

int GpuPath::init(Buffer& b) {
    ErrorRecord* host = nullptr;
    if (cudaHostAlloc(&host, sizeof(ErrorRecord), cudaHostAllocMapped) != cudaSuccess) return kNoGpu;
    std::memset(host, 0, sizeof *host);
    void* dev = nullptr;
    if (cudaHostGetDevicePointer(&dev, host, 0) != cudaSuccess) {
        cudaFreeHost(host);
        return kNoGpu;
    }
    b.err_ = dev;
    b.err_host_ = host;
    // Zeroed: kernel_times reads every call's stamps, also of calls not yet timed.
    const size_t clock_bytes = 2 * Buffer::kClockCalls * sizeof *b.clock_dev_;
    if (cudaMalloc(&b.clock_dev_, clock_bytes) != cudaSuccess || cudaMemset(b.clock_dev_, 0, clock_bytes) != cudaSuccess) {
        if (b.clock_dev_) cudaFree(b.clock_dev_);
        b.clock_dev_ = nullptr;
        fini(b);
        return kNoGpu;
    }
    // Kernels of several PEs share one GPU and some of them spin: every kernel here prefers the
    // same (largest) shared-memory split, so that one PE's waiting blocks never leave an SM in a
    // configuration another PE's blocks cannot join.
    int d = 0, sms = 0;
    if (cudaGetDevice(&d) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d) != cudaSuccess)
        sms = 0;
    // the PEs on this GPU: the team's (create counted them by device_id) or the job's
    // (shmemx_gpu_pes), whichever is more; hosts that share one GPU between PEs of different
    // host groups (simulated hosts) count too
    const int sharers = b.gpu_sharers_ > shmemx_gpu_pes() ? b.gpu_sharers_ : shmemx_gpu_pes();
    sms /= sharers > 1 ? sharers : 1;
    // No kernel of this buffer has more blocks than that share (num_sms bounds them all), a
    // send-only combine's included (two simulated hosts of 2 PEs on one GPU: send-only combines of
    // 128 blocks a PE stalled in their blocking puts over the NIC and the proxy; of 32 they did not)
    if (sms > 0 && b.sms_ > sms) b.sms_ = sms;
    const void* fns[] = {reinterpret_cast<const void*>(gpu::dispatch_send<int32_t>),
                         reinterpret_cast<const void*>(gpu::dispatch_send<int64_t>),
                         reinterpret_cast<const void*>(gpu::dispatch_recv), reinterpret_cast<const void*>(gpu::combine_send),
                         reinterpret_cast<const void*>(gpu::combine_recv), reinterpret_cast<const void*>(gpu::combine_all)};
    for (const void* f : fns) cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared);
    cudaGetLastError();  // (a preference: where it is refused, only the split differs)
    if (zero_device(b.base_, b.layout_.total) != kOk) {
        fini(b);
        return kNoGpu;
    }
    return kOk;
}

#if defined(KISHMEM_EP_PROFILE)
// Each stage's median time after the kernel's earliest block started, over the rounds [lo, hi).
static void prof_report(int lo, int hi, const char* label) {
    static unsigned long long p[gpu::kProfKinds][gpu::kProfRounds][gpu::kProfStages];
    if (cudaMemcpyFromSymbol(p, gpu::g_prof, sizeof p) != cudaSuccess) return;
    const char* kinds[] = {"dispatch", "combine_send", "combine_recv"};
    for (int k = 0; k < gpu::kProfKinds; ++k) {
        std::string line;
        char m[96];
        for (int st = 1; st < gpu::kProfStages; ++st) {
            std::vector<double> d;
            for (int r = lo; r < hi && r < gpu::kProfRounds; ++r)
                if (p[k][r][0] && p[k][r][st]) d.push_back((p[k][r][st] - ~p[k][r][0]) * 1e-3);
            if (d.empty()) continue;
            std::sort(d.begin(), d.end());
            std::snprintf(m, sizeof m, " s%d=%.1f", st, d[d.size() / 2]);
            line += m;
        }
        std::vector<long long> starts;
        for (int r = lo + 10; r < lo + 14 && r < hi; ++r) starts.push_back(static_cast<long long>(~p[k][r][0] % 1000000000ull));
        for (long long v : starts) {
            std::snprintf(m, sizeof m, " t%lld", v);
            line += m;
        }
        std::printf("ep-prof PE %d %s %s:%s\n", shmem_my_pe(), label, kinds[k], line.c_str());
    }
}
#endif

void GpuPath::fini(Buffer& b) {
    cudaDeviceSynchronize();
#if defined(KISHMEM_EP_PROFILE)
    prof_report(4, 53, "plain");
    prof_report(57, 105, "hook");
#endif
    if (b.err_host_) cudaFreeHost(b.err_host_);
    b.err_host_ = b.err_ = nullptr;
    if (b.clock_dev_) cudaFree(b.clock_dev_);
    b.clock_dev_ = nullptr;
}

int GpuPath::copy_to_device(void* dst, const void* src, size_t n) {
    if (cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess) return kOk;
    std::fprintf(stderr, "kishmem: kishmem::ep::Buffer::create: PE %d: copying %zu bytes to the GPU failed: %s\n", shmem_my_pe(),
                 n, cudaGetErrorString(cudaGetLastError()));
    return kNoGpu;
}

int GpuPath::zero_device(void* dst, size_t n) {
    if (cudaMemset(dst, 0, n) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess) return kOk;
    std::fprintf(stderr, "kishmem: kishmem::ep::Buffer::create: PE %d: zeroing the %zu-byte buffer on the GPU failed: %s\n",
                 shmem_my_pe(), n, cudaGetErrorString(cudaGetLastError()));
    return kNoGpu;
}

unsigned long long* GpuPath::clock_slot(Buffer& b, cudaStream_t s, int call) {
    if (!b.clock_on_ || !b.clock_dev_) return nullptr;
    unsigned long long* c = b.clock_dev_ + 2 * call;
    cudaMemsetAsync(c, 0, 2 * sizeof *c, s);  // (a failure shows at the launch's check)
    return c;
}

int GpuPath::read_clock(Buffer& b, unsigned long long* stamps) {
    const size_t n = 2 * Buffer::kClockCalls * sizeof *stamps;
    const cudaError_t e = b.clock_dev_ ? cudaMemcpy(stamps, b.clock_dev_, n, cudaMemcpyDeviceToHost) : cudaErrorInvalidValue;
    if (e == cudaSuccess) return kOk;
    cudaGetLastError();
    return b.fail(kNoGpu, "kernel_times", "copying the kernel clock's %zu bytes from the GPU failed: %s", n,
                  cudaGetErrorString(e));
}

// Blocks of a kernel whose blocks all wait for every PE: up to a block per token, within num_sms
// (which init bounds by this GPU's SMs per PE sharing it: the blocks of all those PEs fit together).
int GpuPath::waiting_blocks(const Buffer& b, int T) { return T < 1 ? 1 : std::min(T, b.sms_); }

// Blocks of combine's receive (combine_all, combine_recv): a waiting kernel's; with fewer tokens
// than that, up to as many blocks a token as its channels need for one item a thread
// (combine_reduce: one round of loads a thread, not two), within the same bound.
int GpuPath::combine_blocks(const Buffer& b, int T) {
    const int cap = b.sms_;
    if (T < 1 || T >= cap) return waiting_blocks(b, T);
    const int items = b.layout_.H / 8;
    return T * std::max(1, std::min(cap / T, (items + gpu::kRecvThreads - 1) / gpu::kRecvThreads));
}

// Send blocks of a dispatch, and the (token, k) entries each takes (*per): a block per token, as
// a waiting kernel's at most (the last one of each PE also receives; on one H200 with 128 blocks
// per PE at 2 and 4 PEs the last block started ~10 us after the first: the dispatch took 23.3 /
// 48.4 us against 18.9 / 35.5 us with 64), yet enough that no block has more than kMaxEntries
// entries. With fewer tokens than that, the blocks take shares of the tokens' rows (a token's K
// rows stored by up to K SMs at once; one block stored and announced all of them before). No
// block without an entry: each one's arrival (a count, an add at every PE) costs the round for
// nothing.
int GpuPath::send_blocks(const Buffer& b, int T, int* per) {
    const int K = std::max(1, b.layout_.K);
    const int cap = b.sms_;
    int g = 1, p = 0;
    if (T >= cap) {  // whole tokens
        const int tokens_max = std::max(1, gpu::kMaxEntries / K);
        g = std::max((T + tokens_max - 1) / tokens_max, cap);
        p = (T + g - 1) / g * K;
    } else if (T > 0) {  // shares of tokens
        p = (T * K + cap - 1) / cap;
        g = (T * K + p - 1) / p;
    }
    if (per) *per = p;
    return g;
}

namespace {

// expert_out's offset from the buffer's block when all of it is symmetric (16-byte aligned):
// token PEs that map this PE then read it in place; else kNoOff (rows are pushed).
long long expert_out_offset(const Layout& l, const char* base, const void* eo) {
    const size_t bytes = static_cast<size_t>(l.L) * l.R * l.H * 2;
    const char* p = static_cast<const char*>(eo);
    const int me = shmem_my_pe();
    if ((reinterpret_cast<uintptr_t>(p) & 15) != 0 || !shmem_addr_accessible(p, me) || !shmem_addr_accessible(p + bytes - 1, me))
        return gpu::kNoOff;
    return p - base;
}

}  // namespace

int GpuPath::dispatch_send(Buffer& b, cudaStream_t s, const void* x, const void* idx, bool idx64, int T, bool poison,
                           bool fuse_recv) {
    const gpu::Args a = KISHMEM_EP_ARGS(b, s, kClockDispatch);
    const auto* xs = static_cast<const uint16_t*>(x);
    const int f = fuse_recv ? 1 : 0;
    const size_t smem = 2 * sizeof(int) * static_cast<size_t>(b.layout_.E);  // per-expert counts and first rows
    int per = 0;
    const int g = send_blocks(b, T, &per);
    if (idx64) gpu::dispatch_send<int64_t><<<g, gpu::kThreads, smem, s>>>(a, xs, static_cast<const int64_t*>(idx), T, per, poison, f);
    else gpu::dispatch_send<int32_t><<<g, gpu::kThreads, smem, s>>>(a, xs, static_cast<const int32_t*>(idx), T, per, poison, f);
    const int rc = launched(b, "dispatch");
    return rc != kOk ? rc : poison ? kBadArgument : kOk;
}

int GpuPath::dispatch_recv(Buffer& b, cudaStream_t s) {
    gpu::dispatch_recv<<<1, 128, 0, s>>>(KISHMEM_EP_ARGS(b, s, kClockDispatchRecv));
    return launched(b, "dispatch_recv");
}

int GpuPath::combine_send(Buffer& b, cudaStream_t s, const void* eo, const float* w, void* out, int T, bool fuse_recv) {
    const auto* e = static_cast<const uint16_t*>(eo);
    const long long off = expert_out_offset(b.layout_, b.base_, eo);
    // Read in place: the call waits for the readers, unless expert_out is the buffer's own
    // (Buffer::combine_buffer: rewritten only after the next dispatch's receive).
    const int wait_reads = off != gpu::kNoOff && eo != b.combine_buffer();
    const gpu::Args a = KISHMEM_EP_ARGS(b, s, kClockCombine);
    if (fuse_recv)
        gpu::combine_all<<<combine_blocks(b, T), gpu::kRecvThreads, 0, s>>>(a, e, off, wait_reads, w,
                                                                                             static_cast<uint16_t*>(out), T);
    else gpu::combine_send<<<b.sms_, gpu::kThreads, 0, s>>>(a, e, off, wait_reads);
    return launched(b, "combine");
}

int GpuPath::combine_recv(Buffer& b, cudaStream_t s, const float* w, void* out, int T) {
    const gpu::Args a = KISHMEM_EP_ARGS(b, s, kClockCombineRecv);
    gpu::combine_recv<<<combine_blocks(b, T), gpu::kRecvThreads, 0, s>>>(a, w, static_cast<uint16_t*>(out), T);
    return launched(b, "combine_recv");
}

int GpuPath::received_bf16(Buffer& b, cudaStream_t s, void* out) {
    const Layout& l = b.layout_;
    const View v{b.base_};
    const bool fp8 = b.cfg_.format == Format::fp8_e4m3;
    received_bf16_kernel<<<dim3(32, l.L), 256, 0, s>>>(v.recv_x(l), fp8 ? v.recv_scales(l) : nullptr, v.recv_count(l),
                                                       static_cast<uint4*>(out), l.R, l.H, fp8 ? 1 : 0);
    return launched(b, "received_bf16");
}

int GpuPath::check(Buffer& b, cudaStream_t s) {
    const cudaError_t ce = cudaStreamSynchronize(s);
    if (ce != cudaSuccess) {
        char m[256];
        std::snprintf(m, sizeof m, "kishmem::ep::check: PE %d: the stream failed: %s", shmem_my_pe(), cudaGetErrorString(ce));
        return b.note_error(kBadArgument, m);
    }
    const auto* e = static_cast<const volatile ErrorRecord*>(b.err_host_);
    if (!e || e->code <= 0) return kOk;
    ErrorRecord copy{};
    copy.code = e->code;
    copy.token = e->token;
    copy.k = e->k;
    copy.from_pe = e->from_pe;
    copy.value = e->value;
    const std::string msg = describe(copy, b.layout_);
    const int status = copy.code == kErrPeerBad || copy.code == kErrPeerBadCombine ? kPeerError : kBadArgument;
    return msg != b.last_error_ ? b.note_error(status, msg) : status;
}

}  // namespace kishmem::ep
#undef KISHMEM_EP_ARGS
