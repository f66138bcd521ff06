// Host calls (shmem_put/get, atomics, collectives) to PEs whose heap only a HeapAccess reaches:
// a GPU heap on another host, through a UcxAm client (UCX cannot register GPU memory here).
// One channel; calls from several threads take turns (a client serves one thread at a time);
// quiet and fence wait until every write is answered.  A failure is logged once with the
// client's words and returned.
#pragma once
#include <memory>
#include <mutex>
#include <string>

#include "../ibgda/heap_access.h"
#include "../transport.h"

namespace kishmem {

class HeapAccessTransport final : public Transport {
public:
    explicit HeapAccessTransport(std::unique_ptr<ibgda::HeapAccess> h) : h_(std::move(h)) {}
    const char* name() const override { return "ucx_am"; }
    unsigned caps() const override { return 0; }  // the target's service thread serves it
    int channels() const override { return 1; }
    Status put(int, int pe, std::size_t off, const void* src, std::size_t n, bool) override {
        std::lock_guard<std::mutex> g(mu_);
        return said(h_->write(pe, off, src, n), "put", pe);  // src was copied into the message
    }
    Status get(int, int pe, std::size_t off, void* dst, std::size_t n, bool) override {
        std::lock_guard<std::mutex> g(mu_);
        return said(h_->read(pe, off, dst, n), "get", pe);
    }
    Status amo(int, int pe, std::size_t off, AmoOp op, unsigned width, uint64_t operand, uint64_t compare,
               uint64_t* fetched) override {
        std::lock_guard<std::mutex> g(mu_);
        uint64_t old = 0;
        Status s = said(ibgda::amo_through(*h_, pe, off, op, width, operand, compare, &old), "atomic", pe);
        if (s == Status::ok && fetched) *fetched = width == 4 ? (old & 0xffffffffu) : old;
        return s;
    }
    Status fence(int chan) override { return quiet(chan); }
    Status quiet(int) override {
        std::lock_guard<std::mutex> g(mu_);
        return said(h_->flush(), "quiet", -1);
    }

private:
    Status said(Status s, const char* what, int pe) {
        if (s != Status::ok && !told_) {
            told_ = true;
            warn(what, "a GPU heap on another host (PE %d) through UCX active messages: %s (%s)", pe,
                 h_->last_error().c_str(), status_name(s));
        }
        return s;
    }
    std::unique_ptr<ibgda::HeapAccess> h_;
    std::mutex mu_;
    bool told_ = false;
};

}  // namespace kishmem
