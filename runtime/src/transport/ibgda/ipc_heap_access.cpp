// See ipc_heap_access.h.
#include "ipc_heap_access.h"

#include <cuda_runtime_api.h>

#include <cstring>

#include "kishmem/device/state.h"

namespace kishmem::ibgda {

std::string cuda_error_text(const char* what, int err) {
    cudaGetLastError();
    return std::string(what) + ": " + cudaGetErrorString(static_cast<cudaError_t>(err));
}

namespace {

// The library's threads (the software NIC's, the CPU proxy's, the active-message service's) make
// CUDA calls at any time, also while the application captures a graph. A capture begun in the
// global mode (the default of cudaStreamBeginCapture and of frameworks) refuses "unsafe" calls
// of every other thread and is invalidated by them, unless that thread's capture mode is relaxed.
// The scope gives the calling thread's mode back (it may be the application's).
class RelaxedCapture {
public:
    RelaxedCapture() : swapped_(cudaThreadExchangeStreamCaptureMode(&mode_) == cudaSuccess) {
        if (!swapped_) cudaGetLastError();
    }
    ~RelaxedCapture() {
        if (swapped_) cudaThreadExchangeStreamCaptureMode(&mode_);
    }

private:
    cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
    bool swapped_;
};

// The target PEs' GPU heaps through the CUDA IPC mappings, from the NIC's thread.
class IpcHeapAccess final : public HeapAccess {
public:
    // bases[pe]: pe's GPU heap as mapped here (nullptr: not mapped); self: this PE's own heap
    // of heap_bytes (where data segments point).
    IpcHeapAccess(std::vector<char*> bases, char* self, std::size_t heap_bytes, int device)
        : bases_(std::move(bases)), self_(self), heap_bytes_(heap_bytes), device_(device) {}
    ~IpcHeapAccess() override {
        if (stream_) cudaStreamDestroy(stream_);
        if (old_) cudaFreeHost(old_);
        if (stage_) cudaFreeHost(stage_);
    }

    Status open(std::string* why) {
        cudaError_t e = cudaSetDevice(device_);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaMallocHost(reinterpret_cast<void**>(&old_), sizeof *old_);
        if (e == cudaSuccess) e = cudaMallocHost(reinterpret_cast<void**>(&stage_), kStageBytes);
        if (e != cudaSuccess) return *why = cuda_error_text("executor stream and pinned buffers", static_cast<int>(e)), Status::unsupported;
        return Status::ok;
    }

    // Each operation in the relaxed capture mode (RelaxedCapture): init's warm-up runs on the
    // application's thread, the rest on the library's.
    //
    // Bytes move by the copy engines only (host<->device DMA), never by a device-to-device copy,
    // which the driver may run on the SMs: kernels spinning in shmem_quiet until this executor
    // completes their work may hold every SM this process can use, as a real NIC's DMA never
    // needs them (03_moe_dispatch_combine at 4 PEs on one GPU deadlocked so). A device source or
    // destination therefore goes through pinned staging, in stages of kStageBytes.
    Status write(int pe, std::size_t off, const void* src, std::size_t n) override {
        const RelaxedCapture relaxed;
        char* t = target(pe);
        if (!t) return Status::unreachable;
        const bool dev = device_memory(src);
        if (!dev && n > kStageBytes) {  // large host bytes: straight from the caller's buffer
            pending_ = true;
            return check(cudaMemcpyAsync(t + off, src, n, cudaMemcpyHostToDevice, stream_), "write");
        }
        const char* from = static_cast<const char*>(src);
        for (std::size_t done = 0; done < n;) {
            const std::size_t c = n - done < kStageBytes ? n - done : kStageBytes;
            char* staged = nullptr;
            Status s = stage(c, &staged);
            // host bytes (an inline WQE's or descriptor's, in the executor's own copy that is
            // reused for the next one) are copied now; device bytes by DMA, ordered on stream_
            if (s == Status::ok && !dev) std::memcpy(staged, from + done, c);
            if (s == Status::ok && dev) s = check(cudaMemcpyAsync(staged, from + done, c, cudaMemcpyDeviceToHost, stream_), "write");
            if (s == Status::ok) s = check(cudaMemcpyAsync(t + off + done, staged, c, cudaMemcpyHostToDevice, stream_), "write");
            if (s != Status::ok) return s;
            done += c;
        }
        return Status::ok;
    }
    Status read(int pe, std::size_t off, void* dst, std::size_t n) override {
        const RelaxedCapture relaxed;
        char* t = target(pe);
        if (!t) return Status::unreachable;
        pending_ = true;
        if (!device_memory(dst)) {
            Status s = check(cudaMemcpyAsync(dst, t + off, n, cudaMemcpyDeviceToHost, stream_), "read");
            return s == Status::ok ? flush() : s;
        }
        char* to = static_cast<char*>(dst);
        for (std::size_t done = 0; done < n;) {
            const std::size_t c = n - done < kStageBytes ? n - done : kStageBytes;
            char* staged = nullptr;
            Status s = stage(c, &staged);
            if (s == Status::ok) s = check(cudaMemcpyAsync(staged, t + off + done, c, cudaMemcpyDeviceToHost, stream_), "read");
            if (s == Status::ok) s = check(cudaMemcpyAsync(to + done, staged, c, cudaMemcpyHostToDevice, stream_), "read");
            if (s != Status::ok) return s;
            done += c;
        }
        return flush();
    }
    Status fetch_add(int pe, std::size_t off, uint64_t add, uint64_t* old) override {
        return atomic(pe, off, false, add, 0, old);
    }
    Status compare_swap(int pe, std::size_t off, uint64_t compare, uint64_t swap, uint64_t* old) override {
        return atomic(pe, off, true, swap, compare, old);
    }
    Status flush() override {
        if (!pending_) return Status::ok;
        const RelaxedCapture relaxed;
        pending_ = false;
        stage_used_ = 0;
        return check(cudaStreamSynchronize(stream_), "flush");
    }

    // One atomic on this PE's own heap (adding 0 to a reserved word): loads the atomic kernel
    // now, not while a posting kernel runs, and proves the path.
    Status warm_up(std::size_t off) {
        uint64_t old = 0;
        return atomic(-1, off, false, 0, 0, &old);
    }

private:
    // c bytes (at most kStageBytes) of pinned staging, untouched until the flush that completes
    // the copies through them (a full stage is flushed first).
    Status stage(std::size_t c, char** at) {
        if (stage_used_ + c > kStageBytes) {
            Status f = flush();
            if (f != Status::ok) return f;
        }
        *at = stage_ + stage_used_;
        stage_used_ += c;
        pending_ = true;
        return Status::ok;
    }
    // Whether src is GPU memory (this PE's heap, a cudaMalloc'd buffer, a peer mapping).
    bool device_memory(const void* src) const {
        const char* sp = static_cast<const char*>(src);
        if (sp >= self_ && sp < self_ + heap_bytes_) return true;
        cudaPointerAttributes a{};
        if (cudaPointerGetAttributes(&a, src) != cudaSuccess) {
            cudaGetLastError();
            return false;
        }
        return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
    }
    char* target(int pe) {
        bind_thread();
        if (pe == -1) return self_;
        return pe >= 0 && static_cast<std::size_t>(pe) < bases_.size() ? bases_[pe] : nullptr;
    }
    // The NIC's thread starts with no current device; its stream belongs to device_.
    void bind_thread() {
        thread_local int bound = -1;
        if (bound != device_) {
            cudaSetDevice(device_);
            bound = device_;
        }
    }
    Status atomic(int pe, std::size_t off, bool cas, uint64_t operand, uint64_t compare, uint64_t* old) {
        const RelaxedCapture relaxed;
        char* t = target(pe);
        if (!t) return Status::unreachable;
        pending_ = true;
        Status s = check(static_cast<cudaError_t>(launch_nic_atomic(stream_, t + off, cas, operand, compare, old_)),
                         "atomic");
        if (s == Status::ok) s = flush();
        if (s == Status::ok) *old = *old_;
        return s;
    }
    Status check(cudaError_t e, const char* what) {
        if (e == cudaSuccess) return Status::ok;
        debug("IPC heap access (software NIC or CPU proxy): %s on a GPU heap failed: %s", what, cudaGetErrorString(e));
        cudaGetLastError();
        return Status::transport_error;
    }

    static constexpr std::size_t kStageBytes = 256 * 1024;
    std::vector<char*> bases_;
    char* self_;
    std::size_t heap_bytes_;
    int device_;
    cudaStream_t stream_ = nullptr;
    unsigned long long* old_ = nullptr;  // host-pinned: the atomic kernel's old value
    char* stage_ = nullptr;              // host-pinned: bytes on their way (stage())
    std::size_t stage_used_ = 0;
    bool pending_ = false;
};

}  // namespace

LocalCopy make_cuda_copy(int device, std::string* why) {
    cudaError_t e = cudaSetDevice(device);
    cudaStream_t stream = nullptr;
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) return *why = cuda_error_text("a copy stream", static_cast<int>(e)), LocalCopy();
    std::shared_ptr<CUstream_st> owned(stream, [](cudaStream_t st) { cudaStreamDestroy(st); });
    return [owned, device](void* dst, const void* src, std::size_t n) {
        thread_local int bound = -1;
        if (bound != device) cudaSetDevice(bound = device);
        const RelaxedCapture relaxed;  // the application's thread too, while it captures
        cudaError_t e = cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, owned.get());
        if (e == cudaSuccess) e = cudaStreamSynchronize(owned.get());
        if (e == cudaSuccess) return Status::ok;
        debug("copy between a GPU heap and a host buffer failed: %s", cudaGetErrorString(e));
        cudaGetLastError();
        return Status::transport_error;
    };
}

Status make_ipc_heap_access(std::vector<char*> bases, char* self, std::size_t heap_bytes, int device,
                            std::unique_ptr<HeapAccess>* out, std::string* why) {
    auto h = std::make_unique<IpcHeapAccess>(std::move(bases), self, heap_bytes, device);
    Status s = h->open(why);
    if (s == Status::ok && (s = h->warm_up(device::kDevReserved - 8)) != Status::ok)
        *why = "an atomic on this PE's own GPU heap failed";
    if (s == Status::ok) *out = std::move(h);
    return s;
}

}  // namespace kishmem::ibgda
