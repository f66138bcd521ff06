// The GPU form: launches of the kernels of gpu_kernels.cuh on the caller's stream. Nothing here
// synchronizes, allocates or reads device memory during dispatch/combine (graph capturable);
// only create (init) and check synchronize.
#include <cstdio>
#include <cstring>

#include "gpu_kernels.cuh"

// The kernels' argument block (GpuPath, a friend of Buffer, builds it).
#define KISHMEM_EP_ARGS(b) (gpu::Args{(b).layout_, (b).base_, static_cast<ErrorRecord*>((b).err_)})

namespace kishmem::ep {
namespace {

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
    int n = 0;
    if (!p || cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        cudaGetLastError();
        return false;
    }
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
    // Kernels of several PEs share one GPU and some of them spin: every kernel here prefers the
    // same (largest) shared-memory split, so that one PE's waiting blocks never leave an SM in a
    // configuration another PE's blocks cannot join.
    int d = 0;
    if (cudaGetDevice(&d) != cudaSuccess || cudaDeviceGetAttribute(&b.dev_sms_, cudaDevAttrMultiProcessorCount, d) != cudaSuccess)
        b.dev_sms_ = 0;
    const void* fns[] = {reinterpret_cast<const void*>(gpu::dispatch_send<int32_t>),
                         reinterpret_cast<const void*>(gpu::dispatch_send<int64_t>),
                         reinterpret_cast<const void*>(gpu::dispatch_recv), reinterpret_cast<const void*>(gpu::combine_send),
                         reinterpret_cast<const void*>(gpu::combine_recv)};
    for (const void* f : fns) cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared);
    cudaGetLastError();
    zero_device(b.base_, b.layout_.total);
    return kOk;
}

void GpuPath::fini(Buffer& b) {
    cudaDeviceSynchronize();
    if (b.err_host_) cudaFreeHost(b.err_host_);
    b.err_host_ = b.err_ = nullptr;
}

void GpuPath::copy_to_device(void* dst, const void* src, size_t n) {
    cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice);
    cudaDeviceSynchronize();
}

void GpuPath::zero_device(void* dst, size_t n) {
    cudaMemset(dst, 0, n);
    cudaDeviceSynchronize();
}

int GpuPath::dispatch_send(Buffer& b, cudaStream_t s, const void* x, const void* idx, bool idx64, int T, bool poison,
                           bool fuse_recv) {
    const gpu::Args a = KISHMEM_EP_ARGS(b);
    const auto* xs = static_cast<const uint16_t*>(x);
    const int f = fuse_recv ? 1 : 0;
    if (idx64) gpu::dispatch_send<int64_t><<<b.sms_, gpu::kThreads, 0, s>>>(a, xs, static_cast<const int64_t*>(idx), T, poison, f);
    else gpu::dispatch_send<int32_t><<<b.sms_, gpu::kThreads, 0, s>>>(a, xs, static_cast<const int32_t*>(idx), T, poison, f);
    const int rc = launched(b, "dispatch");
    return rc != kOk ? rc : poison ? kBadArgument : kOk;
}

int GpuPath::dispatch_recv(Buffer& b, cudaStream_t s) {
    gpu::dispatch_recv<<<1, 128, 0, s>>>(KISHMEM_EP_ARGS(b));
    return launched(b, "dispatch_recv");
}

int GpuPath::combine_send(Buffer& b, cudaStream_t s, const void* eo) {
    gpu::combine_send<<<b.sms_, gpu::kThreads, 0, s>>>(KISHMEM_EP_ARGS(b), static_cast<const uint16_t*>(eo));
    return launched(b, "combine");
}

int GpuPath::combine_recv(Buffer& b, cudaStream_t s, const float* w, void* out, int T) {
    // A thread per 8 channels of a token. Every block waits for the flags, so the blocks of all
    // PEs together stay within one per SM (PEs may share the GPU): the other PEs' senders keep room.
    const long items = static_cast<long>(T) * b.layout_.H / 8, need = (items + gpu::kRecvThreads - 1) / gpu::kRecvThreads;
    long cap = b.sms_;
    if (b.dev_sms_ > 0 && b.dev_sms_ / b.layout_.npes < cap) cap = b.dev_sms_ / b.layout_.npes;
    if (cap < 1) cap = 1;
    const int blocks = static_cast<int>(need < 1 ? 1 : need < cap ? need : cap);
    gpu::combine_recv<<<blocks, gpu::kRecvThreads, 0, s>>>(KISHMEM_EP_ARGS(b), w, static_cast<uint16_t*>(out), T);
    return launched(b, "combine_recv");
}

int GpuPath::check(Buffer& b, cudaStream_t s) {
    const cudaError_t ce = cudaStreamSynchronize(s);
    if (ce != cudaSuccess) {
        char m[256];
        std::snprintf(m, sizeof m, "kishmem::ep::check: PE %d: the stream failed: %s", shmem_my_pe(), cudaGetErrorString(ce));
        b.last_error_ = m;
        std::fprintf(stderr, "kishmem: %s\n", m);
        return kBadArgument;
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
    if (msg != b.last_error_) {
        b.last_error_ = msg;
        std::fprintf(stderr, "kishmem: %s\n", msg.c_str());
        std::fflush(stderr);
    }
    return copy.code == kErrPeerBad ? kPeerError : kBadArgument;
}

}  // namespace kishmem::ep
#undef KISHMEM_EP_ARGS
