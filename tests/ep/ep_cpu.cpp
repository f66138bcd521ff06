// kishmem::ep, CPU form (host heap): rounds of dispatch and combine with FP8 and bf16, int32 and
// int64 indices, with and without the receive hooks, token counts that differ between PEs and
// rounds, expert outputs in the caller's memory and in the buffer's own (Config::combine_buffer);
// every received row, its bf16 form (Buffer::received_bf16; refused before a hook's receive) and
// every combined value checked against an independent host computation (ep_common.h). The kernel clock is on from round 4: the CPU form reports each call's
// host time, and -1 for the calls of a kind whose last one ran without it.
#include <cstdio>

#include "ep_common.h"

using namespace kishmem::ep;

namespace {

template <class Idx>
int one_round(Buffer& b, const eptest::Shape& s, Format f, int round, bool hook) {
    const int me = shmem_my_pe();
    std::vector<int> Ts(s.npes);
    for (int p = 0; p < s.npes; ++p) Ts[p] = eptest::tokens_of(s, round, p);
    std::vector<uint16_t> x;
    std::vector<Idx> idx;
    std::vector<float> w;
    eptest::inputs(s, round, me, Ts[me], &x, &idx, &w);
    Received rv;
    Handle h;
    if (const int rc = b.dispatch(nullptr, x.data(), idx.data(), Ts[me], &rv, &h, hook)) return eptest::call_failed("dispatch", me, round, rc);
    // received_bf16 before the receive is out of order (the hook not yet called)
    std::vector<uint16_t> bf(static_cast<size_t>(b.layout().L) * b.layout().R * s.H, 0xfff0);
    if (hook && b.received_bf16(nullptr, &h, bf.data()) != kBadOrder)
        return eptest::fail("received_bf16 before dispatch_recv: status (want kBadOrder)", me, round, 0, 0, kBadOrder);
    if (const int rc = hook ? b.dispatch_recv(nullptr, &h) : kOk) return eptest::call_failed("dispatch_recv", me, round, rc);
    const Layout& l = b.layout();
    eptest::Got g;
    const size_t rows = static_cast<size_t>(l.L) * l.R;
    g.x.assign(static_cast<const uint8_t*>(rv.x), static_cast<const uint8_t*>(rv.x) + rows * l.H * l.xb);
    if (rv.scales) g.scales.assign(rv.scales, rv.scales + rows * l.G);
    g.count.assign(rv.count, rv.count + l.L);
    g.src.assign(rv.src, rv.src + rows);
    if (rv.local_experts != s.E / s.npes || rv.max_recv != s.npes * s.T) return eptest::fail("shape", me, rv.local_experts, rv.max_recv, 0, 0);
    if (int bad = eptest::check_received(s, f, round, me, Ts, g)) return bad;
    if (const int rc = b.received_bf16(nullptr, &h, bf.data())) return eptest::call_failed("received_bf16", me, round, rc);
    if (int bad = eptest::check_bf16(s, f, me, g, bf.data(), 0xfff0)) return bad;
    std::vector<uint16_t> eo, out(static_cast<size_t>(s.T) * s.H, 0xffff);
    eptest::run_experts(s, f, me, g, &eo);
    void* own = b.combine_buffer();  // (Config::combine_buffer) the experts write there instead
    if (own) std::copy(eo.begin(), eo.end(), static_cast<uint16_t*>(own));
    if (const int rc = b.combine(nullptr, own ? own : eo.data(), w.data(), out.data(), &h, !hook)) return eptest::call_failed("combine", me, round, rc);
    if (const int rc = !hook ? b.combine_recv(nullptr, &h) : kOk) return eptest::call_failed("combine_recv", me, round, rc);
    return eptest::check_combined(s, f, round, me, Ts[me], out.data());
}

// After a round (one_round: dispatch's hook with `hook`, combine's without): every kind of call
// has a time when its last call ran with the clock on (timed[], kept by the caller), else -1.
int check_clock(Buffer& b, int round, bool hook, bool timed[4]) {
    const KernelTimes t = b.kernel_times();
    const bool on = b.kernel_clock();
    const double got[] = {t.dispatch_us, t.dispatch_recv_us, t.combine_us, t.combine_recv_us};
    const bool called[] = {true, hook, true, !hook};  // dispatch, its hook, combine, its hook
    for (int i = 0; i < 4; ++i) {
        if (called[i]) timed[i] = on;
        if (timed[i] ? got[i] < 0 : got[i] != -1)
            return eptest::fail("kernel_times (dispatch, hook, combine, hook): round, call", shmem_my_pe(), round, i, got[i],
                                timed[i] ? 0 : -1);
    }
    return 0;
}

}  // namespace

int main() {
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    int bad = 0;
    for (int variant = 0; variant < 3; ++variant) {
        const Format f = variant == 1 ? Format::bf16 : Format::fp8_e4m3;
        const eptest::Shape s{24, 256, 4, 4 * npes, npes};
        Config c = eptest::config(s, f);
        c.combine_buffer = variant == 2;
        auto b = Buffer::create(SHMEM_TEAM_WORLD, c);
        if (!b || b->on_gpu() || !b->combine_buffer() != !c.combine_buffer) {
            std::fprintf(stderr, "FAIL: PE %d: %s\n", me, !b ? "create failed" : b->on_gpu() ? "the buffer is on the GPU (run with KISHMEM_HEAP=host)"
                                                        : "combine_buffer() is not there exactly when configured");
            shmem_global_exit(1);
        }
        // bytes(): the README's formulas, summed here with 256-byte alignment
        const size_t L = s.E / npes, R = static_cast<size_t>(npes) * s.T, G = f == Format::fp8_e4m3 ? s.H / 128 : 0,
                     xb = f == Format::fp8_e4m3 ? 1 : 2, rows = static_cast<size_t>(b->num_sms()) * 8;
        const size_t parts[] = {L * R * s.H * xb, L * R * G * 4, L * R * 16, 2 * L * 4, npes * 8u, npes * 8u, 3 * npes * 8u,
                                npes * 8u, static_cast<size_t>(s.T) * s.K * s.H * 2, L * 4, static_cast<size_t>(s.T) * s.H * xb,
                                s.T * G * 4, static_cast<size_t>(s.T) * s.K * 8,
                                static_cast<size_t>(s.T) * s.K * 16, npes * 4u, 24,
                                rows * s.H * 2, c.combine_buffer ? L * R * s.H * 2 : 0};
        size_t want = 0;
        for (size_t p : parts) want += (p + 255) / 256 * 256;
        if (b->bytes() != want || Buffer::bytes_for(c, npes) != want) {
            std::fprintf(stderr, "FAIL: PE %d: bytes() = %zu, formula %zu\n", me, b->bytes(), want);
            bad++;
        }
        bool timed[4] = {};
        for (int round = 1; round <= 6 && !bad; ++round) {
            const bool hook = round % 3 == 0;
            b->set_kernel_clock(round >= 4);
            bad += round % 2 ? one_round<int64_t>(*b, s, f, round, hook) : one_round<int32_t>(*b, s, f, round, hook);
            bad += bad ? 0 : check_clock(*b, round, hook, timed);
        }
        if (bad) shmem_global_exit(1);
        shmem_barrier_all();
    }
    shmem_barrier_all();
    if (me == 0) std::printf("PASS ep_cpu on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
