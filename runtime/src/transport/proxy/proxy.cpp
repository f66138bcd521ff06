// The CPU proxy's executor (see proxy.h and device/include/kishmem/device/proxy/channel.h).
#include "proxy.h"
#include "kishmem/waiter.h"

#include <cstdio>
#include <cstring>

namespace kishmem::proxy {

namespace {

constexpr std::size_t kCtlBytes = 64;

uint32_t load_acquire(const volatile uint32_t* p) {
    return __atomic_load_n(const_cast<const uint32_t*>(p), __ATOMIC_ACQUIRE);
}

}  // namespace

Proxy::Proxy(ibgda::HeapAccess* heap, int npes, std::size_t heap_bytes, ProxyOptions opt)
    : heap_(heap), npes_(npes), heap_bytes_(heap_bytes), opt_(opt) {
    if (opt_.max_per_pass == 0) opt_.max_per_pass = 1;
}

Proxy::~Proxy() {
    stop();
    for (Chan& c : ch_) ibgda::free_queue_memory(&c.mem);
}

Status Proxy::open(int n, uint32_t log_slots) {
    if (n < 1 || log_slots < 1 || log_slots > 16 || !ch_.empty()) return Status::invalid;
    ch_.resize(n);
    const std::size_t ring = std::size_t{kDescBytes} << log_slots, results = std::size_t{kResultBytes} << log_slots;
    for (Chan& c : ch_) {
        Status s = ibgda::alloc_queue_memory(ring + results + kCtlBytes, &c.mem);
        if (s != Status::ok) return s;
        uint8_t* base = static_cast<uint8_t*>(c.mem.ptr);
        uint32_t* ctl = reinterpret_cast<uint32_t*>(base + ring + results);
        c.view.ring = base;
        c.view.result = base + ring;
        c.view.done = ctl;
        c.view.error = ctl + 1;
        c.view.error_index = ctl + 2;
        c.view.resv = ctl + 4;
        c.view.seen = ctl + 5;
        c.view.consumed = nullptr;  // host posters read each result before they post on
        c.view.log_slots = log_slots;
    }
    return Status::ok;
}

void Proxy::start() { thread_.start([this] { return poll(); }, opt_.idle_spin_us, opt_.max_sleep_us); }

void Proxy::stop() { thread_.stop(); }

std::size_t Proxy::poll() {
    std::lock_guard<std::mutex> lk(mu_);
    return poll_locked();
}

ProxyStats Proxy::stats() const {
    ProxyStats s;
    s.executed = n_.executed.load(std::memory_order_relaxed);
    s.errors = n_.errors.load(std::memory_order_relaxed);
    s.bytes = n_.bytes.load(std::memory_order_relaxed);
    s.flushes = n_.flushes.load(std::memory_order_relaxed);
    return s;
}

// Each channel: execute the descriptors whose seq says they are written, in order, up to
// max_per_pass. Then, once for the pass, make the data visible (flush) and publish each
// advanced channel's done: a completion always follows the delivery of the data.
std::size_t Proxy::poll_locked() {
    std::size_t total = 0;
    for (Chan& c : ch_) {
        const uint32_t start = c.pass_start = c.tail;
        while (c.tail - start < opt_.max_per_pass) {
            const uint64_t* w = reinterpret_cast<const uint64_t*>(desc_slot(c.view, c.tail));
            const uint64_t w0 = __atomic_load_n(w, __ATOMIC_ACQUIRE);
            if (static_cast<uint32_t>(w0) != c.tail + 1) break;
            uint64_t words[8];
            std::memcpy(words, w, sizeof words);
            words[0] = w0;
            Desc d = decode_desc(words);
            std::string why;
            uint32_t err = fail_on_purpose(&d, &why);
            if (err == 0) err = execute(c, c.tail, d, &why);
            c.last = d;
            if (err != 0) {
                n_.errors.fetch_add(1, std::memory_order_relaxed);
                debug("CPU proxy: descriptor %u (%s to PE %u, offset %llu): %s", c.tail, desc_op_name(d.op), d.pe,
                      static_cast<unsigned long long>(d.w[1]), why.c_str());
                if (*c.view.error == 0) {
                    *c.view.error_index = c.tail;
                    note_failure(c, d, why);
                    __atomic_store_n(const_cast<uint32_t*>(c.view.error), 0x100u | err | (d.pe & 0xffffu) << 16,
                                     __ATOMIC_RELEASE);
                }
            }
            ++c.tail;
        }
        total += c.tail - start;
    }
    if (total == 0) return 0;
    // Writes that did not land (a transport that only says so at its flush) fail every channel
    // of this pass that has no error yet, before its completions are published.
    if (flush() != Status::ok) {
        const std::string why = "the pass's writes did not land: " + heap_->last_error();
        for (Chan& c : ch_) {
            if (c.tail == c.pass_start || *c.view.error != 0) continue;
            n_.errors.fetch_add(1, std::memory_order_relaxed);
            *c.view.error_index = c.tail - 1;
            note_failure(c, c.last, why);
            __atomic_store_n(const_cast<uint32_t*>(c.view.error), 0x100u | kErrTransfer | (c.last.pe & 0xffffu) << 16,
                             __ATOMIC_RELEASE);
        }
    }
    // Counters first: whoever sees a completion also sees it counted.
    n_.executed.fetch_add(total, std::memory_order_relaxed);
    n_.bytes.fetch_add(pass_bytes_, std::memory_order_relaxed);
    pass_bytes_ = 0;
    for (Chan& c : ch_)
        if (*c.view.done != c.tail) __atomic_store_n(const_cast<uint32_t*>(c.view.done), c.tail, __ATOMIC_RELEASE);
    return total;
}

Status Proxy::flush() {
    if (!dirty_) return Status::ok;
    n_.flushes.fetch_add(1, std::memory_order_relaxed);
    dirty_ = false;
    return heap_->flush();
}

uint32_t Proxy::check_range(const Desc& d, uint64_t n, std::string* why) const {
    if (d.pe >= static_cast<uint32_t>(npes_)) {
        *why = "PE " + std::to_string(d.pe) + " is out of range (0.." + std::to_string(npes_ - 1) + ")";
        return kErrPe;
    }
    const uint64_t off = d.w[1];
    if (off > heap_bytes_ || n > heap_bytes_ - off) {
        *why = std::to_string(n) + " bytes at offset " + std::to_string(off) + " run past the heap (" +
               std::to_string(heap_bytes_) + " bytes)";
        return kErrRange;
    }
    return 0;
}

// A channel's descriptors take effect in order: a signal, an atomic or a get after writes
// first makes those writes visible (the routes underneath, UCX among them, do not order a
// put and a following operation by themselves).
uint32_t Proxy::execute(Chan& c, uint32_t idx, const Desc& d, std::string* why) {
    const int pe = static_cast<int>(d.pe);
    const uint64_t off = d.w[1];
    Status s = Status::ok;
    if ((d.op == kOpSignal || d.op == kOpAmo || d.op == kOpGet) && flush() != Status::ok) {
        *why = "earlier writes of this channel did not land: " + heap_->last_error();
        return kErrTransfer;
    }
    uint64_t n = 0;
    uint32_t err = 0;
    switch (d.op) {
        case kOpPut:
            n = d.w[3];
            if ((err = check_range(d, n, why)) != 0) return err;
            if (n != 0) s = heap_->write(pe, off, reinterpret_cast<const void*>(d.w[2]), n);
            dirty_ = true;
            break;
        case kOpPutInline:
            n = d.aux;
            if (n == 0 || n > kProxyInlineBytes) {
                *why = "inline length " + std::to_string(n) + " (1.." + std::to_string(kProxyInlineBytes) + ")";
                return kErrOp;
            }
            if ((err = check_range(d, n, why)) != 0) return err;
            s = heap_->write(pe, off, &d.w[2], n);
            dirty_ = true;
            break;
        case kOpGet: {
            n = d.w[3];
            void* dst = d.w[2] != 0 ? reinterpret_cast<void*>(d.w[2]) : result_slot(c.view, idx);
            if (d.w[2] == 0 && n > kResultBytes) {
                *why = "a get of " + std::to_string(n) + " bytes into the result slot (at most 64)";
                return kErrOp;
            }
            if ((err = check_range(d, n, why)) != 0) return err;
            if (n != 0) s = heap_->read(pe, off, dst, n);
            break;
        }
        case kOpAmo: {
            uint64_t old = 0;
            if ((err = amo(d, &old, why)) != 0) return err;
            std::memcpy(result_slot(c.view, idx), &old, sizeof old);
            n = 8;
            break;
        }
        case kOpSignal:
            n = 8;
            if ((err = check_range(d, n, why)) != 0) return err;
            if (off % 8 != 0) {
                *why = "signal at an offset that is not 8-byte aligned";
                return kErrRange;
            }
            if (d.aux == 0) {
                s = heap_->atomic_set(pe, off, d.w[4]);  // a waiter never sees half a signal
            } else {
                uint64_t old;
                s = heap_->fetch_add(pe, off, d.w[4], &old);
            }
            break;
        default:
            *why = "unknown operation " + std::to_string(d.op);
            return kErrOp;
    }
    if (s != Status::ok) {
        *why = std::string("the transfer failed: ") + status_name(s);
        return kErrTransfer;
    }
    pass_bytes_ += n;
    return 0;
}

// The width-byte AMO of d on the target: the NIC-like 64-bit fetch-add and compare-swap where
// they fit, a compare-swap loop on the enclosing 8-byte word otherwise.
uint32_t Proxy::amo(const Desc& d, uint64_t* old, std::string* why) {
    const unsigned code = d.aux & 0x0f;
    const AmoOp op = static_cast<AmoOp>(code);
    const unsigned width = (d.aux & kAmoWide) ? 8 : 4;
    const uint64_t off = d.w[1], v = d.w[4], cmp = d.w[5];
    if (code >= kAmoOpCount || off % width != 0) {
        *why = "atomic code " + std::to_string(code) + " on " + std::to_string(width) + " bytes at offset " +
               std::to_string(off);
        return kErrAmo;
    }
    uint32_t err = check_range(d, width, why);
    if (err != 0) return err;
    const Status s = ibgda::amo_through(*heap_, static_cast<int>(d.pe), off, op, width, v, cmp, old);
    if (s != Status::ok) {
        *why = std::string("the atomic failed: ") + status_name(s);
        return kErrTransfer;
    }
    return 0;
}

uint32_t post_host(const Channel& c, uint8_t op, uint8_t aux, int pe, const DescBody& b) {
    const uint32_t idx = __atomic_fetch_add(c.resv, 1u, __ATOMIC_RELAXED);
    const uint32_t size = 1u << c.log_slots;
    Backoff backoff;  // (the proxy thread drains the ring)
    while (idx + 1 - load_acquire(c.done) > size) backoff.pause();
    uint64_t* w = reinterpret_cast<uint64_t*>(desc_slot(c, idx));
    std::memcpy(w + 1, &b.w[1], 7 * sizeof(uint64_t));
    __atomic_store_n(w, desc_word0(idx + 1, op, aux, static_cast<uint32_t>(pe)), __ATOMIC_RELEASE);
    return idx;
}

uint32_t wait_host(const Channel& c, uint32_t idx) {
    if (static_cast<int32_t>(idx + 1 - load_acquire(c.done)) > 0) {
        // a proxy that stops is named, as a kernel's wait names it
        Waiter w("CPU proxy", "the CPU proxy to complete descriptor %lld (it had completed %lld when this wait began)",
                 idx, load_acquire(c.done));
        while (static_cast<int32_t>(idx + 1 - load_acquire(c.done)) > 0) w.spin();
    }
    return load_acquire(c.error);
}

}  // namespace kishmem::proxy

namespace kishmem::proxy {

void Proxy::note_failure(Chan& c, const Desc& d, const std::string& why) {
    *const_cast<uint32_t*>(error_op(c.view)) = d.op;
    *const_cast<uint64_t*>(error_offset(c.view)) = d.w[1];
    if (failed_.load(std::memory_order_relaxed)) return;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s to PE %u at heap offset 0x%llx (proxy channel %d, descriptor %u)",
                  desc_op_name(d.op), d.pe, static_cast<unsigned long long>(d.w[1]), static_cast<int>(&c - ch_.data()),
                  c.tail);
    failure_ = std::string("the CPU proxy failed a kernel's ") + buf + ": " + why;
    failed_.store(true, std::memory_order_release);
}

uint32_t Proxy::fail_on_purpose(Desc* d, std::string* why) {
    const ibgda::NicFault& f = opt_.fault;
    if (__builtin_expect(f.kind == ibgda::NicFaultKind::none, 1) || ++read_ != f.nth) return 0;
    const char* kind = f.kind == ibgda::NicFaultKind::remote_access   ? "remote_access"
                       : f.kind == ibgda::NicFaultKind::retry_exceeded ? "retry_exceeded"
                                                                        : "malformed";
    char tail[96];
    std::snprintf(tail, sizeof tail, " (descriptor %llu failed on purpose: KISHMEM_SIM_NIC_FAIL=%s:%llu)",
                  static_cast<unsigned long long>(read_), kind, static_cast<unsigned long long>(f.nth));
    if (f.kind == ibgda::NicFaultKind::malformed) {
        d->op = 0xee;  // an operation no descriptor has
        *why = std::string("unknown operation 238") + tail;
        return kErrOp;
    }
    *why = std::string(f.kind == ibgda::NicFaultKind::remote_access ? "the target refused the access"
                                                                    : "the transport gave up on the target") +
           tail;
    return kErrTransfer;
}

std::string Proxy::first_failure() const {
    return failed_.load(std::memory_order_acquire) ? failure_ : std::string();
}

}  // namespace kishmem::proxy
