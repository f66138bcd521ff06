// The CPU-proxy device backend (KISHMEM_REMOTE=proxy with a device heap): kChannels channels in
// host-pinned memory mapped into the GPU, their reservation counters in GPU memory, the proxy
// thread executing through the CUDA IPC mappings of the peers' GPU heaps (PEs on other hosts:
// UCX active messages, make_backend_heap), and the ChannelTable
// (device/include/kishmem/device/proxy/channel.h) as its device handle.  Open is this PE's
// alone: the proxy addresses peers by PE and heap offset, nothing is exchanged.
#include <cuda_runtime_api.h>

#include <memory>

#include "../transport/proxy/device_proxy.h"
#include "../transport/proxy/proxy.h"
#include "backend.h"
#include "kishmem/env.h"
#include "kishmem/device/proxy/channel.h"
#include "kishmem/device/state.h"

namespace kishmem::proxy {

namespace {

constexpr int kChannels = 8;        // CTA b posts to channel b % 8
constexpr uint32_t kLogSlots = 10;  // 1024 descriptors per channel

class ProxyBackend final : public DeviceBackend {
public:
    ~ProxyBackend() override { close(); }
    const char* name() const override { return "proxy"; }

    Status open(const DeviceBackendArgs& args, device::State* st, std::string* why) override {
        Status s = make_backend_heap(args, &heap_, why);
        if (s != Status::ok) return s;
        ProxyOptions opt;  // a descriptor to fail on purpose (tests): KISHMEM_SIM_NIC_FAIL, as the NIC's
        if (ibgda::parse_nic_fault(env::sim_nic_fail(), &opt.fault, why) != Status::ok)
            return *why = "KISHMEM_SIM_NIC_FAIL=" + *why, Status::invalid;
        if (opt.fault.pe >= 0 && opt.fault.pe != args.pe) opt.fault = ibgda::NicFault{};  // another PE's proxy fails
        proxy_ = std::make_unique<Proxy>(heap_.get(), args.npes, args.heap_bytes, opt);
        if ((s = proxy_->open(kChannels, kLogSlots)) != Status::ok)
            return *why = std::string("proxy channels: ") + status_name(s), s;
        if ((s = make_device_channels(*proxy_, &table_, why)) != Status::ok) return s;
        proxy_->start();
        st->proxy = static_cast<const ChannelTable*>(table_);
        debug("CPU proxy for kernels: %d channels of %u descriptors", kChannels, 1u << kLogSlots);
        return Status::ok;
    }

    void drain() override {
        if (!proxy_) return;
        while (proxy_->poll() != 0) {
        }
    }

    std::string failure() const override { return proxy_ ? proxy_->first_failure() : std::string(); }

    bool counters(rt::DeviceCounters* out) const override {
        if (!proxy_) return false;
        *out = counters_of(proxy_->stats());
        return true;
    }

    void close() override {
        if (proxy_) proxy_->stop();
        proxy_.reset();
        heap_.reset();
        if (table_) cudaFree(table_);
        table_ = nullptr;
    }

private:
    std::unique_ptr<ibgda::HeapAccess> heap_;
    std::unique_ptr<Proxy> proxy_;
    void* table_ = nullptr;  // GPU memory: make_device_channels' block
};

}  // namespace

}  // namespace kishmem::proxy

namespace kishmem {
std::unique_ptr<DeviceBackend> make_proxy_backend() { return std::make_unique<proxy::ProxyBackend>(); }
}  // namespace kishmem
