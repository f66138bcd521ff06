#include "arrivals.h"

#include <cstdio>
#include <string>

#include "state.h"

namespace kishmem {
namespace {
constexpr std::size_t kArrivalSlot = 2 * kMaxRounds - 2;  // parity 1, round kMaxRounds - 2
static_assert(kArrivalSlot * kSlotBytes + sizeof(uint64_t) <= kSyncBytes, "arrival word inside the slots");

std::size_t arrival_offset(const kishmem_team* t) { return team_region_offset(t) + kArrivalSlot * kSlotBytes; }
}  // namespace

void arrival_mark(const kishmem_team* team, uint64_t epoch) {
    if (team->slot < 0) return;
    __atomic_store_n(reinterpret_cast<uint64_t*>(state().sync_base + arrival_offset(team)), epoch, __ATOMIC_RELEASE);
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
        if (at >= q->epoch) continue;
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
