// kishmem::ep buffer layout: one symmetric block per Buffer, carved into regions at the same
// offsets on every PE. Plain data, host and device (kernels take a Layout, not raw pointers).
// The byte formula of every region is written next to the line that carves it (carve()).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "kishmem/device/hd.h"

namespace kishmem::ep {

enum class Format : int { bf16 = 0, fp8_e4m3 = 1 };

// Where a received token came from: team rank of the sender, its token index, which of its
// top-k entries sent it here, and the dispatch round (1, 2, ...). 16 bytes: a remote sender
// stages it in send_src and puts it whole (one work request).
struct alignas(16) SrcInfo {
    int32_t pe;
    int32_t token;
    int32_t k;
    int32_t round;
};

// Where this PE's entry (t, k) went in the last dispatch: the expert's team rank (-1: not
// sent) and the row it took there (expert % L) * R + row.
struct Entry {
    int32_t rank;
    int32_t slot;
};

// Words the kernels keep for themselves (local, never written by peers).
struct LocalState {
    uint64_t round;          // dispatch rounds received so far (the hook of dispatch advances it)
    uint32_t done_dispatch;  // blocks of the dispatch send kernel that finished (the last one signals remote PEs)
    uint32_t done_combine;   // the same for combine
    uint32_t wait_reads;     // GPU form: the last combine's send waits for the token PEs' reads of expert_out (read in place, not comb_out)
    uint32_t done_read;      // blocks of the combine receive that finished reading (the last one acknowledges)
};

struct Layout {
    // shape
    int npes = 0;    // team size (expert-parallel size)
    int me = 0;      // this PE's rank in the team
    int T = 0;       // max_tokens_per_pe
    int H = 0;       // hidden
    int K = 0;       // topk
    int E = 0;       // num_experts
    int L = 0;       // local experts per PE: E / npes
    int R = 0;       // max_recv: rows per local expert, npes * T (every token of every PE)
    int G = 0;       // scale groups per token: H / 128 (FP8 only, else 0)
    int xb = 0;      // bytes per dispatched element: 1 (FP8) or 2 (bf16)
    int stage_rows = 0;  // combine staging rows (one each for the first stage_rows warps of its push)
    int comb_out_on = 0; // Config::combine_buffer: the block ends with comb_out
    Format fmt = Format::fp8_e4m3;
    // byte offsets from the start of the symmetric block
    size_t recv_x = 0, recv_scales = 0, recv_src = 0, recv_count = 0, counter = 0, disp_flag = 0, comb_flag = 0,
           arrive = 0, comb_off = 0, comb_recv = 0, entry = 0, send_x = 0, send_scales = 0, send_src = 0, pe_of = 0, local = 0, stage = 0,
           comb_out = 0, total = 0;
};

KISHMEM_HD size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

// Fill the offsets of l from its shape. Every region starts on a 256-byte boundary.
KISHMEM_HD void carve(Layout& l) {
    const size_t A = 256, L = l.L, R = l.R, H = l.H, T = l.T, K = l.K, P = l.npes, G = l.G;
    size_t o = 0;
    auto take = [&](size_t& field, size_t bytes) {
        field = o;
        o = align_up(o + bytes, A);
    };
    // -- written by peers (symmetric) --
    take(l.recv_x, L * R * H * l.xb);   // recv_x       [L][R][H]      L*R*H*xb    (xb: 1 FP8, 2 bf16)
    take(l.recv_scales, L * R * G * 4); // recv_scales  [L][R][G]      L*R*(H/128)*4 float (FP8 only; G = 0 for bf16)
    take(l.recv_src, L * R * 16);       // recv_src     [L][R]         L*R*16      SrcInfo
    take(l.counter, 2 * L * 4);         // counter      [2][L]         2*L*4       int: rows taken per local expert, per round parity
    take(l.disp_flag, P * 8);           // disp_flag    [npes]         npes*8      uint64: dispatch round sender p finished (bit 62: bad input)
    take(l.comb_flag, P * 8);           // comb_flag    [npes]         npes*8      uint64: combine round sender p finished
    take(l.arrive, 3 * P * 8);          // arrive       [3][npes]      3*npes*8    uint64 (GPU form): per round PE p adds kArriveUnit (dispatch sent, combine sent); combine read: the round PE p last acknowledged
    take(l.comb_off, P * 8);            // comb_off     [npes]         npes*8      uint64 (GPU form): sender p's expert_out offset + kOffBias (pull; | kWaitsReadBit: it waits for the reads), 0 (pushed)
    take(l.comb_recv, T * K * H * 2);   // comb_recv    [T][K][H]      T*K*H*2     bf16: expert output for my token t, entry k
    // -- local to each PE (same offsets, never written by peers) --
    take(l.recv_count, L * 4);          // recv_count   [L]            L*4         int: rows received per local expert
    take(l.send_x, T * H * l.xb);       // send_x       [T][H]         T*H*xb      my tokens, quantized (FP8) or copied (bf16)
    take(l.send_scales, T * G * 4);     // send_scales  [T][G]         T*(H/128)*4 float
    take(l.entry, T * K * 8);           // entry        [T][K]         T*K*8       Entry: the rank and row entry (t, k) went to (rank -1: not sent)
    take(l.send_src, T * K * 16);       // send_src     [T][K]         T*K*16      SrcInfo: entry (t, k)'s, staged for its one put to recv_src
    take(l.pe_of, P * 4);               // pe_of        [npes]         npes*4      int: world PE of team rank r
    take(l.local, sizeof(LocalState));  // local        LocalState     24
    take(l.stage, l.stage_rows * H * 2);// stage        [rows][H]      rows*H*2    bf16: combine rows for peers reached only remotely
    // -- written by this PE's experts, read by the token PEs (Config::combine_buffer) --
    take(l.comb_out, l.comb_out_on ? L * R * H * 2 : 0);  // comb_out [L][R][H] L*R*H*2 bf16: expert outputs (Buffer::combine_buffer)
    l.total = o;
}

// Typed views of one PE's block (base: that PE's address of the block).
struct View {
    char* base;
    KISHMEM_HD uint8_t* recv_x(const Layout& l) const { return reinterpret_cast<uint8_t*>(base + l.recv_x); }
    KISHMEM_HD float* recv_scales(const Layout& l) const { return reinterpret_cast<float*>(base + l.recv_scales); }
    KISHMEM_HD SrcInfo* recv_src(const Layout& l) const { return reinterpret_cast<SrcInfo*>(base + l.recv_src); }
    KISHMEM_HD int* recv_count(const Layout& l) const { return reinterpret_cast<int*>(base + l.recv_count); }
    KISHMEM_HD int* counter(const Layout& l) const { return reinterpret_cast<int*>(base + l.counter); }
    KISHMEM_HD uint64_t* disp_flag(const Layout& l) const { return reinterpret_cast<uint64_t*>(base + l.disp_flag); }
    KISHMEM_HD uint64_t* comb_flag(const Layout& l) const { return reinterpret_cast<uint64_t*>(base + l.comb_flag); }
    KISHMEM_HD uint64_t* arrive(const Layout& l) const { return reinterpret_cast<uint64_t*>(base + l.arrive); }
    KISHMEM_HD uint64_t* comb_off(const Layout& l) const { return reinterpret_cast<uint64_t*>(base + l.comb_off); }
    KISHMEM_HD Entry* entry(const Layout& l) const { return reinterpret_cast<Entry*>(base + l.entry); }
    KISHMEM_HD uint16_t* comb_recv(const Layout& l) const { return reinterpret_cast<uint16_t*>(base + l.comb_recv); }
    KISHMEM_HD uint8_t* send_x(const Layout& l) const { return reinterpret_cast<uint8_t*>(base + l.send_x); }
    KISHMEM_HD float* send_scales(const Layout& l) const { return reinterpret_cast<float*>(base + l.send_scales); }
    KISHMEM_HD SrcInfo* send_src(const Layout& l) const { return reinterpret_cast<SrcInfo*>(base + l.send_src); }
    KISHMEM_HD int* pe_of(const Layout& l) const { return reinterpret_cast<int*>(base + l.pe_of); }
    KISHMEM_HD LocalState* local(const Layout& l) const { return reinterpret_cast<LocalState*>(base + l.local); }
    KISHMEM_HD uint16_t* stage(const Layout& l) const { return reinterpret_cast<uint16_t*>(base + l.stage); }
    KISHMEM_HD uint16_t* comb_out(const Layout& l) const { return reinterpret_cast<uint16_t*>(base + l.comb_out); }
};

constexpr uint64_t kBadInputBit = 1ull << 62;  // in a flag: the sender's input was bad, nothing was sent
constexpr uint64_t kArriveUnit = 1ull << 20;   // what a sender adds to a receiver's arrive word per round
enum ArriveKind : int { kArriveDispatch = 0, kArriveCombine = 1, kArriveRead = 2 };  // arrive[kind][sender]
constexpr uint64_t kOffBias = 1ull << 62;      // comb_off: offset + kOffBias (offsets within the heap, either sign)
constexpr uint64_t kWaitsReadBit = 1ull << 61; // comb_off: the sender waits for this PE's read acknowledgement

}  // namespace kishmem::ep
