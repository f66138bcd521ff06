// kishmem::ep::Buffer: collective creation (configuration agreed by every PE, heap checked),
// argument checks of the calls, and the choice between the CPU form (host heap) and the GPU
// form (GPU heap).
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <vector>

#include "internal.h"
#include "kishmem/ep/numerics.h"

namespace kishmem::ep {
namespace {

const char* fmt_name(Format f) { return f == Format::fp8_e4m3 ? "fp8_e4m3" : "bf16"; }

int default_sms(const Config& c) {
    const int want = c.num_sms > 0 ? c.num_sms : (c.max_tokens_per_pe < 128 ? c.max_tokens_per_pe : 128);
    // every send block handles at most 1024 (token, k) entries: ceil(T / blocks) tokens of K
    const int per = c.topk > 0 && c.topk <= 1024 ? 1024 / c.topk : 1;
    const int floor = (c.max_tokens_per_pe + per - 1) / per;
    return want > floor ? want : floor;
}

Layout make_layout(const Config& c, int npes, int me) {
    Layout l;
    l.npes = npes;
    l.me = me;
    l.T = c.max_tokens_per_pe;
    l.H = c.hidden;
    l.K = c.topk;
    l.E = c.num_experts;
    l.L = npes > 0 ? c.num_experts / npes : 0;
    l.R = npes * c.max_tokens_per_pe;
    l.fmt = c.format;
    l.G = c.format == Format::fp8_e4m3 ? c.hidden / kScaleGroup : 0;
    l.xb = c.format == Format::fp8_e4m3 ? 1 : 2;
    l.stage_rows = default_sms(c) * 8;  // one row per warp of the combine send kernel (8 warps a block)
    carve(l);
    return l;
}

// Why a configuration is not valid on its own ("" when it is).
std::string invalid_reason(const Config& c, int npes) {
    char m[256];
    if (c.max_tokens_per_pe < 1) std::snprintf(m, sizeof m, "max_tokens_per_pe = %d must be at least 1", c.max_tokens_per_pe);
    else if (c.hidden < 1) std::snprintf(m, sizeof m, "hidden = %d must be at least 1", c.hidden);
    else if (c.format == Format::fp8_e4m3 && c.hidden % 128)
        std::snprintf(m, sizeof m, "hidden = %d must be a multiple of 128 for FP8 dispatch (one scale per 128 channels)", c.hidden);
    else if (c.hidden % 8) std::snprintf(m, sizeof m, "hidden = %d must be a multiple of 8", c.hidden);
    else if (c.topk < 1 || c.topk > 16) std::snprintf(m, sizeof m, "topk = %d must be in 1..16", c.topk);
    else if (c.num_experts < 1 || c.num_experts % npes)
        std::snprintf(m, sizeof m, "num_experts = %d must be a positive multiple of the team size %d", c.num_experts, npes);
    else if (c.num_experts > 4096) std::snprintf(m, sizeof m, "num_experts = %d: at most 4096", c.num_experts);
    else if (c.topk > c.num_experts) std::snprintf(m, sizeof m, "topk = %d is more than num_experts = %d", c.topk, c.num_experts);
    else if (c.format != Format::fp8_e4m3 && c.format != Format::bf16)
        std::snprintf(m, sizeof m, "format = %d is neither bf16 nor fp8_e4m3", static_cast<int>(c.format));
    else if (c.num_sms < 0 || c.num_sms > 1024) std::snprintf(m, sizeof m, "num_sms = %d must be in 0..1024", c.num_sms);
    else return "";
    return m;
}

void report(std::string* error, const std::string& msg) {
    std::fprintf(stderr, "kishmem: %s\n", msg.c_str());
    std::fflush(stderr);
    if (error) *error = msg;
}

}  // namespace

size_t Buffer::bytes_for(const Config& cfg, int npes) { return npes > 0 ? make_layout(cfg, npes, 0).total : 0; }

std::unique_ptr<Buffer> Buffer::create(shmem_team_t team, const Config& cfg, std::string* error) {
    const char* call = "kishmem::ep::Buffer::create";
    const int wpe = shmem_my_pe();
    char m[512];
    if (team == SHMEM_TEAM_INVALID || shmem_team_my_pe(team) < 0) {
        std::snprintf(m, sizeof m, "%s: PE %d: the team is invalid or does not hold this PE", call, wpe);
        report(error, m);
        return nullptr;
    }
    const int npes = shmem_team_n_pes(team), me = shmem_team_my_pe(team);

    // 1. Agree: every PE's configuration, its validity and its heap kind, through a small
    //    symmetric array (collected over the team).
    constexpr int kWords = 10;
    const size_t row = kWords * sizeof(long long);
    auto* all = static_cast<long long*>(shmem_malloc(row * (shmem_n_pes() + 1)));
    if (!all) {
        std::snprintf(m, sizeof m, "%s: PE %d: no symmetric heap left for %zu bytes: raise SHMEM_SYMMETRIC_SIZE", call, wpe,
                      row * (shmem_n_pes() + 1));
        report(error, m);
        return nullptr;
    }
    long long* mine = all + static_cast<size_t>(shmem_n_pes()) * kWords;
    const std::string why = invalid_reason(cfg, npes);
    const bool gpu = GpuPath::is_device_memory(all);
    const long long row_host[kWords] = {cfg.max_tokens_per_pe, cfg.hidden, cfg.topk, cfg.num_experts,
                                        static_cast<long long>(cfg.format), default_sms(cfg), why.empty() ? 1 : 0,
                                        gpu ? 1 : 0, wpe, 0};
    shmem_putmem(mine, row_host, row, wpe);
    shmem_quiet();
    shmem_fcollectmem(team, all, mine, row);
    std::vector<long long> got(static_cast<size_t>(npes) * kWords);
    shmem_getmem(got.data(), all, got.size() * sizeof(long long), wpe);
    shmem_free(all);

    static const char* names[] = {"max_tokens_per_pe", "hidden", "topk", "num_experts", "format", "num_sms"};
    std::string msg;
    if (!why.empty()) {
        std::snprintf(m, sizeof m, "%s: PE %d: %s", call, wpe, why.c_str());
        msg = m;
    }
    for (int p = 0; p < npes && msg.empty(); ++p) {
        const long long* r = &got[static_cast<size_t>(p) * kWords];
        if (!r[6]) {
            std::snprintf(m, sizeof m, "%s: PE %d: the configuration of PE %lld is not valid (it says why)", call, wpe, r[8]);
            msg = m;
            break;
        }
        for (int i = 0; i < 6; ++i)
            if (r[i] != row_host[i]) {
                std::snprintf(m, sizeof m, "%s: PE %d: %s = %lld here but %lld on PE %lld: every PE must pass the same configuration",
                              call, wpe, names[i], row_host[i], r[i], r[8]);
                msg = m;
                break;
            }
        if (msg.empty() && r[7] != row_host[7]) {
            std::snprintf(m, sizeof m, "%s: PE %d: the heap is in %s memory here but in %s memory on PE %lld", call, wpe,
                          gpu ? "GPU" : "host", r[7] ? "GPU" : "host", r[8]);
            msg = m;
        }
    }
    if (!msg.empty()) {
        report(error, msg);
        return nullptr;
    }

    // 2. The block: same size on every PE (agreed above), so shmem_malloc fails on all or none.
    std::unique_ptr<Buffer> b(new Buffer());
    b->cfg_ = cfg;
    b->team_ = team;
    b->gpu_ = gpu;
    b->sms_ = default_sms(cfg);
    b->layout_ = make_layout(cfg, npes, me);
    const size_t total = b->layout_.total;
    b->base_ = static_cast<char*>(shmem_malloc(total));
    if (!b->base_) {
        const size_t mib = (total + (1u << 20) - 1) >> 20;
        std::snprintf(m, sizeof m,
                      "%s: PE %d: the buffer needs %zu bytes of symmetric heap (max_tokens_per_pe %d, hidden %d, topk %d, "
                      "num_experts %d, %s, %d PEs) and the heap cannot hold it: set SHMEM_SYMMETRIC_SIZE=%zuM or more "
                      "(this buffer alone; add the program's other symmetric allocations)",
                      call, wpe, total, cfg.max_tokens_per_pe, cfg.hidden, cfg.topk, cfg.num_experts, fmt_name(cfg.format),
                      npes, mib + 1);
        report(error, m);
        return nullptr;
    }
    // 3. Local words zeroed, the team's world PE numbers, then everyone ready before any send.
    std::vector<int> pe_of(npes);
    for (int r = 0; r < npes; ++r) pe_of[r] = shmem_team_translate_pe(team, r, SHMEM_TEAM_WORLD);
    if (gpu) {
        const int rc = GpuPath::init(*b);
        if (rc != kOk) {
            std::snprintf(m, sizeof m, "%s: PE %d: the heap is in GPU memory but the GPU form cannot start (no GPU support "
                                       "in this build, or no host-mapped memory for its error record)", call, wpe);
            report(error, m);
            shmem_free(b->base_);
            b->base_ = nullptr;
            return nullptr;
        }
        GpuPath::copy_to_device(View{b->base_}.pe_of(b->layout_), pe_of.data(), pe_of.size() * sizeof(int));
    } else {
        std::memset(b->base_, 0, total);
        std::memcpy(View{b->base_}.pe_of(b->layout_), pe_of.data(), pe_of.size() * sizeof(int));
    }
    shmem_barrier_all();
    return b;
}

Buffer::~Buffer() {
    if (!base_) return;
    if (gpu_) GpuPath::fini(*this);
    shmem_free(base_);
}

int Buffer::fail(int status, const char* call, const char* fmt, ...) {
    char m[512];
    int n = std::snprintf(m, sizeof m, "kishmem::ep::%s: PE %d: ", call, shmem_my_pe());
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(m + n, sizeof m - n, fmt, ap);
    va_end(ap);
    last_error_ = m;
    std::fprintf(stderr, "kishmem: %s\n", m);
    std::fflush(stderr);
    return status;
}

template <class Idx>
int Buffer::dispatch_any(cudaStream_t s, const void* x, const Idx* idx, int T, Received* out, Handle* h, bool send_only) {
    if (recv_pending_)
        return fail(kBadOrder, "dispatch", "the previous dispatch (round %llu) was sent with send_only and its "
                                           "dispatch_recv has not been called", static_cast<unsigned long long>(round_));
    ++round_;
    bool poison = false;
    int rc = kOk;
    // Bad arguments found here are reported before anything is sent; the peers are told (a
    // flag with the bad-input bit) so that they report it instead of waiting.
    if (!h || !out) {
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
    int sent = gpu_ ? GpuPath::dispatch_send(*this, s, x, idx, i64, poison ? 0 : T, poison, fuse)
                    : HostPath::dispatch_send(*this, static_cast<const uint16_t*>(x), idx, i64, poison ? 0 : T, poison);
    if (rc != kOk) return rc;
    if (sent != kOk) return sent;
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
    if (fuse) {
        recv_pending_ = false;
        h->dispatch_received = true;
        return kOk;
    }
    return send_only ? kOk : dispatch_recv(s, h);
}

int Buffer::dispatch(cudaStream_t s, const void* x, const int32_t* idx, int T, Received* out, Handle* h, bool send_only) {
    return dispatch_any(s, x, idx, T, out, h, send_only);
}
int Buffer::dispatch(cudaStream_t s, const void* x, const int64_t* idx, int T, Received* out, Handle* h, bool send_only) {
    return dispatch_any(s, x, idx, T, out, h, send_only);
}

int Buffer::dispatch_recv(cudaStream_t s, Handle* h) {
    if (!h || h->round != round_ || !recv_pending_)
        return fail(kBadOrder, "dispatch_recv", "no dispatch of this handle waits for its receive (handle round %llu, "
                                                "buffer round %llu)", h ? static_cast<unsigned long long>(h->round) : 0ull,
                    static_cast<unsigned long long>(round_));
    recv_pending_ = false;
    h->dispatch_received = true;
    return gpu_ ? GpuPath::dispatch_recv(*this, s) : HostPath::dispatch_recv(*this);
}

int Buffer::combine(cudaStream_t s, const void* expert_out, const float* w, void* out, Handle* h, bool send_only) {
    if (!h || h->round != round_ || !h->dispatch_received || h->combine_sent)
        return fail(kBadOrder, "combine", "the handle is not that of this buffer's last received dispatch, or its combine "
                                          "was already sent");
    if (comb_pending_)
        return fail(kBadOrder, "combine", "the previous combine was sent with send_only and its combine_recv has not been called");
    if (!expert_out || !out || (h->num_tokens > 0 && !w))
        return fail(kBadArgument, "combine", "%s is null", !expert_out ? "expert_out" : !out ? "out" : "topk_weights");
    h->combine_sent = true;
    comb_pending_ = true;
    out_ = out;
    weights_ = w;
    const int rc = gpu_ ? GpuPath::combine_send(*this, s, expert_out)
                        : HostPath::combine_send(*this, static_cast<const uint16_t*>(expert_out));
    if (rc != kOk) return rc;
    return send_only ? kOk : combine_recv(s, h);
}

int Buffer::combine_recv(cudaStream_t s, Handle* h) {
    if (!h || h->round != round_ || !h->combine_sent || !comb_pending_)
        return fail(kBadOrder, "combine_recv", "no combine of this handle waits for its receive");
    comb_pending_ = false;
    return gpu_ ? GpuPath::combine_recv(*this, s, weights_, out_, h->num_tokens)
                : HostPath::combine_recv(*this, weights_, static_cast<uint16_t*>(out_), h->num_tokens);
}

int Buffer::check(cudaStream_t s) {
    if (gpu_) return GpuPath::check(*this, s);
    return last_error_.empty() ? kOk : kPeerError;
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
            std::snprintf(m, sizeof m, "kishmem::ep::dispatch_recv: PE %d: PE %d reported bad input in round %lld and sent "
                                       "nothing", shmem_my_pe(), e.from_pe, e.value);
            break;
        default: std::snprintf(m, sizeof m, "kishmem::ep: PE %d: error code %d", shmem_my_pe(), e.code);
    }
    return m;
}

}  // namespace kishmem::ep
