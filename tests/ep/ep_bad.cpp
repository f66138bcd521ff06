// kishmem::ep bad input: ep_bad MODE. The last PE (or every PE) passes the bad value; the call
// must fail with a message naming the call, the PE and the value, the other PEs must end the
// same call with their own message naming the last PE, and every PE exits with 1.
// Modes, dispatch: index_high index_low duplicate too_many null_handle; combine (the other PEs'
// receive waits for the last PE's combine): combine_null_out combine_bad_handle
// combine_hook_first (the hook called instead of combine) combine_hook_null_weights (every PE
// uses send_only and the hook), dispatch_combine_pending (every PE uses send_only; the last
// one calls dispatch before its hook: refused, the others end the round), dispatch_combine_pending_next
// (the same, and the others' next dispatch reports the last PE's refused one), dispatch_recv_pending
// dispatch_recv_null dispatch_recv_other (every PE dispatches with send_only; the last one calls
// dispatch again, or the hook without a handle or with one of no dispatch: refused, and the others'
// combine reports it), combine_other_buffer (the last PE's combine gets a handle of a second
// buffer), check_status (index_high, then each PE prints check()'s status: the last PE's own
// bad input, the others' peer error); creation: hidden_mismatch experts_mismatch heap_small
// config_invalid_one team_invalid_one part_no_block part_gpu_start (the last PE's part of the
// setup fails after the configurations agreed) rows_overflow (max_tokens_per_pe x num_experts past
// 2^31 rows) topk_null (select_topk with T > 0 and null pointers, 1 PE is enough).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../../ep/src/internal.h"  // testing::fail_next_create
#include "ep_common.h"

using namespace kishmem::ep;

namespace {

// The combine step of a round whose dispatch worked; the last PE makes the bad call of `mode`.
// other: a handle of another buffer's dispatch (combine_other_buffer).
int combine(Buffer& b, const std::string& mode, bool last, const Received& rv, Handle* h, int T, Handle* other) {
    const int H = b.config().hidden, K = b.config().topk;
    std::vector<uint16_t> eo(static_cast<size_t>(rv.local_experts) * rv.max_recv * H), out(static_cast<size_t>(T) * H);
    std::vector<float> w(static_cast<size_t>(T) * K, 0.5f);
    Handle fresh = *h;  // this buffer's, of no round (combine_bad_handle)
    fresh.round = 0;
    if (last && mode == "combine_hook_first") return b.combine_recv(nullptr, h);
    const bool pending = mode == "dispatch_combine_pending" || mode == "dispatch_combine_pending_next";
    const bool hook = mode == "combine_hook_null_weights" || pending;
    const float* wp = last && mode == "combine_hook_null_weights" ? nullptr : w.data();
    void* op = last && mode == "combine_null_out" ? nullptr : out.data();
    Handle* hc = last && mode == "combine_bad_handle" ? &fresh : last && mode == "combine_other_buffer" ? other : h;
    int rc = b.combine(nullptr, eo.data(), wp, op, hc, hook);
    Received rv2;
    Handle h2;
    if (rc == kOk && last && pending)  // the next dispatch before the hook: refused, nothing sent
        return b.dispatch(nullptr, nullptr, static_cast<const int32_t*>(nullptr), 0, &rv2, &h2);
    if (rc == kOk && hook) rc = b.combine_recv(nullptr, h);
    if (rc == kOk && mode == "dispatch_combine_pending_next")  // the next round: told of the last PE's refusal
        rc = b.dispatch(nullptr, nullptr, static_cast<const int32_t*>(nullptr), 0, &rv2, &h2);
    return rc;
}

// Every PE's dispatch went out with send_only; the last PE's bad call of `mode` instead of its
// hook (the others receive and go on to combine, whose receive waits for the last PE's).
int after_send_only(Buffer& b, const std::string& mode, bool last, const Received& rv, Handle* h, int T,
                    const int32_t* idx) {
    if (!last) {
        const int rc = b.dispatch_recv(nullptr, h);
        return rc == kOk ? combine(b, mode, false, rv, h, T, nullptr) : rc;
    }
    if (mode == "dispatch_recv_null") return b.dispatch_recv(nullptr, nullptr);
    Handle none;
    if (mode == "dispatch_recv_other") return b.dispatch_recv(nullptr, &none);
    std::vector<uint16_t> x(static_cast<size_t>(T) * b.config().hidden, 0x3f80);
    Received rv2;
    return b.dispatch(nullptr, x.data(), idx, T, &rv2, &none);  // dispatch_recv_pending
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes(), last = npes - 1;
    Config c = eptest::config(eptest::Shape{16, 256, 4, 4 * npes, npes}, Format::fp8_e4m3);
    if (mode == "hidden_mismatch" && me == last) c.hidden = 512;
    if (mode == "experts_mismatch" && me == last) c.num_experts = 8 * npes;
    if (mode == "config_invalid_one" && me == last) c.topk = 0;
    if (mode == "heap_small") c.max_tokens_per_pe = 1 << 16, c.hidden = 8192;
    if (mode == "part_no_block" && me == last) testing::fail_next_create(kPartNoBlock);
    if (mode == "part_gpu_start" && me == last) testing::fail_next_create(kPartGpuStart);
    if (mode == "rows_overflow") c.max_tokens_per_pe = (1 << 30) / npes, c.num_experts = 4 * npes;
    if (mode == "topk_null") {
        std::vector<float> scores(4 * 8, 1.0f);
        std::vector<int32_t> idx(4 * 2);
        const int a = select_topk(scores.data(), 4, 8, 2, 8, 1, nullptr, nullptr);
        const int b = select_topk(nullptr, 4, 8, 2, 8, 1, idx.data(), nullptr);
        std::printf("PE %d: ep_bad topk_null: status %d %d\n", me, a, b);
        std::fflush(stdout);
        shmem_finalize();
        return a == kBadArgument && b == kBadArgument ? 1 : 0;  // (refused as expected: status 1 as every mode)
    }
    std::string err;
    auto b = Buffer::create(mode == "team_invalid_one" && me == last ? SHMEM_TEAM_INVALID : SHMEM_TEAM_WORLD, c, &err);
    int rc = b ? kOk : kBadConfig;
    if (b) {
        const int T = mode == "too_many" && me == last ? 17 : 16;
        std::vector<uint16_t> x(static_cast<size_t>(17) * c.hidden, 0x3f80);  // 1.0
        std::vector<int32_t> idx(static_cast<size_t>(17) * c.topk);
        for (int t = 0; t < 17; ++t)
            for (int k = 0; k < c.topk; ++k) idx[t * c.topk + k] = (t + k * 3) % c.num_experts;
        if (me == last) {
            if (mode == "index_high") idx[3 * c.topk + 2] = c.num_experts;
            if (mode == "index_low") idx[5 * c.topk + 1] = -2;
            if (mode == "duplicate") idx[7 * c.topk + 3] = idx[7 * c.topk + 0];
            if (mode == "check_status") idx[3 * c.topk + 2] = c.num_experts;
        }
        Received rv, rv_other;
        Handle h, h_other;
        std::unique_ptr<Buffer> other;
        if (mode == "combine_other_buffer") {  // a second buffer, one round dispatched on it
            other = Buffer::create(SHMEM_TEAM_WORLD, c, &err);
            if (other) rc = other->dispatch(nullptr, x.data(), idx.data(), T, &rv_other, &h_other);
        }
        const bool send_only = mode.rfind("dispatch_recv_", 0) == 0;
        if (rc == kOk)
            rc = b->dispatch(nullptr, x.data(), idx.data(), T, &rv, mode == "null_handle" && me == last ? nullptr : &h, send_only);
        if (rc == kOk)
            rc = send_only ? after_send_only(*b, mode, me == last, rv, &h, T, idx.data())
                           : combine(*b, mode, me == last, rv, &h, T, &h_other);
        if (mode == "check_status") std::printf("PE %d: ep_bad check_status: check %d\n", me, b->check(nullptr));
        err = b->last_error();
    }
    std::printf("PE %d: ep_bad %s: status %d\n", me, mode.c_str(), rc);
    std::fflush(stdout);
    b.reset();
    shmem_finalize();
    return rc == kOk ? 0 : 1;
}
