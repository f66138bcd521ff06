// kishmem::ep::Buffer's calls: argument checks, the order of the calls, and the choice between
// the CPU form (host heap) and the GPU form (GPU heap). Creation: create.cpp.
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <vector>

#include "internal.h"
#include "kishmem/ep/numerics.h"

namespace kishmem::ep {

int Buffer::fail(int status, const char* call, const char* fmt, ...) {
    char m[512];
    int n = std::snprintf(m, sizeof m, "kishmem::ep::%s: PE %d: ", call, shmem_my_pe());
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(m + n, sizeof m - n, fmt, ap);
    va_end(ap);
    return note_error(status, m);
}

int Buffer::note_error(int status, const std::string& msg) {
    last_error_ = msg;
    last_status_ = status;
    std::fprintf(stderr, "kishmem: %s\n", msg.c_str());
    std::fflush(stderr);
    return status;
}

bool Buffer::mine(const Handle* h) const {
    return h && h->buffer == this && h->num_tokens >= 0 && h->num_tokens <= cfg_.max_tokens_per_pe;
}

int Buffer::dispatch_blocks(int num_tokens) const { return gpu_ ? GpuPath::send_blocks(*this, num_tokens) : 0; }
int Buffer::receive_blocks(int num_tokens) const { return gpu_ ? GpuPath::combine_blocks(*this, num_tokens) : 0; }

template <class Idx>
int Buffer::dispatch_any(cudaStream_t s, const void* x, const Idx* idx, int T, Received* out, Handle* h, bool send_only,
                         const char* refused) {
    // Out of order: refused; the round left open ends as its hook would have ended it, and the
    // peers are told so that none waits for this PE.
    if (recv_pending_) {  // the peers wait in this round's combine for this PE's: told (bad input)
        const int rc = fail(kBadOrder, "dispatch", "the previous dispatch (round %llu) was sent with send_only and its "
                                                   "dispatch_recv has not been called", static_cast<unsigned long long>(round_));
        const int done = finish_pending(s);
        return refuse_combine(s, done != kOk ? done : rc);
    }
    int rc = kOk;
    bool poison = false;
    if (comb_pending_) {  // the peers go on to the next dispatch: this one is refused as bad input, so that they report it
        rc = fail(kBadOrder, "dispatch", "the combine of round %llu was sent with send_only and its combine_recv has not "
                                         "been called", static_cast<unsigned long long>(comb_round_));
        if (const int done = finish_pending(s); done != kOk) return done;
        poison = true;
    }
    ++round_;
    // Bad arguments found here are reported before anything is sent; the peers are told (a
    // flag with the bad-input bit) so that they report it instead of waiting.
    if (poison) {
        // (refused above: this round goes out as bad input)
    } else if (refused) {
        rc = fail(kBadArgument, "dispatch", "%s", refused);
        poison = true;
    } else if (!h || !out) {
        rc = fail(kBadArgument, "dispatch", "%s is null", h ? "out" : "handle");
        poison = true;
    } else if (T < 0 || T > cfg_.max_tokens_per_pe) {
        rc = fail(kBadArgument, "dispatch", "num_tokens = %d but the buffer holds at most max_tokens_per_pe = %d", T,
                  cfg_.max_tokens_per_pe);
        poison = true;
    } else if (T > 0 && (!x || !idx)) {
        rc = fail(kBadArgument, "dispatch", "%s is null with num_tokens = %d", x ? "topk_idx" : "x", T);
        poison = true;
    } else if (T > 0 && gpu_ && !GpuPath::capturing(s) && (!GpuPath::is_device_memory(x) || !GpuPath::is_device_memory(idx))) {
        // (not a data read: where the pointer lives; skipped while a graph is captured)
        rc = fail(kBadArgument, "dispatch", "%s = %p is not GPU memory and the buffer is on the GPU", 
                  GpuPath::is_device_memory(x) ? "topk_idx" : "x", GpuPath::is_device_memory(x) ? (const void*)idx : x);
        poison = true;
    }
    const bool i64 = sizeof(Idx) == 8;
    const bool fuse = gpu_ && !send_only && !poison;  // the GPU send kernel also receives
    const long long t0 = clock_begin(kClockDispatch);
    int sent = gpu_ ? GpuPath::dispatch_send(*this, s, x, idx, i64, poison ? 0 : T, poison, fuse)
                    : HostPath::dispatch_send(*this, static_cast<const uint16_t*>(x), idx, i64, poison ? 0 : T, poison);
    if (rc != kOk) return rc;
    if (sent != kOk) return sent;
    h->buffer = this;
    h->round = round_;
    h->num_tokens = T;
    h->dispatch_received = false;
    h->combine_sent = false;
    recv_pending_ = true;
    const View v{base_};
    out->x = v.recv_x(layout_);
    out->scales = cfg_.format == Format::fp8_e4m3 ? v.recv_scales(layout_) : nullptr;
    out->count = v.recv_count(layout_);
    out->src = v.recv_src(layout_);
    out->local_experts = layout_.L;
    out->max_recv = layout_.R;
    if (!send_only) {  // received in this call: by the GPU's send kernel (fuse), or here (and in its time)
        recv_pending_ = false;
        h->dispatch_received = true;
        if (!gpu_) rc = HostPath::dispatch_recv(*this);
    }
    if (rc == kOk) clock_end(kClockDispatch, t0);
    return rc;
}

int Buffer::dispatch(cudaStream_t s, const void* x, const int32_t* idx, int T, Received* out, Handle* h, bool send_only) {
    return dispatch_any(s, x, idx, T, out, h, send_only);
}
int Buffer::dispatch(cudaStream_t s, const void* x, const int64_t* idx, int T, Received* out, Handle* h, bool send_only) {
    return dispatch_any(s, x, idx, T, out, h, send_only);
}

int Buffer::refuse_dispatch(cudaStream_t s, const char* why) {
    return dispatch_any<int32_t>(s, nullptr, nullptr, 0, nullptr, nullptr, false, why ? why : "refused by the caller");
}

int Buffer::refuse_combine(cudaStream_t s, const char* call, const char* why) {
    const bool hook = call && std::strcmp(call, "combine_recv") == 0;
    return refuse_combine(s, fail(kBadArgument, hook ? "combine_recv" : "combine", "%s", why ? why : "refused by the caller"));
}

int Buffer::dispatch_recv(cudaStream_t s, Handle* h) {
    if (!mine(h) || h->round != round_ || !recv_pending_) {
        const int rc = fail(kBadOrder, "dispatch_recv", "no dispatch of this handle waits for its receive (handle %s, "
                                                        "round %llu; buffer round %llu)",
                            !h ? "null" : mine(h) ? "of this buffer" : "not of this buffer",
                            h ? static_cast<unsigned long long>(h->round) : 0ull, static_cast<unsigned long long>(round_));
        if (!recv_pending_) return rc;  // (a hook called twice: nothing waits)
        // The round's receive is owed and the peers wait in its combine for this PE's: the round
        // ends here, and they are told (the right hook can no longer be called).
        const int done = finish_pending(s);
        return refuse_combine(s, done != kOk ? done : rc);
    }
    recv_pending_ = false;
    h->dispatch_received = true;
    const long long t0 = clock_begin(kClockDispatchRecv);
    const int rc = gpu_ ? GpuPath::dispatch_recv(*this, s) : HostPath::dispatch_recv(*this);
    if (rc == kOk) clock_end(kClockDispatchRecv, t0);
    return rc;
}

// Bad calls of combine and of its hook are refused before anything is sent. Where this PE
// still owes the round's combine, the peers wait for it: they are told (refuse_combine).
int Buffer::combine(cudaStream_t s, const void* expert_out, const float* w, void* out, Handle* h, bool send_only) {
    int rc = kOk;
    if (!h) {
        rc = fail(kBadArgument, "combine", "handle is null");
    } else if (!mine(h)) {
        rc = fail(kBadArgument, "combine", "the handle is not one this buffer's dispatch made (num_tokens %d)", h->num_tokens);
    } else if (h->round != round_ || !h->dispatch_received || h->combine_sent) {
        rc = fail(kBadOrder, "combine", "the handle (round %llu) is not that of this buffer's last received dispatch "
                                        "(round %llu), or its combine was already sent",
                  static_cast<unsigned long long>(h->round), static_cast<unsigned long long>(round_));
    } else if (comb_pending_) {
        rc = fail(kBadOrder, "combine", "the previous combine was sent with send_only and its combine_recv has not been called");
    } else if (!expert_out || !out || (h->num_tokens > 0 && !w)) {
        rc = fail(kBadArgument, "combine", "%s is null", !expert_out ? "expert_out" : !out ? "out" : "topk_weights");
    } else if (gpu_ && !GpuPath::capturing(s)) {
        // (not a data read: where the pointer lives; skipped while a graph is captured)
        const char* names[] = {"expert_out", "out", "topk_weights"};
        const void* ptrs[] = {expert_out, out, h->num_tokens > 0 ? w : nullptr};
        for (int i = 0; i < 3 && rc == kOk; ++i)
            if (ptrs[i] && !GpuPath::is_device_memory(ptrs[i]))
                rc = fail(kBadArgument, "combine", "%s = %p is not GPU memory and the buffer is on the GPU", names[i], ptrs[i]);
    }
    if (rc != kOk) return refuse_combine(s, rc);
    h->combine_sent = true;
    comb_pending_ = true;
    comb_round_ = round_;
    comb_tokens_ = h->num_tokens;
    out_ = out;
    weights_ = w;
    const long long t0 = clock_begin(kClockCombine);
    if (gpu_) {  // one kernel unless send_only (its receive needs no hook then)
        if (!send_only) comb_pending_ = false;
        return GpuPath::combine_send(*this, s, expert_out, w, out, h->num_tokens, !send_only);
    }
    rc = HostPath::combine_send(*this, static_cast<const uint16_t*>(expert_out));
    if (rc == kOk && !send_only) {  // the receive, in this call (and in its time)
        comb_pending_ = false;
        rc = HostPath::combine_recv(*this, w, static_cast<uint16_t*>(out), h->num_tokens);
    }
    if (rc == kOk) clock_end(kClockCombine, t0);
    return rc;
}

int Buffer::combine_recv(cudaStream_t s, Handle* h) {
    if (!mine(h) || h->round != round_ || !h->combine_sent || !comb_pending_)
        return refuse_combine(s, fail(kBadOrder, "combine_recv", "no combine of this handle waits for its receive (handle "
                                                                 "round %llu, buffer round %llu, combine %s)",
                                      h ? static_cast<unsigned long long>(h->round) : 0ull,
                                      static_cast<unsigned long long>(round_), comb_pending_ ? "sent" : "not sent"));
    comb_pending_ = false;
    const long long t0 = clock_begin(kClockCombineRecv);
    const int rc = gpu_ ? GpuPath::combine_recv(*this, s, weights_, out_, h->num_tokens)
                        : HostPath::combine_recv(*this, weights_, static_cast<uint16_t*>(out_), h->num_tokens);
    if (rc == kOk) clock_end(kClockCombineRecv, t0);
    return rc;
}

int Buffer::received_bf16(cudaStream_t s, const Handle* h, void* out) {
    if (!h) return fail(kBadArgument, "received_bf16", "handle is null");
    if (!mine(h))
        return fail(kBadArgument, "received_bf16", "the handle is not one this buffer's dispatch made (num_tokens %d)",
                    h->num_tokens);
    if (h->round != round_ || !h->dispatch_received)
        return fail(kBadOrder, "received_bf16", "the handle (round %llu) is not that of this buffer's last received "
                                                "dispatch (round %llu%s)", static_cast<unsigned long long>(h->round),
                    static_cast<unsigned long long>(round_), recv_pending_ ? ", its dispatch_recv not yet called" : "");
    if (!out) return fail(kBadArgument, "received_bf16", "out is null");
    if (gpu_) {
        if ((reinterpret_cast<uintptr_t>(out) & 15) != 0)
            return fail(kBadArgument, "received_bf16", "out = %p is not 16-byte aligned", out);
        if (!GpuPath::capturing(s) && !GpuPath::is_device_memory(out))
            return fail(kBadArgument, "received_bf16", "out = %p is not GPU memory and the buffer is on the GPU", out);
        return GpuPath::received_bf16(*this, s, out);
    }
    HostPath::received_bf16(*this, static_cast<uint16_t*>(out));
    return kOk;
}

int Buffer::finish_pending(cudaStream_t s) {
    int rc = kOk;
    if (recv_pending_) {
        recv_pending_ = false;
        rc = gpu_ ? GpuPath::dispatch_recv(*this, s) : HostPath::dispatch_recv(*this);
    } else if (comb_pending_) {
        comb_pending_ = false;
        rc = gpu_ ? GpuPath::combine_recv(*this, s, weights_, out_, comb_tokens_)
                  : HostPath::combine_recv(*this, weights_, static_cast<uint16_t*>(out_), comb_tokens_);
    }
    return rc;
}

int Buffer::refuse_combine(cudaStream_t s, int status) {
    if (round_ != 0 && comb_round_ == round_ && comb_pending_) {
        // The combine went out, its hook is refused (it can no longer be called): on the GPU, PEs
        // that let this one read their expert_out in place wait for its acknowledgement.
        comb_pending_ = false;
        const int told = gpu_ ? GpuPath::combine_acknowledge(*this, s) : kOk;
        return told != kOk ? told : status;
    }
    if (round_ == 0 || comb_round_ == round_) return status;  // no combine owed: no peer waits for this PE
    comb_round_ = round_;
    const int told = gpu_ ? GpuPath::combine_bad_input(*this, s) : HostPath::combine_bad_input(*this);
    return told != kOk ? told : status;
}

int Buffer::check(cudaStream_t s) {
    if (gpu_) return GpuPath::check(*this, s);
    return last_error_.empty() ? kOk : last_status_;
}

std::string describe(const ErrorRecord& e, const Layout& l) {
    char m[512];
    switch (e.code) {
        case kErrIndex:
            std::snprintf(m, sizeof m, "kishmem::ep::dispatch: PE %d: topk_idx[%d][%d] = %lld is not an expert "
                                       "(valid: -1 for none, 0..%d); nothing was sent", shmem_my_pe(), e.token, e.k, e.value, l.E - 1);
            break;
        case kErrDuplicate:
            std::snprintf(m, sizeof m, "kishmem::ep::dispatch: PE %d: topk_idx[%d][%d] = %lld repeats an expert of the same "
                                       "token; nothing was sent", shmem_my_pe(), e.token, e.k, e.value);
            break;
        case kErrPeerBad:
        case kErrPeerBadCombine:
            std::snprintf(m, sizeof m, "kishmem::ep::%s: PE %d: PE %d reported bad input in round %lld and sent nothing",
                          e.code == kErrPeerBad ? "dispatch_recv" : "combine_recv", shmem_my_pe(), e.from_pe, e.value);
            break;
        default: std::snprintf(m, sizeof m, "kishmem::ep: PE %d: error code %d", shmem_my_pe(), e.code);
    }
    return m;
}

}  // namespace kishmem::ep
