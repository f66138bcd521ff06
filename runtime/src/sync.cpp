// Barriers and waiting.  The barrier is a dissemination over the transports themselves (not the
// launcher's fence): ceil(log2 N) rounds, in round r PE i signals PE i+2^r.  Each signal carries
// a min/max pair, so the same code checks that collective calls agree on their arguments.
#include <sched.h>

#include <chrono>
#include <cstdio>

#include "kishmem/env.h"
#include "state.h"

namespace kishmem {

namespace {
double now_s() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}
}  // namespace

void sync_minmax(const char* call, const uint64_t v[2], uint64_t vmin[2], uint64_t vmax[2]) {
    State& s = state();
    vmin[0] = vmax[0] = v[0];
    vmin[1] = vmax[1] = v[1];
    const uint64_t epoch = ++s.sync_epoch;
    const std::size_t parity = epoch & 1;
    int round = 0;
    for (int dist = 1; dist < s.npes; dist <<= 1, ++round) {
        const int to = (s.pe + dist) % s.npes;
        const int from = (s.pe - dist + s.npes) % s.npes;
        const std::size_t off = (parity * kMaxRounds + round) * kSlotBytes;
        SyncSlot out{};
        out.vmin[0] = vmin[0], out.vmin[1] = vmin[1], out.vmax[0] = vmax[0], out.vmax[1] = vmax[1];
        Transport* t = s.route[to];
        check_status(t->put(to, off + offsetof(SyncSlot, vmin), &out.vmin, 4 * sizeof(uint64_t), false), call, to);
        check_status(t->fence(), call, to);
        // The flag is an aligned 8-byte put, not an atomic: no round trip waits on the target.
        check_status(t->put(to, off + offsetof(SyncSlot, seq), &epoch, sizeof epoch, false), call, to);

        SyncSlot* in = reinterpret_cast<SyncSlot*>(s.base + off);
        rt::Waiter w(call, "PE %lld to arrive (barrier round %lld, epoch %lld)", from, round,
                     static_cast<long long>(epoch));
        while (__atomic_load_n(&in->seq, __ATOMIC_ACQUIRE) < epoch) w.spin();
        for (int k = 0; k < 2; ++k) {
            vmin[k] = in->vmin[k] < vmin[k] ? in->vmin[k] : vmin[k];
            vmax[k] = in->vmax[k] > vmax[k] ? in->vmax[k] : vmax[k];
        }
    }
}

}  // namespace kishmem

namespace kishmem::rt {

void progress() {
    State& s = state();
    if (s.needs_progress)
        for (Transport* t : s.transports) t->progress();
}

void sync_all() {
    uint64_t v[2] = {0, 0}, lo[2], hi[2];
    sync_minmax("shmem_sync_all", v, lo, hi);
}

void barrier_all() {
    quiet();
    uint64_t v[2] = {0, 0}, lo[2], hi[2];
    sync_minmax("shmem_barrier_all", v, lo, hi);
}

void Waiter::spin() {
    State& s = state();
    progress();
    // Yield where PEs outnumber cores, and in any wait that is not over quickly (other jobs
    // may share the cores).
    if (s.yield || count_ > 256) sched_yield();
    if ((++count_ & 1023) != 0) return;
    if (s.hang_warn <= 0 && s.hang_abort <= 0) return;
    double t = now_s();
    if (start_ == 0) {
        start_ = t;
        return;
    }
    double waited = t - start_;
    char what[256];
    std::snprintf(what, sizeof what, fmt_, a_, b_, c_);
    if (s.hang_abort > 0 && waited >= s.hang_abort)
        fatal(call_, "waited %.0f s for %s; aborting (KISHMEM_HANG_ABORT=%g)", waited, what, s.hang_abort);
    if (!warned_ && s.hang_warn > 0 && waited >= s.hang_warn) {
        warned_ = true;
        warn(call_, "has waited %.0f s for %s (still waiting; KISHMEM_HANG_ABORT=N aborts after N s)", waited, what);
    }
}

}  // namespace kishmem::rt
