// kishmem::ep::Buffer creation, collective over SHMEM_TEAM_WORLD (the symmetric allocation is):
//   1. every PE publishes one row (its configuration, team, heap kind, block size) to every PE;
//      each PE checks every row, so a problem on one PE stops all of them, each with one
//      message naming the PE at fault and why, before anything is allocated;
//   2. the block is allocated and set up (zeroed, the GPU form started); every PE publishes
//      whether its part worked, and a PE that failed stops every PE the same way.
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "internal.h"
#include "kishmem/ep/numerics.h"

namespace kishmem::ep {
namespace {

constexpr int kMaxHidden = 1 << 16;  // channels per token (the widest models have 16-32 K)

const char* const kCall = "kishmem::ep::Buffer::create";
int g_injected = kPartOk;  // testing::fail_next_create

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
    l.stage_rows = default_sms(c) * 8;  // combine staging rows: one each for the first num_sms * 8 warps of its push
    l.comb_out_on = c.combine_buffer;
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
    else if (c.hidden > kMaxHidden) std::snprintf(m, sizeof m, "hidden = %d: at most %d", c.hidden, kMaxHidden);
    else if (static_cast<long long>(c.num_experts) * c.max_tokens_per_pe > INT_MAX)  // (rows are numbered in int)
        std::snprintf(m, sizeof m, "max_tokens_per_pe x num_experts = %d x %d receive rows: at most %d", c.max_tokens_per_pe,
                      c.num_experts, INT_MAX);
    else if (c.format != Format::fp8_e4m3 && c.format != Format::bf16)
        std::snprintf(m, sizeof m, "format = %d is neither bf16 nor fp8_e4m3", static_cast<int>(c.format));
    else if (c.num_sms < 0 || c.num_sms > 1024) std::snprintf(m, sizeof m, "num_sms = %d must be in 0..1024", c.num_sms);
    else return "";
    return m;
}

// One PE's row of step 1.
enum Word { kT, kH, kK, kE, kFmt, kSms, kCombBuf, kNumSms, kTeamN, kTeamMe, kGpu, kPe, kTotal, kGpuId, kWords };
constexpr int kCompared = kNumSms;  // words 0..6 must be equal within a team
const char* const kNames[kCompared] = {"max_tokens_per_pe", "hidden", "topk", "num_experts", "format", "num_sms",
                                       "combine_buffer"};

Config config_of(const long long* r) {
    Config c;
    c.max_tokens_per_pe = static_cast<int>(r[kT]);
    c.hidden = static_cast<int>(r[kH]);
    c.topk = static_cast<int>(r[kK]);
    c.num_experts = static_cast<int>(r[kE]);
    c.format = static_cast<Format>(r[kFmt]);
    c.num_sms = static_cast<int>(r[kNumSms]);
    c.combine_buffer = r[kCombBuf] != 0;
    return c;
}

// What is wrong with PE p's row (p != this PE), "" when nothing: its team, its configuration
// on its own, its block size or heap kind against this PE's, its configuration against this
// PE's when p is in this PE's team.
std::string row_problem(const long long* r, const long long* mine, shmem_team_t team) {
    char m[384];
    const long long p = r[kPe];
    if (r[kTeamMe] < 0) {
        std::snprintf(m, sizeof m, "PE %lld passed a team that is invalid or does not hold it", p);
        return m;
    }
    const std::string why = invalid_reason(config_of(r), static_cast<int>(r[kTeamN]));
    if (!why.empty()) return "the configuration of PE " + std::to_string(p) + " is not valid: " + why;
    const bool same_team = shmem_team_translate_pe(SHMEM_TEAM_WORLD, static_cast<int>(p), team) >= 0;
    for (int i = 0; same_team && i < kCompared; ++i)
        if (r[i] != mine[i]) {
            std::snprintf(m, sizeof m, "%s = %lld here but %lld on PE %lld: every PE must pass the same configuration",
                          kNames[i], mine[i], r[i], p);
            return m;
        }
    if (r[kGpu] != mine[kGpu]) {
        std::snprintf(m, sizeof m, "the heap is in %s memory here but in %s memory on PE %lld", mine[kGpu] ? "GPU" : "host",
                      r[kGpu] ? "GPU" : "host", p);
        return m;
    }
    if (r[kTotal] != mine[kTotal]) {
        std::snprintf(m, sizeof m, "the buffer takes %lld bytes here but %lld on PE %lld: every PE allocates the same block "
                                   "(same configuration and team size)", mine[kTotal], r[kTotal], p);
        return m;
    }
    return "";
}

// Why a PE's part of step 2 failed (code: PartFailure), worded for any PE.
std::string part_reason(int code, const Config& c, int npes, size_t total) {
    char m[512];
    if (code == kPartNoBlock) {
        const size_t mib = (total + (1u << 20) - 1) >> 20;
        std::snprintf(m, sizeof m, "the buffer needs %zu bytes of symmetric heap (max_tokens_per_pe %d, hidden %d, topk %d, "
                                   "num_experts %d, %s, %d PEs%s) and the heap cannot hold it: set SHMEM_SYMMETRIC_SIZE=%zuM "
                                   "or more (this buffer alone; add the program's other symmetric allocations)",
                      total, c.max_tokens_per_pe, c.hidden, c.topk, c.num_experts, fmt_name(c.format), npes,
                      c.combine_buffer ? ", with its combine buffer" : "", mib + 1);
    } else {
        std::snprintf(m, sizeof m, "the heap is in GPU memory but the GPU form cannot start (no GPU support in this build, "
                                   "or no host-mapped memory for its error record)");
    }
    return m;
}

std::string report(std::string* error, const std::string& what) {
    char m[640];
    std::snprintf(m, sizeof m, "%s: PE %d: %s", kCall, shmem_my_pe(), what.c_str());
    std::fprintf(stderr, "kishmem: %s\n", m);
    std::fflush(stderr);
    if (error) *error = m;
    return m;
}

}  // namespace

namespace testing {
void fail_next_create(int code) { g_injected = code; }
}  // namespace testing

size_t Buffer::bytes_for(const Config& cfg, int npes) { return npes > 0 ? make_layout(cfg, npes, 0).total : 0; }

std::unique_ptr<Buffer> Buffer::create(shmem_team_t team, const Config& cfg, std::string* error) {
    const int wpe = shmem_my_pe(), wn = shmem_n_pes();
    const bool in_team = team != SHMEM_TEAM_INVALID && shmem_team_my_pe(team) >= 0;
    const int npes = in_team ? shmem_team_n_pes(team) : 0, me = in_team ? shmem_team_my_pe(team) : -1;
    const int injected = g_injected;
    g_injected = kPartOk;

    // 1. Rows of every PE: [wn][kWords], then this PE's own row.
    const size_t row = kWords * sizeof(long long);
    auto* all = static_cast<long long*>(shmem_malloc(row * (wn + 1)));
    if (!all) {
        report(error, "no symmetric heap left for " + std::to_string(row * (wn + 1)) + " bytes: raise SHMEM_SYMMETRIC_SIZE");
        return nullptr;
    }
    long long* mine = all + static_cast<size_t>(wn) * kWords;
    const std::string own = !in_team ? "the team is invalid or does not hold this PE" : invalid_reason(cfg, npes);
    const bool gpu = GpuPath::is_device_memory(all);
    const Layout layout = make_layout(cfg, own.empty() ? npes : 1, own.empty() ? me : 0);
    const long long row_host[kWords] = {cfg.max_tokens_per_pe, cfg.hidden, cfg.topk, cfg.num_experts,
                                        static_cast<long long>(cfg.format), default_sms(cfg), cfg.combine_buffer ? 1 : 0, cfg.num_sms, npes, me,
                                        gpu ? 1 : 0, wpe, own.empty() ? static_cast<long long>(layout.total) : 0,
                                        gpu ? GpuPath::device_id() : 0};
    shmem_putmem(mine, row_host, row, wpe);
    shmem_quiet();
    shmem_fcollectmem(SHMEM_TEAM_WORLD, all, mine, row);
    std::vector<long long> got(static_cast<size_t>(wn) * kWords);
    shmem_getmem(got.data(), all, got.size() * sizeof(long long), wpe);
    std::string msg = own;
    for (int p = 0; p < wn && msg.empty(); ++p)
        if (p != wpe) msg = row_problem(&got[static_cast<size_t>(p) * kWords], row_host, team);
    if (!msg.empty()) {
        report(error, msg);
        shmem_free(all);
        return nullptr;
    }

    // 2. The block (same size on every PE, agreed above) and this PE's part of the setup.
    std::unique_ptr<Buffer> b(new Buffer());
    b->cfg_ = cfg;
    b->team_ = team;
    b->gpu_ = gpu;
    b->sms_ = default_sms(cfg);
    b->layout_ = layout;
    for (int p = 0; p < wn; ++p)  // the team's PEs on this GPU (kernels that wait share its SMs)
        b->gpu_sharers_ += p != wpe && row_host[kGpuId] != 0 && got[static_cast<size_t>(p) * kWords + kGpuId] == row_host[kGpuId] &&
                           shmem_team_translate_pe(SHMEM_TEAM_WORLD, p, team) >= 0;
    b->base_ = static_cast<char*>(shmem_malloc(layout.total));
    int part = b->base_ ? kPartOk : kPartNoBlock;
    if (part == kPartOk && gpu && GpuPath::init(*b) != kOk) part = kPartGpuStart;
    if (part == kPartOk) {
        std::vector<int> pe_of(npes);
        for (int r = 0; r < npes; ++r) pe_of[r] = shmem_team_translate_pe(team, r, SHMEM_TEAM_WORLD);
        void* dst = View{b->base_}.pe_of(layout);
        if (gpu) {
            if (GpuPath::copy_to_device(dst, pe_of.data(), pe_of.size() * sizeof(int)) != kOk) part = kPartGpuStart;
        } else {
            std::memset(b->base_, 0, layout.total);
            std::memcpy(dst, pe_of.data(), pe_of.size() * sizeof(int));
        }
    }
    const bool had_block = b->base_ != nullptr, started = gpu && b->err_host_ != nullptr;  // GpuPath::init succeeded
    if (injected != kPartOk && part == kPartOk) part = injected;
    // Every PE's part (this exchange also orders every PE's zeroing before anyone's first send).
    const long long part_word = part;
    shmem_putmem(mine, &part_word, sizeof part_word, wpe);  // (the row may be GPU memory: no host store)
    shmem_quiet();
    shmem_fcollectmem(SHMEM_TEAM_WORLD, all, mine, sizeof(long long));
    std::vector<long long> parts(wn);
    shmem_getmem(parts.data(), all, parts.size() * sizeof(long long), wpe);
    int failed = part != kPartOk ? wpe : -1;
    bool every_block = true;
    for (int p = 0; p < wn; ++p) {
        if (parts[p] != kPartOk && failed < 0) failed = p;
        every_block = every_block && parts[p] != kPartNoBlock;
    }
    shmem_free(all);
    if (failed < 0) return b;
    const std::string why = part_reason(static_cast<int>(parts[failed]), cfg, npes, layout.total);
    report(error, failed == wpe ? why : "PE " + std::to_string(failed) + " could not make its part of the buffer: " + why);
    if (started) GpuPath::fini(*b);
    // The block is freed where every PE has one (shmem_free is collective); where some PE has
    // none it stays allocated: a free without a block there would not match.
    if (every_block && had_block) shmem_free(b->base_);
    b->base_ = nullptr;
    return nullptr;
}

Buffer::~Buffer() {
    if (!base_) return;
    if (gpu_) GpuPath::fini(*this);
    shmem_free(base_);
}

}  // namespace kishmem::ep
