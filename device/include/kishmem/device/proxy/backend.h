// The CPU-proxy backend of the device RMA/AMO/signal/quiet routines (remote.h calls it for PEs
// that are neither mapped nor reached over IBGDA). Every operation is a 64-byte descriptor
// (proxy/channel.h) the calling thread writes into channel (block % n) of State::proxy; the
// host's proxy thread executes it and advances the channel's `done` word.
//
// What each routine posts:
//   put      source in global memory (the symmetric heap, cudaMalloc'd or mapped host memory):
//            one put descriptor naming it; blocking forms wait for its completion (the source
//            is reusable on return), _nbi forms return once posted. Any other source (local or
//            shared memory): its bytes travel inline, 48 per descriptor, never waited for.
//   p        one inline descriptor; completes at quiet.
//   get / g  destination in global memory: one get descriptor naming it; otherwise 64-byte
//            pieces into the descriptor's result slot, copied out. Both wait.
//   AMOs     one descriptor (the proxy runs every AMO, 4 or 8 bytes); waits; the old value
//            comes back through the result slot.
//   put_signal  the data as put, then a signal descriptor on the same channel: the proxy runs
//            a channel in order, so the signal lands after the data.
//   quiet    waits until every channel's done reaches its reservation counter as read when
//            the call began.
// Lanes of a warp posting together take their slots with one atomic. A slot's result cannot be
// overwritten before its poster read it (channel.h, "results").
// A descriptor the proxy rejected traps at the next wait or quiet, naming the PE, the call,
// the operation, the channel and descriptor, the error and the address (KISHMEM_DEVICE_UNCHECKED
// builds go on); the host names it too, at its next quiet or barrier.
#pragma once
#if defined(__CUDACC__)
#include <stdint.h>

#include <cstdio>

#include "kishmem/device/patience.h"
#include "kishmem/device/proxy/channel.h"
#include "kishmem/device/state.h"

namespace kishmem::device::proxy {

namespace kp = kishmem::proxy;

__device__ __forceinline__ const kp::Channel& channel(const State& s) {
    const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    return s.proxy->channels[b % static_cast<unsigned>(s.proxy->n)];
}

// `done` read across PCIe, and kept in `seen` (GPU memory) for the threads that come after.
__device__ __forceinline__ uint32_t refresh(const kp::Channel& c) {
    uint32_t v, old;
    asm volatile("ld.acquire.sys.u32 %0, [%1];" : "=r"(v) : "l"(c.done) : "memory");
    asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(old) : "l"(c.seen) : "memory");
    if (static_cast<int32_t>(v - old) > 0) asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(c.seen), "r"(v) : "memory");
    return v;
}

// Until done >= target (free-running indices): first by what this GPU has seen already. With
// a state, a wait that takes too long says so (KISHMEM_HANG_WARN/ABORT) naming `call`.
__device__ __forceinline__ void until(const kp::Channel& c, uint32_t target, const State* s = nullptr,
                                      const char* call = nullptr) {
    uint32_t v;
    asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(c.seen) : "memory");
    if (static_cast<int32_t>(target - v) <= 0) return;
    Patience p;
    // Reads across PCIe compete with the proxy's own reads of the rings: space them out.
    for (unsigned ns = 64; static_cast<int32_t>(target - (v = refresh(c))) > 0; ns = ns < 1024 ? 2 * ns : ns) {
        __nanosleep(ns);
        if (s != nullptr)
            p.tick(*s, [&](const char* what, double sec) {
                printf("kishmem: PE %d: %s (device, block %d thread %d): %s after %.1f s for the CPU proxy to complete "
                       "descriptor %u (it has completed %u): is the host process alive?\n",
                       s->my_pe, call, blockIdx.x, threadIdx.x, what, sec, target - 1, v);
            });
    }
}

static __device__ __noinline__ void trap_proxy(const State& s, const kp::Channel& c, const char* call) {
    static const char* const names[] = {"?", "unknown operation", "PE out of range", "range outside the heap",
                                        "transfer failed", "bad atomic"};
#if !defined(KISHMEM_DEVICE_UNCHECKED)
    const uint32_t e = *c.error, code = e & 0xffu;
    const uint64_t off = *kp::error_offset(c);
    const unsigned ch = static_cast<unsigned>(&c - s.proxy->channels);
    printf("kishmem: PE %d: %s (device, block %d thread %d): CPU proxy %s to PE %u failed on channel %u (descriptor "
           "%u): %s, heap offset 0x%llx (symmetric address %p); the host names it too\n",
           s.my_pe, call, blockIdx.x, threadIdx.x, kp::desc_op_name(*kp::error_op(c)), e >> 16, ch, *c.error_index,
           code < 6 ? names[code] : names[0], static_cast<unsigned long long>(off), s.heap_base + off);
    __trap();
#else
    (void)s, (void)c, (void)call, (void)names;  // the host names it at its next quiet or barrier
#endif
}

// Slot indices for the calling lanes: the active lanes (they all post to this CTA's channel)
// take theirs with one atomic, in lane order; then each waits until its slot is free: the
// descriptor one ring earlier complete and, where tracked, its result consumed.
__device__ __forceinline__ uint32_t reserve(const kp::Channel& c, const State* s = nullptr, const char* call = nullptr) {
    const unsigned group = __activemask();
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    const unsigned leader = __ffs(group) - 1;
    uint32_t base = 0;
    if (lane == leader) base = atomicAdd(c.resv, static_cast<uint32_t>(__popc(group)));
    const uint32_t idx = __shfl_sync(group, base, leader) + __popc(group & ((1u << lane) - 1));
    const uint32_t size = 1u << c.log_slots;
    until(c, idx + 1 - size, s, call);
    if (c.consumed != nullptr) {
        const uint32_t* mark = c.consumed + (idx & (size - 1));
        Patience p;
        for (;;) {
            uint32_t v;
            asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(mark) : "memory");
            if (v == idx + 1 - size) break;
            if (s != nullptr)
                p.tick(*s, [&](const char* what, double sec) {
                    printf("kishmem: PE %d: %s (device, block %d thread %d): %s after %.1f s for descriptor slot %u's "
                           "result to be read by the thread that posted descriptor %u\n",
                           s->my_pe, call, blockIdx.x, threadIdx.x, what, sec, idx & (size - 1), idx - size);
                });
        }
    }
    return idx;
}

// The poster is done with slot idx's result (or it has none): the slot's next user may post.
__device__ __forceinline__ void consume(const kp::Channel& c, uint32_t idx) {
    if (c.consumed != nullptr)
        asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(c.consumed + (idx & ((1u << c.log_slots) - 1))), "r"(idx + 1)
                     : "memory");
}

// Writes descriptor (op, aux, pe, body) into a reserved slot: words 1..7, a system fence, word 0.
__device__ __forceinline__ void write_desc(const kp::Channel& c, uint32_t idx, uint8_t op, uint8_t aux, int pe,
                                          const kp::DescBody& b) {
    uint64_t* w = reinterpret_cast<uint64_t*>(kp::desc_slot(c, idx));
    w[1] = b.w[1];
    reinterpret_cast<ulonglong2*>(w)[1] = make_ulonglong2(b.w[2], b.w[3]);
    reinterpret_cast<ulonglong2*>(w)[2] = make_ulonglong2(b.w[4], b.w[5]);
    reinterpret_cast<ulonglong2*>(w)[3] = make_ulonglong2(b.w[6], b.w[7]);
    asm volatile("fence.acq_rel.sys;" ::: "memory");
    *reinterpret_cast<volatile uint64_t*>(w) = kp::desc_word0(idx + 1, op, aux, static_cast<uint32_t>(pe));
}

// Posts a descriptor; result: whether the caller will read the slot's result (then it calls
// consume after reading it).
// With a state, a wait for a free slot that takes too long says so, naming `call`.
__device__ __forceinline__ uint32_t post(const kp::Channel& c, uint8_t op, uint8_t aux, int pe, const kp::DescBody& b,
                                         bool result = false, const State* s = nullptr, const char* call = nullptr) {
    const uint32_t idx = reserve(c, s, call);
    write_desc(c, idx, op, aux, pe, b);
    if (!result) consume(c, idx);
    return idx;
}

// Until descriptor idx (and every one before it on the channel) is complete.
__device__ __forceinline__ void wait(const State& s, const kp::Channel& c, uint32_t idx, const char* call) {
    until(c, idx + 1, &s, call);
    if (*c.error != 0) trap_proxy(s, c, call);
}

static __device__ __noinline__ void put(const State& s, int pe, size_t roff, const void* src, size_t n, const char* call,
                                        bool nbi) {
    if (n == 0) return;
    const kp::Channel& c = channel(s);
    if (__isGlobal(src)) {
        const uint32_t idx = post(c, kp::kOpPut, 0, pe, kp::body_put(roff, reinterpret_cast<uint64_t>(src), n), false, &s, call);
        if (!nbi) wait(s, c, idx, call);
        return;
    }
    const char* sp = static_cast<const char*>(src);
    for (size_t done = 0; done < n; done += kp::kProxyInlineBytes) {
        const uint32_t len = static_cast<uint32_t>(n - done < kp::kProxyInlineBytes ? n - done : kp::kProxyInlineBytes);
        post(c, kp::kOpPutInline, static_cast<uint8_t>(len), pe, kp::body_inline(roff + done, sp + done, len), false, &s, call);
    }
}

// A value of n = 1..8 bytes (shmem_p, barrier flags); completes at quiet.
static __device__ __noinline__ void put_value(const State& s, int pe, size_t roff, uint64_t value, uint32_t n) {
    post(channel(s), kp::kOpPutInline, static_cast<uint8_t>(n), pe, kp::body_inline(roff, &value, n), false, &s, "shmem_p (or a device flag)");
}

static __device__ __noinline__ void get(const State& s, int pe, size_t roff, void* dst, size_t n, const char* call) {
    if (n == 0) return;
    const kp::Channel& c = channel(s);
    if (__isGlobal(dst)) {
        wait(s, c, post(c, kp::kOpGet, 0, pe, kp::body_get(roff, reinterpret_cast<uint64_t>(dst), n), false, &s, call), call);
        return;
    }
    char* dp = static_cast<char*>(dst);
    for (size_t done = 0; done < n; done += kp::kResultBytes) {
        const uint32_t len = static_cast<uint32_t>(n - done < kp::kResultBytes ? n - done : kp::kResultBytes);
        const uint32_t idx = post(c, kp::kOpGet, 0, pe, kp::body_get(roff + done, 0, len), true, &s, call);
        wait(s, c, idx, call);
        const volatile uint8_t* r = kp::result_slot(c, idx);
        for (uint32_t i = 0; i < len; ++i) dp[done + i] = r[i];
        consume(c, idx);
    }
}

// AMO `op` on the width-byte (4 or 8) word at roff; returns the old bit pattern.
static __device__ __noinline__ uint64_t amo(const State& s, int pe, size_t roff, AmoOp op, unsigned width, uint64_t v, uint64_t c,
                                            const char* call) {
    const kp::Channel& ch = channel(s);
    const uint8_t aux = static_cast<uint8_t>(static_cast<unsigned>(op) | (width == 8 ? kp::kAmoWide : 0));
    const uint32_t idx = post(ch, kp::kOpAmo, aux, pe, kp::body_amo(roff, v, c), true, &s, call);
    wait(s, ch, idx, call);
    const uint64_t old = *reinterpret_cast<const volatile uint64_t*>(kp::result_slot(ch, idx));
    consume(ch, idx);
    return old;
}

static __device__ __noinline__ void put_signal(const State& s, int pe, size_t roff, const void* src, size_t n, size_t sig_off,
                                               uint64_t value, int op, const char* call, bool nbi) {
    put(s, pe, roff, src, n, call, true);
    const kp::Channel& c = channel(s);
    const uint32_t idx = post(c, kp::kOpSignal, static_cast<uint8_t>(op != 0), pe, kp::body_signal(sig_off, value), false, &s, call);
    if (!nbi && n != 0 && __isGlobal(src)) wait(s, c, idx, call);  // the source is reusable on return
}

// Every descriptor posted to any channel before the call is complete (this CTA's and, as
// for IBGDA, those of CTAs this thread may have synchronized with).
static __device__ __noinline__ void quiet(const State& s) {
    for (int i = 0; i < s.proxy->n; ++i) {
        const kp::Channel& c = s.proxy->channels[i];
        until(c, *reinterpret_cast<volatile uint32_t*>(c.resv), &s, "shmem_quiet");
        if (*c.error != 0) trap_proxy(s, c, "shmem_quiet");
    }
}

}  // namespace kishmem::device::proxy

#endif  // __CUDACC__
