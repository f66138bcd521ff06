// Which PEs have entered a team's collective call: each PE writes the epoch of the call it
// enters into its own host segment, and a hang message reads the same-host peers' words, so that
// it names the PEs that are really missing (a dissemination round waits for one predecessor,
// which may itself be waiting for someone else).
//
// The word: in team t's region, the dissemination slot of parity 1 and round kMaxRounds - 2,
// which only a team of more than 2^30 PEs would use; active sets (barriers over pSync) write
// theirs, which also says which set, in that slot of the active sets' region.
//
// Also which group's collective each PE is inside now (InCollective), so that a PE waiting in
// one group's collective for a PE that is inside another group's collective including the
// waiter (a team barrier on some PEs, an active-set barrier on others) knows that neither call
// can complete, and ends the job naming both. The record: the world team's region, the slot of
// parity 1 and round kMaxRounds - 3.
#pragma once
#include <cstdint>

#include "kishmem/team.h"

namespace kishmem {

// This PE enters collective call `epoch` of `team` (a team, or an active set: slot < 0).
void arrival_mark(const kishmem_team* team, uint64_t epoch);

// What a Waiter in call `epoch` of `team` adds to its hang messages (Waiter::set_detail).
struct ArrivalQuery {
    const kishmem_team* team;
    uint64_t epoch;
};
void arrival_detail(const void* query, char* out, unsigned long n);

struct CallTag;

// This PE is inside a collective of `group` (a team or an active set) while it lives.
class InCollective {
public:
    explicit InCollective(const kishmem_team* group);
    ~InCollective();
    InCollective(const InCollective&) = delete;
    InCollective& operator=(const InCollective&) = delete;

private:
    bool on_;  // recorded (not under SHMEM_THREAD_MULTIPLE)
};

// What a Waiter in a collective of `group` (this PE's call `tag`) waiting for world PE `from`
// checks about once a second (Waiter::set_check): when `from` stays inside the same collective
// of another group that includes this PE over two checks, the job ends with one message naming
// both PEs and both calls.
struct CrossQuery {
    const kishmem_team* group;
    const CallTag* tag;
    int from;
    uint64_t seen = 0;  // from's record at the last check that found it in another group (0: none)
};
void cross_group_check(void* query);

// Ends the job: world PE `from` is inside a collective of another group that includes this PE
// (a team's region slot, or -1 and the active set start, stride, size), while this PE waits
// for it in `mine` over `group` (sync.cpp: the words of call_disagreement).
[[noreturn]] void group_disagreement(const kishmem_team* group, const CallTag& mine, int from, int their_slot,
                                     int start, int stride, int size);

}  // namespace kishmem
