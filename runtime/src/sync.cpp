// Barriers and waiting.  The barrier is a dissemination over the transports themselves (not the
// launcher's fence): ceil(log2 N) rounds, in round r PE i signals PE i+2^r.  Each signal carries
// a min/max pair, so the same code checks that collective calls agree on their arguments.
#include <cstdio>

#include "kishmem/env.h"
#include "state.h"

namespace kishmem {

namespace {
inline uint64_t combine(ReduceOp op, uint64_t a, uint64_t b) {
    switch (op) {
        case ReduceOp::min: return a < b ? a : b;
        case ReduceOp::max: return a > b ? a : b;
        case ReduceOp::bit_or: return a | b;
        case ReduceOp::bit_and: return a & b;
    }
    return a;
}
}  // namespace

// Dissemination: ceil(log2 n) rounds; in round r team PE i sends to team PE i + 2^r.  Each op is
// idempotent, so values that reach a PE twice along different paths do no harm.
void team_allreduce(kishmem_team* team, const char* call, uint64_t w[4], const ReduceOp ops[4]) {
    State& s = state();
    const int n = team->size(), me = team->my_index;
    const uint64_t epoch = ++team->epoch;
    const std::size_t base = team_region_offset(team) + (epoch & 1) * kMaxRounds * kSlotBytes;
    int round = 0;
    for (int dist = 1; dist < n; dist <<= 1, ++round) {
        const int to = team->members[(me + dist) % n];
        const int from = team->members[(me - dist + n) % n];
        const std::size_t off = base + round * kSlotBytes;
        Transport* t = s.route_sync[to];
        check_status(t->put(0, to, off + offsetof(SyncSlot, w), w, 4 * sizeof(uint64_t), false), call, to);
        check_status(t->fence(0), call, to);
        // The flag is an aligned 8-byte put, not an atomic: no round trip waits on the target.
        check_status(t->put(0, to, off + offsetof(SyncSlot, seq), &epoch, sizeof epoch, false), call, to);

        SyncSlot* in = reinterpret_cast<SyncSlot*>(s.sync_base + off);
        rt::Waiter wt(call, "PE %lld to arrive (barrier round %lld, epoch %lld)", from, round,
                      static_cast<long long>(epoch));
        while (__atomic_load_n(&in->seq, __ATOMIC_ACQUIRE) < epoch) wt.spin();
        for (int k = 0; k < 4; ++k) w[k] = combine(ops[k], w[k], in->w[k]);
    }
}

void team_minmax(kishmem_team* team, const char* call, const uint64_t v[2], uint64_t lo[2], uint64_t hi[2]) {
    static const ReduceOp ops[4] = {ReduceOp::min, ReduceOp::min, ReduceOp::max, ReduceOp::max};
    uint64_t w[4] = {v[0], v[1], v[0], v[1]};
    team_allreduce(team, call, w, ops);
    lo[0] = w[0], lo[1] = w[1], hi[0] = w[2], hi[1] = w[3];
}

}  // namespace kishmem

namespace kishmem::rt {

void progress() {
    State& s = state();
    if (s.needs_progress)
        for (Transport* t : s.transports) t->progress();
}

void sync_all() { team_sync(team_world(), "shmem_sync_all"); }

void barrier_all() {
    quiet_all();
    team_sync(team_world(), "shmem_barrier_all");
}

void team_sync(kishmem_team* t, const char* call) {
    static const ReduceOp ops[4] = {ReduceOp::min, ReduceOp::min, ReduceOp::min, ReduceOp::min};
    uint64_t w[4] = {0, 0, 0, 0};
    team_allreduce(t, call, w, ops);
}

}  // namespace kishmem::rt
