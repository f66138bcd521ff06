// Which PEs have entered a team's collective call: each PE writes the epoch of the call it
// enters into its own host segment, and a hang message reads the same-host peers' words, so that
// it names the PEs that are really missing (a dissemination round waits for one predecessor,
// which may itself be waiting for someone else).
//
// The word: in team t's region, the dissemination slot of parity 1 and round kMaxRounds - 2,
// which only a team of more than 2^30 PEs would use.
#pragma once
#include <cstdint>

#include "kishmem/team.h"

namespace kishmem {

// This PE enters collective call `epoch` of `team` (a team with a region: slot >= 0).
void arrival_mark(const kishmem_team* team, uint64_t epoch);

// What a Waiter in call `epoch` of `team` adds to its hang messages (Waiter::set_detail).
struct ArrivalQuery {
    const kishmem_team* team;
    uint64_t epoch;
};
void arrival_detail(const void* query, char* out, unsigned long n);

}  // namespace kishmem
