// Barriers and waiting.  The barrier is a dissemination over the transports themselves (not the
// launcher's fence): ceil(log2 N) rounds, in round r PE i signals PE i+2^r.  Each signal carries
// four words to combine and the tag of the sender's call (routine, arguments): a receiver whose
// own tag differs stops the job naming both calls.  Round 0 pairs every PE with its ring
// predecessor, so whenever the tags are not all equal some PE sees a different one.
#include <cstdio>
#include <cstring>

#include "kishmem/env.h"
#include "arrivals.h"
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

// One 8-byte word into the hash: multiply, then fold the high bits down (a tag is built from a
// few words, so each step must mix well on its own).
inline uint64_t mix(uint64_t h, uint64_t w) {
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

// A routine's name, 8 bytes at a time (a byte at a time cost ~20 ns per collective call); the
// last word overlaps the one before where the length is not a multiple of 8.
inline uint64_t hash_name(const char* s) {
    const std::size_t n = std::strlen(s);
    uint64_t h = mix(0xcbf29ce484222325ull, n), w = 0;
    if (n < 8) {
        for (std::size_t i = 0; i < n; ++i) w |= static_cast<uint64_t>(static_cast<unsigned char>(s[i])) << (8 * i);
        return mix(h, w);
    }
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        std::memcpy(&w, s + i, 8);
        h = mix(h, w);
    }
    if (i < n) {
        std::memcpy(&w, s + n - 8, 8);
        h = mix(h, w);
    }
    return h;
}

// "shmem_int_broadcast(16 bytes, root 1)"
void describe(char* out, std::size_t size, const char* name, CallArgs args, uint64_t a, uint64_t b) {
    using ull = unsigned long long;
    const ull x = a, y = b;
    switch (args) {
        case CallArgs::none: std::snprintf(out, size, "%s", name); return;
        case CallArgs::bytes: std::snprintf(out, size, "%s(%llu bytes)", name, x); return;
        case CallArgs::bytes_root: std::snprintf(out, size, "%s(%llu bytes, root %llu)", name, x, y); return;
        case CallArgs::bytes_strides:
            std::snprintf(out, size, "%s(%llu bytes, dst stride %lld, src stride %lld)", name, x,
                          static_cast<long long>(static_cast<int32_t>(y >> 32)),
                          static_cast<long long>(static_cast<int32_t>(y)));
            return;
        case CallArgs::size_align:
            if (y) std::snprintf(out, size, "%s(alignment %llu, size %llu)", name, y, x);
            else std::snprintf(out, size, "%s(size %llu)", name, x);
            return;
        case CallArgs::count_size: std::snprintf(out, size, "%s(count %llu, size %llu)", name, x, y); return;
        case CallArgs::offset_size:
            std::snprintf(out, size, "%s(heap offset %#llx, size %llu)", name, x, y);
            return;
        case CallArgs::offset: std::snprintf(out, size, "%s(heap offset %#llx)", name, x); return;
        case CallArgs::members:
            std::snprintf(out, size, "%s(a team of %llu PEs, list hash %#llx)", name, y, x);
            return;
    }
    std::snprintf(out, size, "%s", name);
}
}  // namespace

uint64_t CallTag::key() const {
    if (!key_) key_ = mix(hash_name(call), static_cast<uint64_t>(args)) | 1;
    return key_;
}

uint64_t CallTag::flag() const {
    if (!flag_) flag_ = mix(mix(key(), a), b) | 1;  // never SHMEM_SYNC_VALUE
    return flag_;
}

uint64_t CallTag::signal(int pe) const { return mix(flag(), static_cast<uint32_t>(pe)) | 1; }

namespace {
// The CallRecord of the group in region `slot` (-1: the active sets').
std::size_t record_offset(int slot) {
    return static_cast<std::size_t>(slot >= 0 ? slot : kTeamSlotActiveSets) * kTeamRegion + kSyncBytes + kScratchBytes -
           kCallRecordBytes;
}

// PE `from`'s CallRecord at `offset` of its host segment; false when it cannot be read.
bool read_record(int from, std::size_t offset, CallRecord* r) {
    State& s = state();
    *r = CallRecord{};
    Status st = s.route_sync[from]->get(0, from, offset, r, sizeof *r, false);
    if (st == Status::ok) st = s.route_sync[from]->quiet(0);
    r->name[sizeof r->name - 1] = 0;
    return st == Status::ok && r->name[0];
}

const char* group_words(const kishmem_team* g) {
    return g->slot < 0 ? "an active set" : g == rt::team_world() ? "SHMEM_TEAM_WORLD" : "a team";
}
}  // namespace

std::size_t call_record_offset(const kishmem_team* g) { return record_offset(g->slot); }

void call_record_write(const kishmem_team* g, const CallTag& tag) {
    auto* r = reinterpret_cast<CallRecord*>(state().sync_base + call_record_offset(g));
    // The same call as the last one (a loop of barriers): the record already says it.
    if (r->call == tag.key() && r->a == tag.a && r->b == tag.b && r->args == static_cast<uint8_t>(tag.args)) return;
    r->call = tag.key();
    r->a = tag.a;
    r->b = tag.b;
    r->args = static_cast<uint8_t>(tag.args);
    std::strncpy(r->name, tag.call, sizeof r->name - 1);
    r->name[sizeof r->name - 1] = 0;
}

namespace {
// `unnamed`: what to say of from's call when its record is not given.
[[noreturn]] void disagreement(const kishmem_team* g, const CallTag& mine, int from, const CallRecord* theirs,
                               const char* unnamed = "another collective call") {
    State& s = state();
    char me_text[192], other_text[256];
    describe(me_text, sizeof me_text, mine.call, mine.args, mine.a, mine.b);
    if (theirs) describe(other_text, sizeof other_text, theirs->name, static_cast<CallArgs>(theirs->args), theirs->a, theirs->b);
    else std::snprintf(other_text, sizeof other_text, "%s", unnamed);
    fatal(mine.call,
          "PEs disagree on a collective call: this PE (PE %d) called %s and PE %d called %s, over %s of %d PEs; "
          "every PE of the group must make the same collective calls, in the same order, with the same arguments",
          s.pe, me_text, from, other_text, group_words(g), g->size());
}

CallTag tag_of(const CallRecord& r) { return CallTag{r.name, r.a, r.b, static_cast<CallArgs>(r.args)}; }
}  // namespace

void call_disagreement(const kishmem_team* g, const CallTag& mine, int from, uint64_t call, uint64_t a, uint64_t b) {
    // The other PE's record: normally it still waits in that call (this PE never answers it).
    CallRecord r;
    if (read_record(from, call_record_offset(g), &r) && r.call == call && r.a == a && r.b == b)
        disagreement(g, mine, from, &r);
    // Else it has moved on: what its signal carried, as it arrived (all zero: a slot cleared under
    // a signal, not a call of the program's).
    char unnamed[224];
    std::snprintf(unnamed, sizeof unnamed,
                  "another collective call (it has moved on since; its signal for call %llu of this group, "
                  "region %d, carried call key %#llx with arguments %#llx, %#llx)",
                  static_cast<unsigned long long>(g->epoch), g->slot, static_cast<unsigned long long>(call),
                  static_cast<unsigned long long>(a), static_cast<unsigned long long>(b));
    disagreement(g, mine, from, nullptr, unnamed);
}

void psync_mismatch(const kishmem_team* g, const CallTag& mine, int from, const long* psync, const long* flag,
                    long seen) {
    State& s = state();
    const uint64_t word = static_cast<uint64_t>(seen);
    CallRecord r;
    if (read_record(from, call_record_offset(g), &r) && tag_of(r).signal(from) == word) disagreement(g, mine, from, &r);
    char me_text[192], where[96];
    describe(me_text, sizeof me_text, mine.call, mine.args, mine.a, mine.b);
    std::snprintf(where, sizeof where, "pSync[%td] (pSync %p)", flag - psync, static_cast<const void*>(psync));
    // Another PE's signal: which PE, in which of its calls (every PE's active-set record).
    for (int pe = 0; pe < s.npes; ++pe) {
        if (pe == from || !read_record(pe, call_record_offset(g), &r) || tag_of(r).signal(pe) != word) continue;
        char other_text[192];
        describe(other_text, sizeof other_text, r.name, static_cast<CallArgs>(r.args), r.a, r.b);
        fatal(mine.call,
              "pSync in use by another call: this PE (PE %d) in %s waited for PE %d's signal in %s and found PE %d's "
              "signal from its %s: a pSync array may be passed to a collective call only when no PE uses it in "
              "another any more (reused too early, or by two active sets at once); after a barrier over the PEs of "
              "both calls it may be used again, or use a different pSync",
              s.pe, me_text, from, where, pe, other_text);
    }
    fatal(mine.call,
          "pSync is not SHMEM_SYNC_VALUE: this PE (PE %d) in %s waited for PE %d's signal in %s and found %#lx, "
          "which no PE's collective call wrote: every element of pSync must be initialized to SHMEM_SYNC_VALUE on "
          "every PE of the active set before its first use (then a barrier, so that no PE starts before all are "
          "initialized), and the program must not write it while calls use it",
          s.pe, me_text, from, where, static_cast<unsigned long>(word));
}

void group_disagreement(const kishmem_team* g, const CallTag& mine, int from, int their_slot, int start, int stride,
                        int size) {
    CallRecord r;
    char me_text[192], other_text[192], their_group[128];
    describe(me_text, sizeof me_text, mine.call, mine.args, mine.a, mine.b);
    if (read_record(from, record_offset(their_slot), &r))
        describe(other_text, sizeof other_text, r.name, static_cast<CallArgs>(r.args), r.a, r.b);
    else
        std::snprintf(other_text, sizeof other_text, "a collective call");
    if (their_slot >= 0)
        std::snprintf(their_group, sizeof their_group, "%s", their_slot == kTeamSlotWorld ? "SHMEM_TEAM_WORLD" : "a team");
    else
        std::snprintf(their_group, sizeof their_group, "the active set PE_start=%d, stride %d, PE_size=%d", start,
                      stride, size);
    fatal(mine.call,
          "PEs disagree on a collective call: this PE (PE %d) called %s over %s of %d PEs and PE %d called %s over "
          "%s, which includes this PE: neither call can complete; every PE must make the same collective calls, "
          "in the same order",
          state().pe, me_text, group_words(g), g->size(), from, other_text, their_group);
}

// Dissemination: ceil(log2 n) rounds; in round r team PE i sends to team PE i + 2^r.  Each op is
// idempotent, so values that reach a PE twice along different paths do no harm.
// Aligned to a cache line: where its wait loop falls otherwise moved with unrelated changes and
// cost a 2-PE barrier_all up to 14 ns (0.093 -> 0.107 us).
__attribute__((aligned(64))) void team_allreduce(kishmem_team* team, const CallTag& tag, uint64_t w[4],
                                                 const ReduceOp ops[4]) {
    State& s = state();
    const char* call = tag.call;
    const int n = team->size(), me = team->my_index;
    const uint64_t epoch = ++team->epoch;
    const std::size_t base = team_region_offset(team) + (epoch & 1) * kMaxRounds * kSlotBytes;
    arrival_mark(team, epoch);  // hang messages name the PEs not in this call yet (arrivals.h)
    const ArrivalQuery arrivals{team, epoch};
    const InCollective inside(team);
    call_record_write(team, tag);
    // w[0..3], call, a, b: contiguous in the slot, one put.
    uint64_t out[7] = {0, 0, 0, 0, tag.key(), tag.a, tag.b};
    static_assert(offsetof(SyncSlot, call) == offsetof(SyncSlot, w) + 4 * sizeof(uint64_t), "slot layout");
    int round = 0;
    for (int dist = 1; dist < n; dist <<= 1, ++round) {
        const int to = team->members[(me + dist) % n];
        const int from = team->members[(me - dist + n) % n];
        const std::size_t off = base + round * kSlotBytes;
        Transport* t = s.route_sync[to];
        std::memcpy(out, w, 4 * sizeof(uint64_t));
        check_status(t->put(0, to, off + offsetof(SyncSlot, w), out, sizeof out, false), call, to);
        check_status(t->fence(0), call, to);
        // The flag is an aligned 8-byte put, not an atomic: no round trip waits on the target.
        check_status(t->put(0, to, off + offsetof(SyncSlot, seq), &epoch, sizeof epoch, false), call, to);

        SyncSlot* in = reinterpret_cast<SyncSlot*>(s.sync_base + off);
        rt::Waiter wt(call, "PE %lld to arrive (barrier round %lld, epoch %lld)", from, round,
                      static_cast<long long>(epoch));
        wt.set_detail(arrival_detail, &arrivals);
        CrossQuery cross{team, &tag, from};  // `from` in another group's collective (arrivals.h)
        wt.set_check(cross_group_check, &cross);
        while (__atomic_load_n(&in->seq, __ATOMIC_ACQUIRE) < epoch) wt.spin();
        if (in->call != out[4] || in->a != tag.a || in->b != tag.b)
            call_disagreement(team, tag, from, in->call, in->a, in->b);
        for (int k = 0; k < 4; ++k) w[k] = combine(ops[k], w[k], in->w[k]);
    }
}

void team_minmax(kishmem_team* team, const CallTag& tag, const uint64_t v[2], uint64_t lo[2], uint64_t hi[2]) {
    static const ReduceOp ops[4] = {ReduceOp::min, ReduceOp::min, ReduceOp::max, ReduceOp::max};
    uint64_t w[4] = {v[0], v[1], v[0], v[1]};
    team_allreduce(team, tag, w, ops);
    lo[0] = w[0], lo[1] = w[1], hi[0] = w[2], hi[1] = w[3];
}

void team_agree(kishmem_team* team, const CallTag& tag) {
    static const ReduceOp ops[4] = {ReduceOp::min, ReduceOp::min, ReduceOp::min, ReduceOp::min};
    uint64_t w[4] = {0, 0, 0, 0};
    team_allreduce(team, tag, w, ops);
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

void finalize_barrier() {
    // Its own tag: a PE in shmem_barrier_all (or any other collective) while another finalizes
    // is a disagreement said at once, not a barrier that lets one PE on to wait for ever.
    quiet_all();
    team_sync(team_world(), "shmem_finalize");
}

void team_sync(kishmem_team* t, const char* call) { team_agree(t, CallTag{call}); }

}  // namespace kishmem::rt
