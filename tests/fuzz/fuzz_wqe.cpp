// libFuzzer target: the software NIC's WQE parser and executor (runtime/src/transport/ibgda/
// wqe_decode.h, sim_exec.cpp) on send queues full of arbitrary bytes.  A malformed WQE must end
// in an error completion, never a crash (ASan, UBSan) nor an access outside the target heap
// (the heap below aborts on one) or outside the registered local buffer (ASan's redzones).
//
// Input: a flags byte, then WQEs, each a length byte (1-4 basic blocks) and its bytes.  Flag 1
// writes the consumer index and the QP number into each ctrl segment and flag 2 points its
// keys and addresses at the registered regions (half of the range past their end), so that the
// fuzzer reaches the executor and not only the first checks.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "kishmem/device/ibgda/mlx5_cqe.h"
#include "kishmem/device/ibgda/mlx5_defs.h"
#include "kishmem/device/ibgda/mlx5_wqe.h"
#include "transport/ibgda/sim_nic.h"

namespace {

namespace m = kishmem::mlx5;
using kishmem::Status;
using namespace kishmem::ibgda;

constexpr std::size_t kHeapBytes = 1 << 16;
constexpr std::size_t kLocalBytes = 4096;
constexpr uint32_t kLogBbs = 4;  // 16 BBs, 1 KiB
constexpr uint32_t kLogCq = 6;

[[noreturn]] void outside(const char* what, int pe, std::size_t off, std::size_t n) {
    std::fprintf(stderr, "fuzz_wqe: the NIC asked to %s %zu bytes at offset %zu of PE %d: outside the target heap\n",
                 what, n, off, pe);
    std::abort();
}

// One target PE's heap; any access outside it is a finding.
class Heap final : public HeapAccess {
public:
    std::vector<uint8_t> mem = std::vector<uint8_t>(kHeapBytes);
    Status write(int pe, std::size_t off, const void* src, std::size_t n) override {
        check("write", pe, off, n);
        std::memcpy(&mem[off], src, n);
        return Status::ok;
    }
    Status read(int pe, std::size_t off, void* dst, std::size_t n) override {
        check("read", pe, off, n);
        std::memcpy(dst, &mem[off], n);
        return Status::ok;
    }
    Status fetch_add(int pe, std::size_t off, uint64_t add, uint64_t* old) override {
        check("fetch-add", pe, off, 8);
        std::memcpy(old, &mem[off], 8);
        const uint64_t v = *old + add;
        std::memcpy(&mem[off], &v, 8);
        return Status::ok;
    }
    Status compare_swap(int pe, std::size_t off, uint64_t compare, uint64_t swap, uint64_t* old) override {
        check("compare-swap", pe, off, 8);
        std::memcpy(old, &mem[off], 8);
        if (*old == compare) std::memcpy(&mem[off], &swap, 8);
        return Status::ok;
    }

private:
    static void check(const char* what, int pe, std::size_t off, std::size_t n) {
        if (pe != 1 || off > kHeapBytes || n > kHeapBytes - off) outside(what, pe, off, n);
    }
};

void put_be32(uint8_t* p, uint32_t v) {
    v = m::be32(v);
    std::memcpy(p, &v, 4);
}
void put_be64(uint8_t* p, uint64_t v) {
    v = m::be64(v);
    std::memcpy(p, &v, 8);
}
uint32_t get_be32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return m::be32(v);
}
uint64_t get_be64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return m::be64(v);
}

// Points a data segment at the local buffer (or up to one buffer past its end).
void aim_sge(uint8_t* seg, const MemoryKey& local) {
    if (get_be32(seg) & m::kInlineSeg) return;
    put_be32(seg + 4, local.key);
    put_be64(seg + 8, local.addr + get_be64(seg + 8) % (2 * kLocalBytes));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t n) {
    if (n < 2) return 0;
    const uint8_t flags = data[0];
    Heap heap;
    std::vector<uint8_t> local(kLocalBytes);
    SimNic nic(&heap);
    MemoryKey hk, lk;
    if (nic.register_memory(heap.mem.data(), kHeapBytes, &hk) != Status::ok) std::abort();
    if (nic.register_memory(local.data(), local.size(), &lk) != Status::ok) std::abort();
    uint32_t cqn = 0, qpn = 0;
    if (nic.create_cq(kLogCq, &cqn) != Status::ok) std::abort();
    if (nic.create_qp(cqn, kLogBbs, RemoteHeap{1, hk.key, hk.addr, hk.bytes}, &qpn) != Status::ok) std::abort();
    const SimQpView qv = nic.qp_view(qpn);
    const SimCqView cv = nic.cq_view(cqn);

    uint32_t pi = 0;
    std::size_t at = 1;
    uint8_t wqe[4 * m::kSendWqeBB];
    while (at < n) {
        const uint32_t bbs = 1 + (data[at++] & 3);
        if (pi + bbs > (1u << kLogBbs)) break;
        std::memset(wqe, 0, sizeof wqe);
        const std::size_t take = std::min<std::size_t>(n - at, bbs * m::kSendWqeBB);
        std::memcpy(wqe, data + at, take);
        at += take;
        if (flags & 1) {  // ctrl: wqe_index = pi, qpn = this QP, ds kept
            const uint32_t w0 = get_be32(wqe), w1 = get_be32(wqe + 4);
            put_be32(wqe, (w0 & 0xff0000ffu) | ((pi & 0xffffu) << 8));
            put_be32(wqe + 4, (qpn << 8) | (w1 & 0xffu));
        }
        if (flags & 2) {  // keys and addresses into (or just past) the registered regions
            uint8_t* seg = wqe + m::kDsBytes;
            const uint32_t ds = get_be32(wqe + 4) & 0x3f;
            put_be32(seg + 8, hk.key);
            put_be64(seg, hk.addr + get_be64(seg) % (2 * kHeapBytes));
            const uint8_t op = static_cast<uint8_t>(get_be32(wqe));
            // 16-byte units: ctrl, raddr, then data segments (atomics: ctrl, raddr, atomic, data)
            const uint32_t first_data = (op == m::kOpAtomicCs || op == m::kOpAtomicFa) ? 3 : 2;
            for (uint32_t k = first_data; k < ds && k < 4 * m::kDsPerBB; ++k) aim_sge(wqe + m::kDsBytes * k, lk);
        }
        for (uint32_t b = 0; b < bbs; ++b)
            std::memcpy(qv.sq + (((pi + b) & ((1u << kLogBbs) - 1)) * m::kSendWqeBB), wqe + b * m::kSendWqeBB,
                        m::kSendWqeBB);
        pi += bbs;
    }
    m::update_sq_dbrec(qv.dbrec, pi);
    for (int k = 0; k < 64 && nic.poll() != 0; ++k) {
    }

    // Every CQE names this QP; a failed WQE left an error CQE behind.
    uint32_t ci = 0, errors = 0;
    m::CqeInfo c;
    while (ci < (1u << kLogCq) && m::poll_cqe(cv.buf, cv.log_size, ci, &c)) {
        if (c.qpn != qpn) std::abort();
        errors += m::cqe_is_error(c.opcode);
        ++ci;
    }
    NicFailure f;
    if (nic.first_failure(&f) && errors == 0) {
        std::fprintf(stderr, "fuzz_wqe: a WQE failed (%s) without an error completion\n", describe(f).c_str());
        std::abort();
    }
    return 0;
}
