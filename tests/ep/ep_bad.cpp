// kishmem::ep bad input: ep_bad MODE. The last PE (or every PE) passes the bad value; the call
// must fail with a message naming the call, the PE and the value, and every PE exits with 1.
// Modes: index_high index_low duplicate too_many null_handle hidden_mismatch experts_mismatch
// heap_small.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "kishmem/ep/ep.h"

using namespace kishmem::ep;

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes(), last = npes - 1;
    Config c;
    c.max_tokens_per_pe = 16;
    c.hidden = 256;
    c.topk = 4;
    c.num_experts = 4 * npes;
    if (mode == "hidden_mismatch" && me == last) c.hidden = 512;
    if (mode == "experts_mismatch" && me == last) c.num_experts = 8 * npes;
    if (mode == "heap_small") c.max_tokens_per_pe = 1 << 16, c.hidden = 8192;
    std::string err;
    auto b = Buffer::create(SHMEM_TEAM_WORLD, c, &err);
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
        }
        Received rv;
        Handle h;
        rc = b->dispatch(nullptr, x.data(), idx.data(), T, &rv, mode == "null_handle" && me == last ? nullptr : &h);
        if (rc == kOk) {
            std::vector<uint16_t> eo(static_cast<size_t>(rv.local_experts) * rv.max_recv * c.hidden), out(16 * c.hidden);
            std::vector<float> w(16 * c.topk, 0.5f);
            rc = b->combine(nullptr, eo.data(), w.data(), out.data(), &h);
        }
        err = b->last_error();
    }
    std::printf("PE %d: ep_bad %s: status %d\n", me, mode.c_str(), rc);
    std::fflush(stdout);
    b.reset();
    shmem_finalize();
    return rc == kOk ? 0 : 1;
}
