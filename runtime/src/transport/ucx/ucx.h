// UCX transport: one context and worker per PE, an endpoint and an rkey per peer reached this
// way, the heap registered once.  Over tcp the target does RMA and atomics in software, so every
// wait loop of the runtime calls progress().
#pragma once
#include <ucp/api/ucp.h>

#include <vector>

#include "../transport.h"

namespace kishmem {

class UcxTransport final : public Transport {
public:
    ~UcxTransport() override;
    // Creates context and worker, registers [heap, heap+bytes); `local_blob` receives what peers
    // need (worker address, heap address, packed rkey).
    Status open(bool thread_multiple, void* heap, std::size_t bytes, Blob* local_blob);
    // Creates endpoints and unpacks rkeys for every pe with want[pe] (never this PE).
    Status connect(const std::vector<Blob>& blobs, const std::vector<bool>& want);

    const char* name() const override { return "ucx"; }
    unsigned caps() const override { return cap_rma | cap_amo32 | cap_amo64 | cap_needs_progress; }
    Status put(int pe, std::size_t off, const void* src, std::size_t n, bool nbi) override;
    Status get(int pe, std::size_t off, void* dst, std::size_t n, bool nbi) override;
    Status amo(int pe, std::size_t off, AmoOp op, unsigned width, uint64_t operand, uint64_t compare,
               uint64_t* fetched) override;
    Status fence() override;
    Status quiet() override;
    void progress() override;
    void close() override;

private:
    Status wait(ucs_status_ptr_t req, const char* what, int pe);
    struct Peer {
        ucp_ep_h ep = nullptr;
        ucp_rkey_h rkey = nullptr;
        uint64_t base = 0;
    };
    ucp_context_h ctx_ = nullptr;
    ucp_worker_h worker_ = nullptr;
    ucp_mem_h memh_ = nullptr;
    std::vector<Peer> peers_;
};

}  // namespace kishmem
