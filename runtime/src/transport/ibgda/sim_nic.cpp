// Software NIC: queue memory, QP/CQ creation, registration, the progress thread.
// WQE execution and completions are in sim_exec.cpp.
#include "sim_nic.h"


#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(KISHMEM_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include <mutex>
#include <unordered_set>
#endif

#include "kishmem/device/ibgda/mlx5_cqe.h"
#include "kishmem/device/ibgda/mlx5_defs.h"

namespace kishmem::ibgda {

namespace {
constexpr uint32_t kQpnBase = 0x100;  // small QP numbers are special on hardware (QP0/QP1)
constexpr uint32_t kCqnBase = 0x40;
constexpr std::size_t kPage = 4096;
}  // namespace

#if defined(KISHMEM_HAVE_CUDA)
namespace {

bool gpu_present() {
    static const bool yes = [] {
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess) {
            cudaGetLastError();  // clear it: a machine without a GPU is not an error here
            return false;
        }
        return n > 0;
    }();
    return yes;
}

// Blocks that came from cudaHostAlloc (freed with cudaFreeHost) and page-aligned blocks
// registered with cudaHostRegister (unregistered, then freed); never destroyed, so a NIC freed
// from a static destructor still finds them.
std::mutex& pinned_mu() {
    static std::mutex* m = new std::mutex;
    return *m;
}
std::unordered_set<void*>& pinned() {
    static auto* s = new std::unordered_set<void*>;
    return *s;
}
std::unordered_set<void*>& registered() {
    static auto* s = new std::unordered_set<void*>;
    return *s;
}

// Page-aligned host memory registered with CUDA, mapped at the same address: what cudaHostAlloc
// is asked for, when it hands out a block that is not page-aligned (seen under MPS on an H200:
// pinned blocks at offset 0x200 of a page).
void* register_pinned(std::size_t bytes) {
    void* p = nullptr;
    if (posix_memalign(&p, kPage, bytes) != 0) return nullptr;
    cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable);
    void* d = nullptr;
    if (e == cudaSuccess) e = cudaHostGetDevicePointer(&d, p, 0);
    if (e != cudaSuccess || d != p) {
        cudaGetLastError();
        debug("software NIC: registered queue memory unusable (%s): queues in plain host memory",
              e != cudaSuccess ? cudaGetErrorString(e) : "device address differs");
        if (e == cudaSuccess) cudaHostUnregister(p);
        std::free(p);
        return nullptr;
    }
    std::lock_guard<std::mutex> lk(pinned_mu());
    registered().insert(p);
    return p;
}

// Host-pinned, mapped into every GPU's address space (portable), at the same address on
// the GPU as on the host (unified addressing), page-aligned: kernels post into it directly.
// nullptr when any of that does not hold; the caller then falls back to plain host memory.
void* alloc_pinned(std::size_t bytes) {
    if (!gpu_present()) return nullptr;
    void* p = nullptr;
    cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable);
    if (e != cudaSuccess) {
        cudaGetLastError();
        debug("software NIC: cudaHostAlloc(%zu) failed (%s): queues in plain host memory", bytes,
              cudaGetErrorString(e));
        return nullptr;
    }
    void* d = nullptr;
    e = cudaHostGetDevicePointer(&d, p, 0);
    if (e != cudaSuccess || d != p || reinterpret_cast<uintptr_t>(p) % kPage != 0) {
        cudaGetLastError();
        debug("software NIC: cudaHostAlloc block unusable (%s, device %p, host %p): registering page-aligned memory",
              e != cudaSuccess ? cudaGetErrorString(e) : "address differs or not page-aligned", d, p);
        cudaFreeHost(p);
        return register_pinned(bytes);
    }
    std::lock_guard<std::mutex> lk(pinned_mu());
    pinned().insert(p);
    return p;
}

bool free_pinned(void* p) {
    bool host_alloc = false;
    {
        std::lock_guard<std::mutex> lk(pinned_mu());
        if (pinned().erase(p) != 0) host_alloc = true;
        else if (registered().erase(p) == 0) return false;
    }
    if (host_alloc) {
        cudaFreeHost(p);
    } else {
        cudaHostUnregister(p);
        std::free(p);
    }
    return true;
}

}  // namespace
#endif

bool queue_memory_gpu_mapped(const void* p) {
#if defined(KISHMEM_HAVE_CUDA)
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeHost && a.devicePointer == p;
#else
    (void)p;
    return false;
#endif
}

// With a GPU: pinned host memory mapped into the GPU (kernels write WQEs and doorbells into
// it, read CQEs from it). Without one, or if that fails: page-aligned heap memory.
Status alloc_queue_memory(std::size_t bytes, QueueMemory* out) {
    const std::size_t rounded = (bytes + kPage - 1) / kPage * kPage;
    if (rounded == 0) return Status::no_memory;
    void* p = nullptr;
#if defined(KISHMEM_HAVE_CUDA)
    p = alloc_pinned(rounded);
#endif
    if (p == nullptr && posix_memalign(&p, kPage, rounded) != 0) return Status::no_memory;
    std::memset(p, 0, rounded);
    out->ptr = p;
    out->bytes = rounded;
    return Status::ok;
}

void free_queue_memory(QueueMemory* m) {
#if defined(KISHMEM_HAVE_CUDA)
    if (m->ptr == nullptr || !free_pinned(m->ptr)) std::free(m->ptr);
#else
    std::free(m->ptr);
#endif
    m->ptr = nullptr;
    m->bytes = 0;
}

SimNic::SimNic(HeapAccess* heap, SimNicOptions opt)
    : heap_(heap), opt_(opt), complete_without_data_(opt.complete_without_data) {
    if (opt_.max_wqes_per_pass == 0) opt_.max_wqes_per_pass = 1;
    if (opt_.max_sleep_us == 0) opt_.max_sleep_us = 1;
}

SimNic::~SimNic() {
    stop();
    for (auto& q : qps_) {
        free_queue_memory(&q->mem);
        free_queue_memory(&q->uar);
    }
    for (auto& c : cqs_) free_queue_memory(&c->mem);
}

Status SimNic::register_memory(const void* addr, std::size_t bytes, MemoryKey* out) {
    const uint64_t a = reinterpret_cast<uintptr_t>(addr);
    if (bytes == 0 || a + bytes < a) return Status::invalid;
    std::lock_guard<std::mutex> lk(mu_);
    // mkey layout: index << 8 | an 8-bit variant, so a stale or forged key rarely matches.
    const uint32_t index = static_cast<uint32_t>(regions_.size()) + 1;
    if (index >= (1u << 24)) return Status::no_memory;
    const uint32_t variant = static_cast<uint32_t>((a >> 12) ^ (a >> 20) ^ index * 0x9d) & 0xff;
    const Region r{index << 8 | variant, a, bytes};
    regions_.push_back(r);
    *out = MemoryKey{r.key, r.addr, r.bytes};
    return Status::ok;
}

const SimNic::Region* SimNic::find_region(uint32_t key) const {
    const uint32_t index = key >> 8;
    if (index == 0 || index > regions_.size()) return nullptr;
    const Region& r = regions_[index - 1];
    return r.key == key ? &r : nullptr;
}

Status SimNic::create_cq(uint32_t log_size, uint32_t* cqn) {
    if (log_size < 1 || log_size > kMaxLogCqSize) return Status::invalid;
    auto c = std::make_unique<Cq>();
    c->log_size = log_size;
    const std::size_t cqe_bytes = std::size_t{64} << log_size;
    Status s = alloc_queue_memory(cqe_bytes + kDbrBytes, &c->mem);
    if (s != Status::ok) return s;
    mlx5::init_cq(c->mem.ptr, log_size);
    std::lock_guard<std::mutex> lk(mu_);
    c->cqn = kCqnBase + static_cast<uint32_t>(cqs_.size());
    *cqn = c->cqn;
    cqs_.push_back(std::move(c));
    return Status::ok;
}

Status SimNic::create_qp(uint32_t cqn, uint32_t log_bbs, const RemoteHeap& target, uint32_t* qpn) {
    if (log_bbs < 1 || log_bbs > kMaxLogSqBbs || target.pe < 0) return Status::invalid;
    auto q = std::make_unique<Qp>();
    q->log_bbs = log_bbs;
    q->target = target;
    Status s = alloc_queue_memory((std::size_t{mlx5::kSendWqeBB} << log_bbs) + kDbrBytes, &q->mem);
    if (s == Status::ok) s = alloc_queue_memory(kUarPageBytes, &q->uar);
    if (s != Status::ok) {
        free_queue_memory(&q->mem);
        return s;
    }
    std::lock_guard<std::mutex> lk(mu_);
    Cq* c = cq_locked(cqn);
    if (!c || qps_.size() >= (1u << 23)) {
        free_queue_memory(&q->mem);
        free_queue_memory(&q->uar);
        return Status::invalid;
    }
    q->cq = c;
    q->qpn = kQpnBase + static_cast<uint32_t>(qps_.size());
    *qpn = q->qpn;
    qps_.push_back(std::move(q));
    return Status::ok;
}

SimNic::Qp* SimNic::qp_locked(uint32_t qpn) const {
    if (qpn < kQpnBase || qpn - kQpnBase >= qps_.size()) return nullptr;
    return qps_[qpn - kQpnBase].get();
}

SimNic::Cq* SimNic::cq_locked(uint32_t cqn) const {
    if (cqn < kCqnBase || cqn - kCqnBase >= cqs_.size()) return nullptr;
    return cqs_[cqn - kCqnBase].get();
}

SimQpView SimNic::qp_view(uint32_t qpn) const {
    std::lock_guard<std::mutex> lk(mu_);
    SimQpView v;
    const Qp* q = qp_locked(qpn);
    if (!q) return v;
    uint8_t* base = static_cast<uint8_t*>(q->mem.ptr);
    v.sq = base;
    v.log_bbs = q->log_bbs;
    v.qpn = q->qpn;
    v.dbrec = reinterpret_cast<volatile uint32_t*>(base + (std::size_t{mlx5::kSendWqeBB} << q->log_bbs));
    v.doorbell = reinterpret_cast<volatile uint64_t*>(static_cast<uint8_t*>(q->uar.ptr) + kUarDoorbellOffset);
    v.cqn = q->cq->cqn;
    return v;
}

SimCqView SimNic::cq_view(uint32_t cqn) const {
    std::lock_guard<std::mutex> lk(mu_);
    SimCqView v;
    const Cq* c = cq_locked(cqn);
    if (!c) return v;
    v.buf = static_cast<uint8_t*>(c->mem.ptr);
    v.log_size = c->log_size;
    v.cqn = c->cqn;
    v.dbrec = reinterpret_cast<volatile uint32_t*>(v.buf + (std::size_t{64} << c->log_size));
    return v;
}

QpState SimNic::qp_state(uint32_t qpn) const {
    std::lock_guard<std::mutex> lk(mu_);
    const Qp* q = qp_locked(qpn);
    return q ? q->state : QpState::error;
}

std::string SimNic::qp_error(uint32_t qpn) const {
    std::lock_guard<std::mutex> lk(mu_);
    const Qp* q = qp_locked(qpn);
    return q ? q->error : "no such QP";
}

Status SimNic::reset_qp(uint32_t qpn) {
    std::lock_guard<std::mutex> lk(mu_);
    Qp* q = qp_locked(qpn);
    if (!q) return Status::invalid;
    q->state = QpState::rts;
    q->error.clear();
    q->ci = 0;
    auto* dbrec = reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(q->mem.ptr) +
                                              (std::size_t{mlx5::kSendWqeBB} << q->log_bbs));
    __atomic_store_n(&dbrec[mlx5::kSndDbr], 0u, __ATOMIC_RELEASE);
    return Status::ok;
}

std::size_t SimNic::poll() {
    std::lock_guard<std::mutex> lk(mu_);
    return poll_locked();
}

std::size_t SimNic::poll_locked() {
    std::size_t work = 0;
    for (auto& q : qps_) work += service(*q);
    return work;
}

bool SimNic::first_failure(NicFailure* out) const {
    if (!failed_.load(std::memory_order_acquire)) return false;
    std::lock_guard<std::mutex> lk(mu_);
    *out = failure_;
    return true;
}

Status parse_nic_fault(const std::string& spec, NicFault* out, std::string* why) {
    *out = NicFault{};
    if (spec.empty()) return Status::ok;
    static const struct {
        const char* name;
        NicFaultKind kind;
    } kinds[] = {{"remote_access", NicFaultKind::remote_access},
                 {"retry_exceeded", NicFaultKind::retry_exceeded},
                 {"malformed", NicFaultKind::malformed}};
    const std::size_t c1 = spec.find(':');
    const std::string kind = spec.substr(0, c1);
    NicFault f;
    for (const auto& k : kinds)
        if (kind == k.name) f.kind = k.kind;
    auto number = [](const std::string& t, uint64_t* v) {
        if (t.empty() || t.size() > 18 || t.find_first_not_of("0123456789") != std::string::npos) return false;
        *v = std::stoull(t);
        return true;
    };
    bool ok = f.kind != NicFaultKind::none && c1 != std::string::npos;
    if (ok) {
        const std::size_t c2 = spec.find(':', c1 + 1);
        uint64_t pe = 0;
        ok = number(spec.substr(c1 + 1, c2 == std::string::npos ? std::string::npos : c2 - c1 - 1), &f.nth) &&
             f.nth != 0;
        if (ok && c2 != std::string::npos) {
            ok = number(spec.substr(c2 + 1), &pe) && pe < (1u << 24);
            f.pe = static_cast<int>(pe);
        }
    }
    if (!ok) {
        *why = "'" + spec + "': expected <kind>:<nth>[:<pe>], kind remote_access, retry_exceeded or malformed, nth >= 1";
        return Status::invalid;
    }
    *out = f;
    return Status::ok;
}

std::string describe(const NicFailure& f) {
    char buf[512], where[128] = "no remote address (the WQE could not be read)";
    if (f.raddr != 0)
        std::snprintf(where, sizeof where, "remote address 0x%llx (heap offset 0x%llx%s)",
                      static_cast<unsigned long long>(f.raddr), static_cast<unsigned long long>(f.heap_offset),
                      f.in_heap ? "" : ", outside the heap");
    std::snprintf(buf, sizeof buf, "%s of %llu bytes to PE %d on QP 0x%x (WQE %u): %s (syndrome 0x%02x), %s",
                  mlx5::wqe_opcode_name(f.wqe_opcode), static_cast<unsigned long long>(f.length), f.pe, f.qpn,
                  f.wqe_counter, mlx5::syndrome_name(f.syndrome), f.syndrome, where);
    return std::string(buf) + (f.why.empty() ? "" : ": " + f.why);
}

SimNicStats SimNic::stats() const {
    SimNicStats s;
    s.wqes = n_.wqes.load(std::memory_order_relaxed);
    s.cqes = n_.cqes.load(std::memory_order_relaxed);
    s.errors = n_.errors.load(std::memory_order_relaxed);
    s.flushed = n_.flushed.load(std::memory_order_relaxed);
    s.bytes = n_.bytes.load(std::memory_order_relaxed);
    s.doorbells = n_.doorbells.load(std::memory_order_relaxed);
    s.cq_full_stalls = n_.cq_full_stalls.load(std::memory_order_relaxed);
    s.sleeps = thread_.sleeps();
    return s;
}

// ---- progress thread ---------------------------------------------------------------------------

void SimNic::start() { thread_.start([this] { return poll(); }, opt_.idle_spin_us, opt_.max_sleep_us); }

void SimNic::stop() { thread_.stop(); }

void SimNic::kick() { thread_.kick(); }

}  // namespace kishmem::ibgda
