// UCX transport: one context, one worker per channel (contexts get independent completion),
// an endpoint and an rkey per (channel, peer), the heap registered once.  Over tcp the target
// does RMA and atomics in software, so every wait loop of the runtime calls progress().
#pragma once
#include <ucp/api/ucp.h>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "../progress_thread.h"
#include "../shm/shm.h"
#include "../transport.h"
#include "kishmem/env.h"

namespace kishmem {

class UcxTransport final : public Transport {
public:
    ~UcxTransport() override;
    // Creates context and `nchan` workers and registers [heap, heap+bytes), memory kishmem
    // allocated (ucp_mem_map by address, never UCX's allocation: UCX makes no shared-memory
    // object of its own for it); `local_blob` receives what peers need (heap address, the rkey
    // packed from that registration, every worker's address).
    Status open(bool thread_multiple, int nchan, void* heap, std::size_t bytes, Blob* local_blob);
    // Creates endpoints and unpacks rkeys for every pe with want[pe] (never this PE).
    Status connect(const std::vector<Blob>& blobs, const std::vector<bool>& want);
    // Connects every endpoint now, in an order no two PEs contradict: first to the higher PEs,
    // then `barrier` (collective; it must progress this transport), then to the lower ones and
    // `barrier` again (the higher PEs keep serving until every PE is connected). So
    // no two PEs open their connection to each other at once (UCX over tcp then resolves the
    // crossing connections, the path where operations to a PE stopped completing under load).
    // Collective over the PEs that connect().
    Status wire_up(int me, const std::function<void()>& barrier);
    // Same-host peers whose heap kishmem has mapped here (bases[pe]; nullptr elsewhere) are
    // reached by load/store and CPU atomics through that mapping, as UCX's shared-memory
    // transports reach memory they allocated (ucp_rkey_ptr): for use where UCX has such a
    // transport (ucx_config::maps_same_host).  Operations are counted, flushed and failed on
    // purpose (KISHMEM_SIM_UCX_FAIL) like the others.
    void map_peers(std::vector<char*> bases) { mapped_ = std::make_unique<ShmTransport>(std::move(bases)); }
    // A thread that progresses every worker from now until close() (KISHMEM_UCX_PROGRESS_THREAD):
    // peers' software RMA and atomics on this PE then complete while its own threads are
    // elsewhere. The workers must have been opened for threads (open's thread_multiple).
    void start_progress_thread();
    // For tests of the error paths (KISHMEM_SIM_UCX_FAIL): the nth operation of f.kind this
    // transport hands to UCX (over every channel and thread; puts, gets, atomics, flushes)
    // fails as if UCX had failed it, without reaching UCX.
    void fail_on_purpose(const env::Fault<env::UcxFail>& f) { fault_ = f; }

    const char* name() const override { return "ucx"; }
    unsigned caps() const override { return cap_needs_progress; }
    int channels() const override { return static_cast<int>(chan_.size()); }
    Status put(int chan, int pe, std::size_t off, const void* src, std::size_t n, bool nbi) override;
    Status get(int chan, int pe, std::size_t off, void* dst, std::size_t n, bool nbi) override;
    Status amo(int chan, int pe, std::size_t off, AmoOp op, unsigned width, uint64_t operand, uint64_t compare,
               uint64_t* fetched) override;
    Status fence(int chan) override;
    Status quiet(int chan) override;
    void progress() override;
    void close() override;

private:
    struct Peer {
        ucp_ep_h ep = nullptr;
        ucp_rkey_h rkey = nullptr;
        uint64_t base = 0;
    };
    struct Channel {
        ucp_worker_h worker = nullptr;
        std::vector<Peer> peers;
        // Operations are numbered in the order they were handed to UCX: `issued` counts them
        // (incremented after the UCX call returns), `flushed` is the highest number a completed
        // flush is known to cover.  A quiet returns at once when everything this thread issued
        // is covered (an idle channel costs nothing); otherwise it flushes, and a flush covers
        // every operation counted before it started.  A flag would not do: with several threads,
        // one thread's quiet could clear it while another thread's flush, which its own
        // operations depend on, is still running.
        std::atomic<uint64_t> issued{0};
        std::atomic<uint64_t> flushed{0};
        Channel() = default;
        Channel(Channel&& o) noexcept
            : worker(o.worker), peers(std::move(o.peers)), issued(o.issued.load()), flushed(o.flushed.load()) {}
        void count() { issued.fetch_add(1, std::memory_order_release); }
        bool idle() const { return flushed.load(std::memory_order_acquire) >= issued.load(std::memory_order_acquire); }
    };
    // Waits for / releases a request; a failure is said once (failed) in the words of the API
    // routine this thread is in.
    Status wait(ucs_status_ptr_t req, const char* what, int pe, bool on_purpose = false);
    Status detach(ucs_status_ptr_t req, const char* what, int pe, bool on_purpose);
    Status failed(const char* what, int pe, ucs_status_t st, bool on_purpose) const;
    bool due(env::UcxFail kind);
    // One UCX atomic (AmoOp `op` mapped to UCX's); `fetched` receives the old value when asked.
    Status ucx_amo(Channel& c, int pe, std::size_t off, ucp_atomic_op_t uop, unsigned width, uint64_t value,
                   uint64_t swap, bool fetch, uint64_t* fetched);
    Channel& ch(int chan) { return chan_[static_cast<std::size_t>(chan) % chan_.size()]; }
    bool mapped(int pe) const { return mapped_ && mapped_->base(pe); }

    ucp_context_h ctx_ = nullptr;
    ucp_mem_h memh_ = nullptr;
    std::unique_ptr<ShmTransport> mapped_;  // map_peers
    std::vector<Channel> chan_;
    env::Fault<env::UcxFail> fault_;
    std::atomic<uint64_t> fault_seen_{0};  // operations of fault_.kind so far
    ProgressThread progress_thread_;
    std::size_t progress_all();  // every worker once; how many events they had
};

}  // namespace kishmem
