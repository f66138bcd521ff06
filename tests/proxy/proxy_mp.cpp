// The CPU proxy between processes, posted from host code: every PE runs a Proxy over the
// runtime's own routes (shared memory, or UCX when KISHMEM_REMOTE=ucx) and posts descriptors
// with the same encoders and ordering kernels use, from two threads on two channels, to every
// PE (itself included): puts naming a heap source, inline puts, gets into memory and into the
// result slot, 8-byte fetch-adds, 4-byte adds and fetch-ors (compare-swap loops), a compare-swap
// race, signal add and set. A third channel carries malformed descriptors that must come back
// as errors naming the code and the PE while the channel keeps running. After a barrier each PE
// checks its heap against values computed here independently.
#include <sched.h>
#include <shmem.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../mp/mp_check.h"  // CHECK
#include "kishmem/env.h"
#include "kishmem/runtime.h"
#include "kishmem/vocab.h"
#include "device_backend/backend.h"  // counters_of
#include "transport/ibgda/heap_access.h"
#include "transport/proxy/proxy.h"

using namespace kishmem::proxy;

static int me = -1, npes = 0;

namespace {

constexpr int kChunk = 4096;  // bytes each PE puts into each PE's inbox
constexpr int kAdds = 40;     // AMO rounds per PE and thread

uint8_t pattern(int from, int i) { return static_cast<uint8_t>(from * 31 + i * 13 + 1); }

// An AMO descriptor's aux: the operation (kishmem/vocab.h) and the width.
uint8_t amo_aux(kishmem::AmoOp op, bool wide = false) {
    return static_cast<uint8_t>(static_cast<unsigned>(op) | (wide ? kAmoWide : 0));
}

// The symmetric layout (one shmem_calloc).
struct Layout {
    uint8_t* base;
    std::size_t off(const void* p) const {
        return static_cast<std::size_t>(static_cast<const char*>(p) - kishmem::rt::heap_base());
    }
    uint8_t* src() const { return base; }                                   // kChunk
    uint8_t* inbox(int from) const { return base + kChunk * (1 + from); }   // kChunk per sender
    uint8_t* inl(int from) const { return base + kChunk * (1 + npes) + 64 * from; }
    uint64_t* words() const { return reinterpret_cast<uint64_t*>(base + kChunk * (1 + npes) + 64 * npes); }
    // words: [0] fetch-add counter, [1] 4-byte adds in its high half, [2] fetch-or bits (low half),
    // [3] compare-swap lock, [4] signal add, [5 + from] signal set
    std::size_t bytes() const { return kChunk * (1 + npes) + 64 * npes + 8 * (5 + npes); }
};

}  // namespace

// proxy_mp fail: KISHMEM_SIM_NIC_FAIL=<kind>:1:0 makes PE 0's proxy fail the first descriptor it
// reads (a put of 64 bytes to the right neighbour): the poster gets the error word, nothing
// moves, first_failure() words it (operation, PE, offset, why), and the next descriptor runs.
static int run_fail(Layout L) {
    kishmem::ibgda::NicFault fault;
    std::string why;
    CHECK(kishmem::ibgda::parse_nic_fault(kishmem::env::sim_nic_fail(), &fault, &why) == kishmem::Status::ok, "%s",
          why.c_str());
    ProxyOptions opt;
    if (fault.pe < 0 || fault.pe == me) opt.fault = fault;
    std::unique_ptr<kishmem::ibgda::HeapAccess> heap = kishmem::ibgda::make_runtime_heap_access(0, &why);
    CHECK(heap != nullptr, "make_runtime_heap_access: %s", why.c_str());
    Proxy proxy(heap.get(), npes, kishmem::rt::heap_size(), opt);
    CHECK(proxy.open(1, 4) == kishmem::Status::ok, "open");
    proxy.start();
    shmem_barrier_all();
    const int right = (me + 1) % npes;
    const Channel c = proxy.channel(0);
    const uint32_t e = wait_host(c, post_host(c, kOpPut, 0, right, body_put(L.off(L.inbox(me)), reinterpret_cast<uint64_t>(L.src()), 64)));
    const uint32_t g = post_host(c, kOpGet, 0, right, body_get(L.off(L.src()), 0, 16));
    wait_host(c, g);
    for (int i = 0; i < 16; ++i)  // the channel runs on after the failure
        CHECK(result_slot(c, g)[i] == pattern(right, i), "get after the failure: byte %d = %d", i, result_slot(c, g)[i]);
    shmem_barrier_all();
    const bool failing = opt.fault.kind != kishmem::ibgda::NicFaultKind::none;
    const uint32_t code = opt.fault.kind == kishmem::ibgda::NicFaultKind::malformed ? kErrOp : kErrTransfer;
    if (failing) {
        CHECK(e == (0x100u | code | static_cast<uint32_t>(right) << 16), "error word 0x%x", e);
        std::printf("PE %d: %s\n", me, proxy.first_failure().c_str());
    } else {
        CHECK(e == 0 && proxy.first_failure().empty(), "PE %d failed 0x%x: %s", me, e, proxy.first_failure().c_str());
    }
    // What PE me's left neighbour put here arrived unless its proxy failed it.
    const int left = (me + npes - 1) % npes;
    const bool left_failed = fault.kind != kishmem::ibgda::NicFaultKind::none && (fault.pe < 0 || fault.pe == left);
    for (int i = 0; i < 64; ++i)
        CHECK(L.inbox(left)[i] == (left_failed ? 0 : pattern(left, i)), "inbox of PE %d byte %d = %d", left, i,
              L.inbox(left)[i]);
    shmem_barrier_all();
    proxy.stop();
    if (me == 0) std::printf("PASS proxy_mp fail on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}

int main(int argc, char** argv) {
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "thread level %d", provided);

    Layout L{nullptr};
    L.base = static_cast<uint8_t*>(shmem_calloc(1, Layout{nullptr}.bytes()));
    CHECK(L.base != nullptr, "shmem_calloc");
    for (int i = 0; i < kChunk; ++i) L.src()[i] = pattern(me, i);
    if (argc > 1 && !std::strcmp(argv[1], "fail")) return run_fail(L);

    std::string why;
    std::unique_ptr<kishmem::ibgda::HeapAccess> heap = kishmem::ibgda::make_runtime_heap_access(0, &why);
    CHECK(heap != nullptr, "make_runtime_heap_access: %s", why.c_str());
    Proxy proxy(heap.get(), npes, kishmem::rt::heap_size());
    CHECK(proxy.open(3, 4) == kishmem::Status::ok, "open");  // 16 slots: the ring wraps many times
    proxy.start();
    shmem_barrier_all();

    // Two posting threads, one channel each. Thread t: puts and inline puts to the PEs of its
    // parity; both do the AMO rounds to every PE.
    std::vector<uint64_t> olds[2];
    auto poster = [&](int t) {
        const Channel c = proxy.channel(t);
        uint32_t last = 0;
        for (int pe = t; pe < npes; pe += 2) {
            last = post_host(c, kOpPut, 0, pe, body_put(L.off(L.inbox(me)), reinterpret_cast<uint64_t>(L.src()), kChunk));
            uint8_t bytes[48];
            for (int i = 0; i < 48; ++i) bytes[i] = pattern(me + 7, i);
            last = post_host(c, kOpPutInline, 48, pe, body_inline(L.off(L.inl(me)), bytes, 48));
            last = post_host(c, kOpPutInline, 5, pe, body_inline(L.off(L.inl(me) + 50), bytes + 3, 5));
            last = post_host(c, kOpSignal, 0, pe, body_signal(L.off(L.words() + 5 + me), 100 + me));
        }
        for (int r = 0; r < kAdds; ++r)
            for (int k = 0; k < npes; ++k) {
                const int pe = (me + k) % npes;
                const uint32_t i = post_host(c, kOpAmo, amo_aux(kishmem::AmoOp::fetch_add, true), pe, body_amo(L.off(L.words()), 1, 0));
                CHECK(wait_host(c, i) == 0, "fetch-add error");
                uint64_t old;
                std::memcpy(&old, result_slot(c, i), 8);
                olds[t].push_back(old);
                // 4-byte add of 3 to the high half of word 1 (a compare-swap loop in the proxy)
                last = post_host(c, kOpAmo, amo_aux(kishmem::AmoOp::add), pe, body_amo(L.off(L.words() + 1) + 4, 3, 0));
                last = post_host(c, kOpSignal, 1, pe, body_signal(L.off(L.words() + 4), 1));
            }
        CHECK(wait_host(c, last) == 0, "channel %d error 0x%x", t, *c.error);
    };
    std::thread t0(poster, 0), t1(poster, 1);
    t0.join();
    t1.join();
    // fetch-or of bit me into every PE's word 2 (4 bytes), and one compare-swap on PE 0's lock
    const Channel c0 = proxy.channel(0);
    for (int pe = 0; pe < npes; ++pe)
        CHECK(wait_host(c0, post_host(c0, kOpAmo, amo_aux(kishmem::AmoOp::or_), pe, body_amo(L.off(L.words() + 2), 1u << me, 0))) == 0, "or");
    const uint32_t ci = post_host(c0, kOpAmo, amo_aux(kishmem::AmoOp::cswap, true), 0, body_amo(L.off(L.words() + 3), me + 1, 0));
    CHECK(wait_host(c0, ci) == 0, "cswap");
    uint64_t won;
    std::memcpy(&won, result_slot(c0, ci), 8);

    // Malformed descriptors on channel 2: each fails, the first error is kept, the channel runs on.
    const Channel ce = proxy.channel(2);
    post_host(ce, kOpPut, 0, npes + 3, body_put(0, reinterpret_cast<uint64_t>(L.src()), 8));  // PE out of range
    uint32_t e = wait_host(ce, post_host(ce, kOpPut, 0, 0, body_put(kishmem::rt::heap_size() - 4, 0, 8)));
    CHECK(e == (0x100u | kErrPe | static_cast<uint32_t>(npes + 3) << 16) && *ce.error_index == 0,
          "first error 0x%x at %u, expected PE out of range (PE %d) at 0", e, *ce.error_index, npes + 3);
    const uint64_t before = proxy.stats().errors;
    post_host(ce, kOpPut, 0, 0, body_put(kishmem::rt::heap_size() - 4, 0, 8));  // past the heap
    post_host(ce, 77, 0, 0, body_put(0, 0, 0));                                  // unknown op
    post_host(ce, kOpPutInline, 0, 0, body_inline(0, "", 0));                    // empty inline
    post_host(ce, kOpGet, 0, 0, body_get(0, 0, 65));                             // result slot too small
    post_host(ce, kOpAmo, amo_aux(kishmem::AmoOp::add, true), 0, body_amo(4, 1, 0));           // unaligned 8-byte AMO
    const uint32_t ok_idx = post_host(ce, kOpGet, 0, me, body_get(L.off(L.src()), 0, 16));  // still served
    wait_host(ce, ok_idx);
    CHECK(proxy.stats().errors == before + 5, "errors counted: %llu, expected %llu",
          (unsigned long long)proxy.stats().errors, (unsigned long long)before + 5);
    CHECK(std::memcmp(result_slot(ce, ok_idx), L.src(), 16) == 0, "a good get after errors");
    shmem_barrier_all();

    // What landed here.
    for (int from = 0; from < npes; ++from) {
        for (int i = 0; i < kChunk; ++i)
            CHECK(L.inbox(from)[i] == pattern(from, i), "inbox of PE %d byte %d = %d", from, i, L.inbox(from)[i]);
        for (int i = 0; i < 48; ++i) CHECK(L.inl(from)[i] == pattern(from + 7, i), "inline from %d byte %d", from, i);
        CHECK(L.inl(from)[48] == 0 && L.inl(from)[49] == 0 && L.inl(from)[55] == 0, "inline from %d: stray bytes", from);
        for (int i = 0; i < 5; ++i) CHECK(L.inl(from)[50 + i] == pattern(from + 7, 3 + i), "5-byte inline from %d", from);
        CHECK(L.words()[5 + from] == uint64_t(100 + from), "signal set from %d: %llu", from,
              (unsigned long long)L.words()[5 + from]);
    }
    const uint64_t total = uint64_t(2) * kAdds * npes;
    CHECK(L.words()[0] == total, "fetch-add counter %llu, expected %llu", (unsigned long long)L.words()[0],
          (unsigned long long)total);
    CHECK(L.words()[1] == (uint64_t(3) * total) << 32, "4-byte adds: word 0x%llx", (unsigned long long)L.words()[1]);
    CHECK(L.words()[2] == (uint64_t(1) << npes) - 1, "fetch-or bits 0x%llx", (unsigned long long)L.words()[2]);
    CHECK(L.words()[4] == total, "signal adds %llu", (unsigned long long)L.words()[4]);
    for (int t = 0; t < 2; ++t)
        for (uint64_t o : olds[t]) CHECK(o < total, "fetch-add returned %llu", (unsigned long long)o);
    // exactly one compare-swap won PE 0's lock, and the lock names it
    int winners = 0;
    uint64_t lock = 0;
    long* wins = static_cast<long*>(shmem_calloc(1, sizeof(long)));
    if (won == 0) shmem_long_atomic_add(wins, 1, 0);
    shmem_barrier_all();
    if (me == 0) {
        winners = static_cast<int>(*wins);
        lock = L.words()[3];
        CHECK(winners == 1 && lock >= 1 && lock <= uint64_t(npes), "compare-swap: %d winners, lock %llu", winners,
              (unsigned long long)lock);
    }

    // Gets: PE me's inbox on the right neighbour (into this PE's memory) and 48 bytes into a
    // result slot.
    const int right = (me + 1) % npes;
    std::vector<uint8_t> got(kChunk);
    const uint32_t gi = post_host(c0, kOpGet, 0, right, body_get(L.off(L.inbox(me)), reinterpret_cast<uint64_t>(got.data()), kChunk));
    CHECK(wait_host(c0, gi) == 0, "get");
    for (int i = 0; i < kChunk; ++i) CHECK(got[i] == pattern(me, i), "get byte %d", i);
    const uint32_t ri = post_host(c0, kOpGet, 0, right, body_get(L.off(L.inl(me)), 0, 48));
    CHECK(wait_host(c0, ri) == 0, "get into the result slot");
    for (int i = 0; i < 48; ++i) CHECK(result_slot(c0, ri)[i] == pattern(me + 7, i), "result slot byte %d", i);

    shmem_barrier_all();
    proxy.stop();
    // What this PE's proxy executed, counted by hand from the posts above, in shmemx_nic_stats'
    // words (counters_of): the puts' rounds (put, two inline puts, a signal per target PE), the
    // AMO rounds (fetch-add, add, signal add), the fetch-ors and the compare-swap, the malformed
    // channel (7 errors and one good 16-byte get) and the two gets. An AMO or a signal counts 8
    // bytes; a failed descriptor counts none and is no work request.
    const ProxyStats s = proxy.stats();
    const uint64_t n = static_cast<uint64_t>(npes), errors = 7;
    const uint64_t executed = 4 * n + 2 * kAdds * n * 3 + (n + 1) + (errors + 1) + 2;
    const uint64_t bytes = n * (kChunk + 48 + 5 + 8) + 2 * kAdds * n * 24 + 8 * (n + 1) + 16 + (kChunk + 48);
    const kishmem::rt::DeviceCounters got_c = kishmem::counters_of(s);
    CHECK(s.executed == executed && s.errors == errors && s.bytes == bytes,
          "proxy counted %llu descriptors, %llu errors, %llu bytes; posted %llu, %llu, %llu",
          (unsigned long long)s.executed, (unsigned long long)s.errors, (unsigned long long)s.bytes,
          (unsigned long long)executed, (unsigned long long)errors, (unsigned long long)bytes);
    CHECK(got_c.source == kishmem::rt::CounterSource::proxy && got_c.work_requests == executed - errors &&
              got_c.bytes == bytes && got_c.errors == errors && got_c.doorbells == 0,
          "as shmemx_nic_stats: %llu work requests, %llu bytes, %llu errors, %llu doorbells, source %d",
          (unsigned long long)got_c.work_requests, (unsigned long long)got_c.bytes, (unsigned long long)got_c.errors,
          (unsigned long long)got_c.doorbells, static_cast<int>(got_c.source));
    if (me == 0) {
        std::printf("proxy on PE 0: %llu descriptors, %llu errors, %llu bytes, %llu flushes (as counted)\n",
                    (unsigned long long)s.executed, (unsigned long long)s.errors, (unsigned long long)s.bytes,
                    (unsigned long long)s.flushes);
        std::printf("PASS proxy_mp on %d PEs\n", npes);
    }
    shmem_finalize();
    return 0;
}
