// The CPU proxy: a host thread that executes the operations kernels (or host code) post as
// descriptors into channels (device/include/kishmem/device/proxy/channel.h has the format and
// the protocol). It reaches target PEs through a HeapAccess: the runtime's routes (shared
// memory, UCX) for host heaps, the CUDA IPC mappings for GPU heaps (device_proxy.cpp).
//
// Memory per channel (one alloc_queue_memory block: host-pinned and mapped into the GPU when
// CUDA is there, plain host memory otherwise):
//   [0, 64 << log)            descriptor ring
//   [64 << log, 128 << log)   result slots
//   [128 << log, +64)         control words: done @0, error @4, error_index @8, error_op @12,
//                             the reservation counter host posters use @16 (kernels use their
//                             own in GPU memory: device_proxy.cpp), error_offset @24 (u64)
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "../ibgda/heap_access.h"
#include "../ibgda/sim_nic.h"
#include "../progress_thread.h"
#include "kishmem/device/proxy/channel.h"
#include "kishmem/log.h"

namespace kishmem::proxy {

struct ProxyOptions {
    uint32_t max_per_pass = 64;    // descriptors per channel per pass (one busy channel cannot starve others)
    uint32_t idle_spin_us = 1000;  // kernels wait on gets and AMOs: stay awake between them
    uint32_t max_sleep_us = 100;
    // For tests of the error paths (KISHMEM_SIM_NIC_FAIL, the software NIC's grammar): the nth
    // descriptor the proxy reads (1-based, over every channel) fails as the kind says:
    // remote_access / retry_exceeded as a transfer the target refused / the transport gave up
    // on (nothing moves), malformed as a descriptor with an unknown operation.
    ibgda::NicFault fault;
};

struct ProxyStats {
    uint64_t executed = 0;  // descriptors completed (failed ones included)
    uint64_t errors = 0;    // descriptors rejected or failed
    uint64_t bytes = 0;     // payload bytes moved
    uint64_t flushes = 0;   // HeapAccess::flush calls before publishing completions
};

class Proxy {
public:
    // heap is not owned and must outlive the proxy; operations address PEs [0, npes) and
    // offsets [0, heap_bytes) of their symmetric heaps.
    Proxy(ibgda::HeapAccess* heap, int npes, std::size_t heap_bytes, ProxyOptions opt = {});
    ~Proxy();
    Proxy(const Proxy&) = delete;
    Proxy& operator=(const Proxy&) = delete;

    // n channels of 2^log_slots descriptors (1 <= log_slots <= 16). Call before start().
    Status open(int n, uint32_t log_slots);
    int channels() const { return static_cast<int>(ch_.size()); }
    // The host view of channel i (resv: the host posters' counter in the control words).
    Channel channel(int i) const { return ch_[i].view; }

    void start();
    void stop();
    void kick() { thread_.kick(); }
    // One pass over every channel on the calling thread (serialized with the thread's);
    // returns the descriptors executed.
    std::size_t poll();
    ProxyStats stats() const;
    // The first descriptor that failed, in words ("" while none did): the operation, the
    // target PE and offset, the channel and index, and why.
    std::string first_failure() const;

private:
    struct Chan {
        ibgda::QueueMemory mem;
        Channel view{};
        uint32_t tail = 0;  // next descriptor to execute
        uint32_t pass_start = 0;  // tail when this pass began
        Desc last{};              // the last descriptor executed (named when the pass's flush fails)
    };
    std::size_t poll_locked();
    Status flush();  // HeapAccess::flush when writes were issued since the last one
    // Executes descriptor idx of c; returns 0 or a ProxyError.
    uint32_t execute(Chan& c, uint32_t idx, const Desc& d, std::string* why);
    // opt_.fault: 0, or the error of the descriptor failed on purpose (d may be corrupted).
    uint32_t fail_on_purpose(Desc* d, std::string* why);
    uint32_t amo(const Desc& d, uint64_t* old, std::string* why);
    uint32_t check_range(const Desc& d, uint64_t n, std::string* why) const;
    // Keeps the details of a channel's first failed descriptor (control words, failure_).
    void note_failure(Chan& c, const Desc& d, const std::string& why);

    ibgda::HeapAccess* heap_;
    int npes_;
    std::size_t heap_bytes_;
    ProxyOptions opt_;
    std::vector<Chan> ch_;
    std::mutex mu_;  // one pass at a time
    bool dirty_ = false;
    uint64_t pass_bytes_ = 0;
    uint64_t read_ = 0;  // descriptors read so far (opt_.fault counts them)  // bytes of the pass under way (the shared counter is updated once per pass)
    struct Counters {
        std::atomic<uint64_t> executed{0}, errors{0}, bytes{0}, flushes{0};
    } n_;
    std::atomic<bool> failed_{false};
    std::string failure_;  // the first failure of any channel (written once, before failed_)
    ProgressThread thread_;  // last: stopped before the members its poll() uses go
};

// Host posting (tests, benchmarks): reserve through the channel's resv with an atomic, wait
// for room, write the descriptor with the same ordering as kernels. Returns the index.
uint32_t post_host(const Channel& c, uint8_t op, uint8_t aux, int pe, const DescBody& b);
// Until descriptor idx of c is complete; returns the channel's error word (0: none).
uint32_t wait_host(const Channel& c, uint32_t idx);

}  // namespace kishmem::proxy
