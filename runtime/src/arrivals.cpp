#include "arrivals.h"

#include <cstdio>
#include <string>

#include "state.h"

namespace kishmem {
namespace {
constexpr std::size_t kArrivalSlot = 2 * kMaxRounds - 2;  // parity 1, round kMaxRounds - 2
static_assert(kArrivalSlot * kSlotBytes + sizeof(uint64_t) <= kSyncBytes, "arrival word inside the slots");

// A team's word is in its region; the active sets share one region (their dissemination slots
// are otherwise unused: their barriers signal through pSync).
std::size_t arrival_offset(const kishmem_team* t) {
    const std::size_t region = t->slot >= 0 ? team_region_offset(t) : kTeamSlotActiveSets * kTeamRegion;
    return region + kArrivalSlot * kSlotBytes;
}

// The group a PE is inside now (its own host segment, written by it alone).
struct Inside {
    uint64_t seq;  // odd while inside a collective: +1 on entry, +1 on exit
    int32_t slot;  // the team's region slot, or -1: an active set of (start, stride, size)
    int32_t start, stride, size;
};
constexpr std::size_t kInsideOffset = kTeamSlotWorld * kTeamRegion + (2 * kMaxRounds - 3) * kSlotBytes;
static_assert(sizeof(Inside) <= kSlotBytes, "inside record in one slot");

Inside* my_inside() { return reinterpret_cast<Inside*>(state().sync_base + kInsideOffset); }

Inside group_of(const kishmem_team* g) {
    if (g->slot >= 0) return Inside{0, g->slot, 0, 0, 0};
    const int n = g->size();
    return Inside{0, -1, g->members[0], n > 1 ? g->members[1] - g->members[0] : 1, n};
}

// The arrival word of call `epoch`: a team's epoch; for an active set, which set (a hash of
// start, stride and size) in the high half and the epoch's low 32 bits in the low half.
uint64_t arrival_word(const kishmem_team* t, uint64_t epoch) {
    if (t->slot >= 0) return epoch;
    const Inside g = group_of(t);
    uint64_t h = 1469598103934665603ull;
    for (int32_t v : {g.start, g.stride, g.size}) h = (h ^ static_cast<uint32_t>(v)) * 1099511628211ull;
    return (h << 32) | (epoch & 0xffffffffu);
}

// Whether a PE whose word is `word` has entered call `epoch` of `t` (or a later one).
bool arrived(const kishmem_team* t, uint64_t word, uint64_t epoch) {
    if (t->slot >= 0) return word >= epoch;
    const uint64_t want = arrival_word(t, epoch);
    return (word >> 32) == (want >> 32) && static_cast<uint32_t>(word) >= static_cast<uint32_t>(want);
}

bool same_group(const Inside& a, const Inside& b) {
    return a.slot == b.slot && (a.slot >= 0 || (a.start == b.start && a.stride == b.stride && a.size == b.size));
}

// Whether this PE belongs to the group (a team: this PE has one in that slot, which is then the
// same team: members of a team agree on its slot).
bool includes_me(const Inside& g) {
    State& s = state();
    if (g.slot >= 0) return g.slot < 64 && g.slot != kTeamSlotActiveSets && ((s.team_slots_used >> g.slot) & 1);
    const long d = static_cast<long>(s.pe) - g.start;
    return g.stride > 0 && d >= 0 && d % g.stride == 0 && d / g.stride < g.size;
}
}  // namespace

// One record per PE: with SHMEM_THREAD_MULTIPLE, threads may be inside collectives of different
// groups at once, so such a PE records nothing (it never looks inside another group's call) and
// does not judge its peers' records either.
InCollective::InCollective(const kishmem_team* group) : on_(state().thread_level != kThreadMultiple) {
    if (!on_) return;
    Inside* r = my_inside();
    const Inside g = group_of(group);
    r->slot = g.slot, r->start = g.start, r->stride = g.stride, r->size = g.size;
    __atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELEASE);
}

InCollective::~InCollective() {
    if (!on_) return;
    Inside* r = my_inside();
    __atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELEASE);
}

void cross_group_check(void* query) {
    auto* q = static_cast<CrossQuery*>(query);
    State& s = state();
    if (s.thread_level == kThreadMultiple) return;
    Inside theirs{};
    Status st = s.route_sync[q->from]->get(0, q->from, kInsideOffset, &theirs, sizeof theirs, false);
    if (st == Status::ok) st = s.route_sync[q->from]->quiet(0);
    if (st != Status::ok || !(theirs.seq & 1) || same_group(theirs, group_of(q->group)) || !includes_me(theirs)) {
        q->seen = 0;
        return;
    }
    // Seen once: look again a second later (a signal it sent before may still be on its way).
    if (q->seen != theirs.seq) {
        q->seen = theirs.seq;
        return;
    }
    group_disagreement(q->group, *q->tag, q->from, theirs.slot, theirs.start, theirs.stride, theirs.size);
}

void arrival_mark(const kishmem_team* team, uint64_t epoch) {
    __atomic_store_n(reinterpret_cast<uint64_t*>(state().sync_base + arrival_offset(team)), arrival_word(team, epoch),
                     __ATOMIC_RELEASE);
}

void arrival_detail(const void* query, char* out, unsigned long n) {
    const auto* q = static_cast<const ArrivalQuery*>(query);
    State& s = state();
    std::string missing, unknown;
    int nmissing = 0;
    for (int m : q->team->members) {
        if (m == s.pe) continue;
        char* base = s.shm && s.local[m] ? s.shm->base(m) : nullptr;
        if (!base) {
            unknown += (unknown.empty() ? "" : ", ") + std::to_string(m);
            continue;
        }
        const uint64_t at = __atomic_load_n(reinterpret_cast<const uint64_t*>(base + arrival_offset(q->team)),
                                            __ATOMIC_ACQUIRE);
        if (arrived(q->team, at, q->epoch)) continue;
        ++nmissing;
        missing += (missing.empty() ? "" : ", ") + std::to_string(m);
    }
    if (nmissing) std::snprintf(out, n, "not in this call yet: PE%s %s", nmissing > 1 ? "s" : "", missing.c_str());
    else std::snprintf(out, n, "every same-host PE is in this call");
    if (!unknown.empty()) {
        const std::size_t k = std::char_traits<char>::length(out);
        if (k + 1 < n) std::snprintf(out + k, n - k, " (not known for PEs on other hosts: %s)", unknown.c_str());
    }
}

}  // namespace kishmem
