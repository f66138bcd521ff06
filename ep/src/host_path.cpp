// The CPU form of dispatch and combine (buffer on a host heap): the same protocol as the
// kernels, with the host API.
//
// Dispatch, round r (parity r & 1):
//   1. check topk_idx; on bad input send only flags with kBadInputBit and stop;
//   2. count this PE's entries per expert; reserve rows at each expert's PE with one
//      fetch-add of the count on counter[parity][local expert] (the old value is the first row);
//   3. quantize (or copy) each token once into send_x, put it, its scales and its SrcInfo into
//      every (expert, row) it goes to; quiet; set disp_flag[me] = r on every PE.
//   receive: wait for disp_flag[p] >= r from every p; count[e] = counter[parity][e], reset to 0.
// Combine, round r: put each received row's expert output to its sender's comb_recv[t][k];
//   quiet; comb_flag[me] = r on every PE (a bad call sends only comb_flag[me] = r | kBadInputBit).
//   receive: wait for every comb_flag; weighted sums.
// A receive that finds the bad-input bit in any flag reports the first such sender and writes
// no output.
#include <cmath>
#include <cstring>
#include <vector>

#include "internal.h"
#include "kishmem/ep/numerics.h"

namespace kishmem::ep {
namespace {

// flags[me] = value on every PE, after everything this PE sent before.
void set_flags(const Layout& l, const View& v, uint64_t* flags, uint64_t value) {
    uint64_t* flag = flags + l.me;
    shmem_quiet();
    for (int r = 0; r < l.npes; ++r) shmem_uint64_atomic_set(flag, value, v.pe_of(l)[r]);
    shmem_quiet();
}

// Waits until every sender's flag reaches round; the world PE of the first whose flag carries
// the bad-input bit, or -1.
int wait_flags(const Layout& l, const View& v, uint64_t* flags, uint64_t round) {
    int bad_from = -1;
    for (int r = 0; r < l.npes; ++r) {
        shmem_uint64_wait_until(flags + r, SHMEM_CMP_GE, round);
        if (bad_from < 0 && (shmem_uint64_atomic_fetch(flags + r, shmem_my_pe()) & kBadInputBit)) bad_from = v.pe_of(l)[r];
    }
    return bad_from;
}

template <class Idx>
int send(Buffer& b, const Layout& l, const View& v, const uint16_t* x, const Idx* idx, int T, bool poison,
         std::string* err) {
    const int* pe_of = v.pe_of(l);
    const uint64_t round = v.local(l)->round + 1;
    const long bad = poison ? -1 : first_bad_entry(idx, T, l.K, l.E);
    if (poison || bad >= 0) {
        set_flags(l, v, v.disp_flag(l), round | kBadInputBit);
        if (bad >= 0) {
            ErrorRecord e{};
            e.token = static_cast<int>(bad / l.K);
            e.k = static_cast<int>(bad % l.K);
            e.value = static_cast<long long>(idx[bad]);
            const long long val = e.value;
            e.code = kErrIndex;
            if (val >= -1 && val < l.E) e.code = kErrDuplicate;
            *err = describe(e, l);
        }
        return kBadArgument;
    }
    const int parity = static_cast<int>(round & 1);
    // 2. rows per expert, reserved in one fetch-add each
    std::vector<int> cnt(l.E, 0), base(l.E, 0), rank(static_cast<size_t>(T) * l.K, 0);
    for (long j = 0; j < static_cast<long>(T) * l.K; ++j)
        if (idx[j] >= 0) rank[j] = cnt[static_cast<int>(idx[j])]++;
    for (int e = 0; e < l.E; ++e)
        if (cnt[e]) base[e] = shmem_int_atomic_fetch_add(v.counter(l) + parity * l.L + e % l.L, cnt[e], pe_of[e / l.L]);
    // 3. data
    const size_t row = static_cast<size_t>(l.H) * l.xb;
    SrcInfo* info = v.send_src(l);  // staged: put sources stay valid until the quiet
    Entry* entry = v.entry(l);  // where each (t, k) went; rank -1: not sent
    for (int t = 0; t < T; ++t) {
        uint8_t* sx = v.send_x(l) + t * row;
        float* ss = v.send_scales(l) + static_cast<size_t>(t) * l.G;
        if (l.fmt == Format::fp8_e4m3) quantize_token(x + static_cast<size_t>(t) * l.H, l.H, sx, ss);
        else std::memcpy(sx, x + static_cast<size_t>(t) * l.H, row);
        for (int k = 0; k < l.K; ++k) {
            const long j = static_cast<long>(t) * l.K + k;
            entry[j] = Entry{-1, -1};
            if (idx[j] < 0) continue;
            const int e = static_cast<int>(idx[j]), pe = pe_of[e / l.L], le = e % l.L;
            const size_t slot = static_cast<size_t>(le) * l.R + base[e] + rank[j];
            entry[j] = Entry{e / l.L, static_cast<int32_t>(slot)};
            shmem_putmem_nbi(v.recv_x(l) + slot * row, sx, row, pe);
            if (l.G) shmem_putmem_nbi(v.recv_scales(l) + slot * l.G, ss, l.G * sizeof(float), pe);
            info[j] = SrcInfo{l.me, t, k, static_cast<int32_t>(round)};
            shmem_putmem_nbi(v.recv_src(l) + slot, &info[j], sizeof(SrcInfo), pe);
        }
    }
    set_flags(l, v, v.disp_flag(l), round);
    (void)b;
    return kOk;
}

}  // namespace

int HostPath::dispatch_send(Buffer& b, const uint16_t* x, const void* idx, bool idx64, int T, bool poison) {
    const Layout& l = b.layout_;
    const View v{b.base_};
    std::string err;
    const int rc = idx64 ? send(b, l, v, x, static_cast<const int64_t*>(idx), T, poison, &err)
                         : send(b, l, v, x, static_cast<const int32_t*>(idx), T, poison, &err);
    if (!err.empty()) b.note_error(rc, err);
    return rc;
}

int HostPath::report_peer(Buffer& b, int code, int from_pe, uint64_t round) {
    ErrorRecord e{};
    e.code = code;
    e.from_pe = from_pe;
    e.value = static_cast<long long>(round);
    return b.note_error(kPeerError, describe(e, b.layout_));
}

int HostPath::dispatch_recv(Buffer& b) {
    const Layout& l = b.layout_;
    const View v{b.base_};
    const uint64_t round = v.local(l)->round + 1;
    const int parity = static_cast<int>(round & 1);
    const int bad_from = wait_flags(l, v, v.disp_flag(l), round);
    for (int le = 0; le < l.L; ++le)
        v.recv_count(l)[le] = shmem_int_atomic_swap(v.counter(l) + parity * l.L + le, 0, shmem_my_pe());
    v.local(l)->round = round;
    if (bad_from < 0) return kOk;
    for (int le = 0; le < l.L; ++le) v.recv_count(l)[le] = 0;
    return report_peer(b, kErrPeerBad, bad_from, round);
}

void HostPath::received_bf16(const Buffer& b, uint16_t* out) {
    const Layout& l = b.layout_;
    const View v{b.base_};
    const bool fp8 = b.cfg_.format == Format::fp8_e4m3;
    const int groups = l.H / kScaleGroup;
    for (int le = 0; le < l.L; ++le)
        for (int i = 0; i < v.recv_count(l)[le]; ++i) {
            const size_t slot = static_cast<size_t>(le) * l.R + i;
            uint16_t* o = out + slot * l.H;
            if (!fp8) {
                std::memcpy(o, v.recv_x(l) + slot * l.H * 2, static_cast<size_t>(l.H) * 2);
                continue;
            }
            const uint8_t* q = v.recv_x(l) + slot * l.H;
            const float* sc = v.recv_scales(l) + slot * groups;
            for (int h = 0; h < l.H; ++h) o[h] = fp8_to_bf16(q[h], sc[h / kScaleGroup]);
        }
}

int HostPath::combine_send(Buffer& b, const uint16_t* eo) {
    const Layout& l = b.layout_;
    const View v{b.base_};
    const int* pe_of = v.pe_of(l);
    const size_t row = static_cast<size_t>(l.H) * 2;
    for (int le = 0; le < l.L; ++le)
        for (int i = 0; i < v.recv_count(l)[le]; ++i) {
            const size_t slot = static_cast<size_t>(le) * l.R + i;
            const SrcInfo s = v.recv_src(l)[slot];
            shmem_putmem_nbi(v.comb_recv(l) + (static_cast<size_t>(s.token) * l.K + s.k) * l.H,
                             reinterpret_cast<const char*>(eo) + slot * row, row, pe_of[s.pe]);
        }
    set_flags(l, v, v.comb_flag(l), v.local(l)->round);
    return kOk;
}

int HostPath::combine_bad_input(Buffer& b) {
    const View v{b.base_};
    set_flags(b.layout_, v, v.comb_flag(b.layout_), v.local(b.layout_)->round | kBadInputBit);
    return kOk;
}

int HostPath::combine_recv(Buffer& b, const float* w, uint16_t* out, int T) {
    const Layout& l = b.layout_;
    const View v{b.base_};
    const uint64_t round = v.local(l)->round;
    const int bad_from = wait_flags(l, v, v.comb_flag(l), round);
    if (bad_from >= 0) return report_peer(b, kErrPeerBadCombine, bad_from, round);
    const Entry* entry = v.entry(l);
    const uint16_t* in = v.comb_recv(l);
    std::vector<float> acc(l.H);
    for (int t = 0; t < T; ++t) {
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (int k = 0; k < l.K; ++k) {
            const size_t j = static_cast<size_t>(t) * l.K + k;
            if (entry[j].rank < 0) continue;
            const uint16_t* row = in + j * l.H;
            for (int h = 0; h < l.H; ++h) acc[h] = std::fma(w[j], bf16_to_float(row[h]), acc[h]);
        }
        for (int h = 0; h < l.H; ++h) out[static_cast<size_t>(t) * l.H + h] = float_to_bf16(acc[h]);
    }
    return kOk;
}

}  // namespace kishmem::ep
