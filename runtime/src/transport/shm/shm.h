// Load/store transport: peers whose heap is mapped into this process (same host, POSIX shared
// memory; this PE itself).  Puts and gets are memcpy, atomics are CPU atomics, and ordering is
// a CPU fence: nothing is ever pending, so quiet is a fence too.
#pragma once
#include <cstring>
#include <vector>

#include "../amo_local.h"
#include "kishmem/copy_once.h"
#include "../transport.h"

namespace kishmem {

class ShmTransport final : public Transport {
public:
    // bases[pe] is pe's heap as mapped here, nullptr where it is not mapped.
    explicit ShmTransport(std::vector<char*> bases) : bases_(std::move(bases)) {}
    const char* name() const override { return "shm"; }
    unsigned caps() const override { return cap_load_store; }
    int channels() const override { return 1; }  // nothing is ever pending: one quiet covers all
    Status put(int, int pe, std::size_t off, const void* src, std::size_t n, bool) override {
        copy_once(bases_[pe] + off, src, n);
        return Status::ok;
    }
    Status get(int, int pe, std::size_t off, void* dst, std::size_t n, bool) override {
        std::memcpy(dst, bases_[pe] + off, n);
        return Status::ok;
    }
    Status amo(int, int pe, std::size_t off, AmoOp op, unsigned width, uint64_t operand, uint64_t compare,
               uint64_t* fetched) override {
        uint64_t v = amo_local(bases_[pe] + off, op, width, operand, compare);
        if (fetched) *fetched = v;
        return Status::ok;
    }
    // Stores to mapped memory are ordered by a release fence (free on x86); quiet also waits
    // for them to be globally visible (a full fence).
    Status fence(int) override {
        __atomic_thread_fence(__ATOMIC_RELEASE);
        return Status::ok;
    }
    Status quiet(int) override {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        return Status::ok;
    }
    char* base(int pe) const { return bases_[pe]; }

private:
    std::vector<char*> bases_;
};

}  // namespace kishmem
