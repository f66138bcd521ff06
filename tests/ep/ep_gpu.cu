// kishmem::ep, GPU form (buffer on the GPU heap): the rounds of ep_cpu (FP8 and bf16, int32 and
// int64, with and without the hooks) with device inputs, checked by the same host computation
// (the received rows' bf16 form, Buffer::received_bf16, too); then dispatch + received_bf16 +
// experts + combine captured into a CUDA graph and replayed 3 times (each replay
// checked); then a bad top-k index and a bad combine, each reported on the PE that passed it and
// as a peer error on the others; then two calls out of order (a dispatch before a hook is called),
// refused on the PE that made them and reported by the others' next receive.
#include <cuda_runtime.h>

#include "../gpu/gpu_check.h"  // CK, GPU_TEST_INIT
#include "ep_common.h"

using namespace kishmem::ep;

namespace {

// eptest::expert on the device: rows [0, count[le]) of every local expert.
__global__ void experts(const uint8_t* x, const float* sc, const int* count, uint16_t* out, int L, int R, int H, int fp8, int e0) {
    const int le = blockIdx.y;
    for (int i = blockIdx.x; i < count[le]; i += gridDim.x)
        for (int h = threadIdx.x; h < H; h += blockDim.x) {
            const size_t slot = static_cast<size_t>(le) * R + i;
            const float v = fp8 ? e4m3_to_float(x[slot * H + h]) * sc[slot * (H / 128) + h / 128]
                                : bf16_to_float(reinterpret_cast<const uint16_t*>(x)[slot * H + h]);
            out[slot * H + h] = eptest::expert(e0 + le, v);
        }
}

struct Dev {
    void* x = nullptr;
    void* idx = nullptr;
    float* w = nullptr;
    uint16_t* eo = nullptr;
    uint16_t* out = nullptr;
    uint16_t* bf = nullptr;  // Buffer::received_bf16's output, [L][R][H]
};

eptest::Got fetch(const Received& rv, const Layout& l) {
    eptest::Got g;
    const size_t rows = static_cast<size_t>(l.L) * l.R;
    g.x.resize(rows * l.H * l.xb);
    g.scales.resize(rows * l.G);
    g.count.resize(l.L);
    g.src.resize(rows);
    CK(cudaMemcpy(g.x.data(), rv.x, g.x.size(), cudaMemcpyDeviceToHost));
    if (l.G) CK(cudaMemcpy(g.scales.data(), rv.scales, g.scales.size() * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(g.count.data(), rv.count, l.L * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(g.src.data(), rv.src, rows * 16, cudaMemcpyDeviceToHost));
    return g;
}

// On the stream the library's kernels run on: a cudaMemcpy from pageable memory may return
// before its data reaches the GPU, and kernels on a non-blocking stream do not wait for it.
template <class Idx>
void upload(const eptest::Shape& s, int round, int T, Dev& d, cudaStream_t st) {
    std::vector<uint16_t> x;
    std::vector<Idx> idx;
    std::vector<float> w;
    eptest::inputs(s, round, shmem_my_pe(), T, &x, &idx, &w);
    CK(cudaMemcpyAsync(d.x, x.data(), x.size() * 2, cudaMemcpyHostToDevice, st));
    CK(cudaMemcpyAsync(d.idx, idx.data(), idx.size() * sizeof(Idx), cudaMemcpyHostToDevice, st));
    CK(cudaMemcpyAsync(d.w, w.data(), w.size() * 4, cudaMemcpyHostToDevice, st));
    CK(cudaStreamSynchronize(st));
}

// One round (data of `data_round`, buffer round `round`), checked.
template <class Idx>
int round_trip(Buffer& b, const eptest::Shape& s, Format f, int data_round, int round, bool hook, Dev& d, cudaStream_t st,
               bool graph) {
    const int me = shmem_my_pe();
    const Layout& l = b.layout();
    std::vector<int> Ts(s.npes);
    for (int p = 0; p < s.npes; ++p) Ts[p] = eptest::tokens_of(s, data_round, p);
    upload<Idx>(s, data_round, Ts[me], d, st);
    Received rv;
    Handle h;
    const size_t bf_bytes = static_cast<size_t>(l.L) * l.R * l.H * 2;
    // received_bf16's output against the rows received (round r of the checks)
    auto check_bf16 = [&](const eptest::Got& g) {
        std::vector<uint16_t> bf(bf_bytes / 2);
        CK(cudaMemcpy(bf.data(), d.bf, bf_bytes, cudaMemcpyDeviceToHost));
        return eptest::check_bf16(s, f, me, g, bf.data(), 0xf0f0);
    };
    auto body = [&] {
        eptest::must_ok("dispatch", me, round, b.dispatch(st, d.x, static_cast<const Idx*>(d.idx), Ts[me], &rv, &h, hook));
        if (hook) eptest::must_ok("dispatch_recv", me, round, b.dispatch_recv(st, &h));
        CK(cudaMemsetAsync(d.bf, 0xf0, bf_bytes, st));  // (every element 0xf0f0: rows no PE sent stay so)
        eptest::must_ok("received_bf16", me, round, b.received_bf16(st, &h, d.bf));
        experts<<<dim3(8, l.L), 128, 0, st>>>(static_cast<const uint8_t*>(rv.x), rv.scales, rv.count, d.eo, l.L, l.R, l.H,
                                               l.G > 0, me * l.L);
        eptest::must_ok("combine", me, round, b.combine(st, d.eo, d.w, d.out, &h, hook));
        if (hook) eptest::must_ok("combine_recv", me, round, b.combine_recv(st, &h));
    };
    int replays = 1;
    if (graph) {
        cudaGraph_t g;
        cudaGraphExec_t ge;
        CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
        body();
        CK(cudaStreamEndCapture(st, &g));
        CK(cudaGraphInstantiate(&ge, g, 0));
        replays = 3;
        for (int r = 0; r < replays; ++r) {
            CK(cudaMemsetAsync(d.out, 0xff, static_cast<size_t>(s.T) * s.H * 2, st));
            CK(cudaGraphLaunch(ge, st));
            CK(cudaStreamSynchronize(st));
            if (const int rc = b.check(st)) return eptest::call_failed("check (graph replay)", me, round + r, rc);
            const eptest::Got g = fetch(rv, l);
            if (int bad = eptest::check_received(s, f, data_round, me, Ts, g, round + r)) return bad;
            if (int bad = check_bf16(g)) return bad;
            std::vector<uint16_t> out(static_cast<size_t>(s.T) * s.H);
            CK(cudaMemcpy(out.data(), d.out, out.size() * 2, cudaMemcpyDeviceToHost));
            if (int bad = eptest::check_combined(s, f, data_round, me, Ts[me], out.data())) return bad;
            shmem_barrier_all();  // no PE replays before every PE has read this replay's rows
        }
        CK(cudaGraphExecDestroy(ge));
        CK(cudaGraphDestroy(g));
        return 0;
    }
    body();
    CK(cudaStreamSynchronize(st));
    if (const int rc = b.check(st)) return eptest::call_failed("check", me, round, rc);
    const eptest::Got g = fetch(rv, l);
    if (int bad = eptest::check_received(s, f, data_round, me, Ts, g, round)) return bad;
    if (int bad = check_bf16(g)) return bad;
    std::vector<uint16_t> out(static_cast<size_t>(s.T) * s.H);
    CK(cudaMemcpy(out.data(), d.out, out.size() * 2, cudaMemcpyDeviceToHost));
    const int bad = eptest::check_combined(s, f, data_round, me, Ts[me], out.data());
    shmem_barrier_all();
    return bad;
}

// The bad-call tests' buffer (8 tokens, hidden 256, top-2, FP8) and one round's device memory:
// x (zeros), topk_idx (experts 1 and 0 of every token; idx_at_last changes entry [2][1] on the
// last PE when not -1), expert outputs, weights (zeros), out. Freed on destruction.
struct SmallRound {
    std::unique_ptr<Buffer> b;
    void *x = nullptr, *ip = nullptr, *eo = nullptr, *w = nullptr, *out = nullptr;
    SmallRound(const char* what, int idx_at_last) {
        const int me = shmem_my_pe(), npes = shmem_n_pes();
        b = Buffer::create(SHMEM_TEAM_WORLD, eptest::config(eptest::Shape{8, 256, 2, 2 * npes, npes}, Format::fp8_e4m3));
        if (!b) {
            std::fprintf(stderr, "FAIL: PE %d: Buffer::create for the %s test failed\n", me, what);
            return;
        }
        std::vector<int32_t> idx(16);
        for (int i = 0; i < 16; ++i) idx[i] = i % 2 ? 0 : 1;
        if (me == npes - 1 && idx_at_last != -1) idx[2 * 2 + 1] = idx_at_last;
        CK(cudaMalloc(&x, 8 * 256 * 2));
        CK(cudaMemset(x, 0, 8 * 256 * 2));
        CK(cudaMalloc(&ip, 16 * 4));
        CK(cudaMemcpy(ip, idx.data(), 64, cudaMemcpyHostToDevice));
        CK(cudaMalloc(&eo, static_cast<size_t>(b->layout().L) * b->layout().R * 256 * 2));
        CK(cudaMalloc(&w, 16 * 4));
        CK(cudaMemset(w, 0, 16 * 4));
        CK(cudaMalloc(&out, 8 * 256 * 2));
    }
    ~SmallRound() {
        for (void* p : {x, ip, eo, w, out}) cudaFree(p);
    }
    const int32_t* idx() const { return static_cast<const int32_t*>(ip); }
    const float* weights() const { return static_cast<const float*>(w); }
};

// Bad input on the last PE, nothing sent: a top-k index out of range (combine == false), or, after
// a good dispatch, a combine whose out is host memory (combine == true; the peers' receive
// kernel must find the bad-input bit in the last PE's comb_flag). The last PE's call (or
// check()) names the call, the PE and the value; every other PE's check() names the last PE.
int bad_input(cudaStream_t st, bool combine) {
    const int me = shmem_my_pe(), npes = shmem_n_pes(), last = npes - 1;
    SmallRound t(combine ? "bad-combine" : "bad-index", combine ? -1 : 2 * npes);  // (2 * npes: num_experts)
    if (!t.b) return 1;
    Buffer* b = t.b.get();
    std::vector<uint16_t> host_out(8 * 256);
    Received rv;
    Handle h;
    int rc = b->dispatch(st, t.x, t.idx(), 8, &rv, &h);
    if (!combine) rc = b->check(st);
    else if (rc == kOk) rc = b->combine(st, t.eo, t.weights(), me == last ? host_out.data() : t.out, &h);
    if (combine && me != last && rc == kOk) rc = b->check(st);
    char want[160];
    if (me != last) std::snprintf(want, sizeof want, "kishmem::ep::%s: PE %d: PE %d reported bad input", combine ? "combine_recv" : "dispatch_recv", me, last);
    else if (combine) std::snprintf(want, sizeof want, "kishmem::ep::combine: PE %d: out = %p is not GPU memory", me, static_cast<void*>(host_out.data()));
    else std::snprintf(want, sizeof want, "kishmem::ep::dispatch: PE %d: topk_idx[2][1] = %d is not an expert", me, 2 * npes);
    const int bad = rc != (me == last ? kBadArgument : kPeerError) || b->last_error().find(want) != 0;
    if (bad)
        std::fprintf(stderr, "FAIL: PE %d: bad %s: status %d, message '%s', expected '%s...'\n", me, combine ? "combine" : "index",
                     rc, b->last_error().c_str(), want);
    CK(cudaStreamSynchronize(st));
    shmem_barrier_all();
    return bad;
}

// Calls out of order on the last PE, refused (kBadOrder): the round they left open ends as its
// hook would have ended it, and the peers are told. recv: a second dispatch before the first's
// hook (every PE dispatched with send_only; the others' combine reports the last PE); else a
// dispatch before the hook of a send_only combine (the others' next dispatch reports it).
int bad_order(cudaStream_t st, bool recv) {
    const int me = shmem_my_pe(), npes = shmem_n_pes(), last = npes - 1;
    SmallRound t("bad-order", -1);
    if (!t.b) return 1;
    Buffer* b = t.b.get();
    void *x = t.x, *eo = t.eo, *out = t.out;
    const int32_t* i32 = t.idx();
    const float* wf = t.weights();
    Received rv;
    Handle h, h2;
    int rc = b->dispatch(st, x, i32, 8, &rv, &h, recv);
    if (rc == kOk && recv) {
        if (me == last) rc = b->dispatch(st, x, i32, 8, &rv, &h2);
        else if ((rc = b->dispatch_recv(st, &h)) == kOk && (rc = b->combine(st, eo, wf, out, &h)) == kOk) rc = b->check(st);
    } else if (rc == kOk && (rc = b->combine(st, eo, wf, out, &h, true)) == kOk) {
        if (me == last) rc = b->dispatch(st, x, i32, 8, &rv, &h2);
        else if ((rc = b->combine_recv(st, &h)) == kOk && (rc = b->dispatch(st, x, i32, 8, &rv, &h2)) == kOk) rc = b->check(st);
    }
    char want[200];
    if (me != last)
        std::snprintf(want, sizeof want, "kishmem::ep::%s: PE %d: PE %d reported bad input in round %d",
                      recv ? "combine_recv" : "dispatch_recv", me, last, recv ? 1 : 2);
    else
        std::snprintf(want, sizeof want, "kishmem::ep::dispatch: PE %d: %s", me,
                      recv ? "the previous dispatch (round 1) was sent with send_only" : "the combine of round 1 was sent with send_only");
    const int bad = rc != (me == last ? kBadOrder : kPeerError) || b->last_error().find(want) != 0;
    if (bad)
        std::fprintf(stderr, "FAIL: PE %d: bad order (%s): status %d, message '%s', expected '%s...'\n", me,
                     recv ? "dispatch before its hook" : "dispatch before the combine's hook", rc, b->last_error().c_str(), want);
    CK(cudaStreamSynchronize(st));
    shmem_barrier_all();
    return bad;
}

}  // namespace

int main() {
    GPU_TEST_INIT();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    // Expert outputs in device memory (combine pushes the rows), in the symmetric heap (token PEs
    // that map the expert's PE read them in place) and, every other round, in the buffer's own
    // block (Config::combine_buffer: read in place, no wait for the reads and no acknowledgement;
    // the rounds between, in the symmetric heap, wait for theirs), in both formats. Then, wide:
    // hidden 7168 with fewer tokens than blocks (10), so that a token's rows are sent by several
    // blocks (6 tokens: 3 rows a block, shares crossing tokens; 1, 4 and 5 tokens: 1 or 2) and
    // the sums of a token of 1, 4 or 5 written by two (896 channel groups, more than a block's
    // threads).
    for (int placement = 0; placement < 8; ++placement) {
        const Format f = placement % 2 ? Format::bf16 : Format::fp8_e4m3;
        const bool wide = placement >= 6;
        const bool symmetric = placement == 2 || placement == 3, own = placement == 4 || placement == 5 || placement == 6;
        const eptest::Shape s = wide ? eptest::Shape{6, 7168, 4, 4 * npes, npes} : eptest::Shape{24, 512, 4, 4 * npes, npes};
        Config c = eptest::config(s, f);
        c.num_sms = wide ? 10 : 5;  // (5: more than one token per block, and a last block with fewer)
        c.combine_buffer = own;
        auto b = Buffer::create(SHMEM_TEAM_WORLD, c);
        if (!b || !b->on_gpu()) {
            std::fprintf(stderr, "FAIL: PE %d: %s\n", me, b ? "the buffer is not on the GPU" : "create failed");
            shmem_global_exit(1);
        }
        const Layout& l = b->layout();
        Dev d;
        CK(cudaMalloc(&d.x, static_cast<size_t>(s.T) * s.H * 2));
        CK(cudaMalloc(&d.idx, static_cast<size_t>(s.T) * s.K * 8));
        CK(cudaMalloc(&d.w, static_cast<size_t>(s.T) * s.K * 4));
        const size_t eo_bytes = static_cast<size_t>(l.L) * l.R * s.H * 2;
        if (symmetric || own) d.eo = static_cast<uint16_t*>(shmem_malloc(eo_bytes));
        else CK(cudaMalloc(&d.eo, eo_bytes));
        uint16_t* const heap_eo = d.eo;
        if (!d.eo) {
            std::fprintf(stderr, "FAIL: PE %d: no memory for the expert outputs\n", me);
            shmem_global_exit(1);
        }
        CK(cudaMalloc(&d.out, static_cast<size_t>(s.T) * s.H * 2));
        CK(cudaMalloc(&d.bf, eo_bytes));
        int round = 1, bad = 0;
        for (int r = 1; r <= 6 && !bad; ++r, ++round) {
            const bool hook = r % 3 == 0;
            if (own) d.eo = r % 2 ? static_cast<uint16_t*>(b->combine_buffer()) : heap_eo;
            bad = r % 2 ? round_trip<int64_t>(*b, s, f, r, round, hook, d, st, false)
                        : round_trip<int32_t>(*b, s, f, r, round, hook, d, st, false);
        }
        if (own) d.eo = static_cast<uint16_t*>(b->combine_buffer());
        if (!bad) bad = round_trip<int32_t>(*b, s, f, 8, round, false, d, st, true);   // graph, plain calls
        round += 3;
        if (!bad) bad = round_trip<int64_t>(*b, s, f, 12, round, true, d, st, true);   // graph with the hooks
        if (bad) shmem_global_exit(1);
        b.reset();
        cudaFree(d.x);
        cudaFree(d.idx);
        cudaFree(d.w);
        if (symmetric || own) shmem_free(heap_eo);
        else cudaFree(heap_eo);
        cudaFree(d.out);
        cudaFree(d.bf);
    }
    if (bad_input(st, false) || bad_input(st, true) || bad_order(st, true) || bad_order(st, false)) shmem_global_exit(1);
    shmem_barrier_all();
    if (me == 0) std::printf("PASS ep_gpu on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
