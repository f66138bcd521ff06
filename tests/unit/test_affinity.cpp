// KISHMEM_YIELD=auto's decision (runtime/src/affinity.h): PEs bound one to a core are not
// oversubscribed, PEs sharing fewer cores than there are PEs are, whatever each PE's own mask.
#include <gtest/gtest.h>
#include <sched.h>

#include <cstring>
#include <initializer_list>
#include <vector>

#include "affinity.h"

using kishmem::Blob;

namespace {
Blob mask(std::initializer_list<int> cpus) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cpus) CPU_SET(c, &set);
    const auto* p = reinterpret_cast<const uint8_t*>(&set);
    return Blob(p, p + sizeof set);
}
}  // namespace

TEST(Affinity, BoundOneToACoreSpins) {
    // mpirun's default for 2 PEs: each bound to its own core (each mask has one CPU).
    EXPECT_EQ(kishmem::cpus_shared_by_pes({mask({0}), mask({1})}, {true, true}), 0);
}

TEST(Affinity, UnboundOnEnoughCpusSpins) {
    EXPECT_EQ(kishmem::cpus_shared_by_pes({mask({0, 1, 2, 3}), mask({0, 1, 2, 3})}, {true, true}), 2);
}

TEST(Affinity, MorePesThanCpusYields) {
    // 4 PEs over 2 CPUs, bound or not.
    const std::vector<bool> local(4, true);
    EXPECT_LT(kishmem::cpus_shared_by_pes({mask({0, 1}), mask({0, 1}), mask({0, 1}), mask({0, 1})}, local), 0);
    EXPECT_LT(kishmem::cpus_shared_by_pes({mask({0}), mask({1}), mask({0}), mask({1})}, local), 0);
    // Two PEs bound to the same core.
    EXPECT_LT(kishmem::cpus_shared_by_pes({mask({3}), mask({3})}, {true, true}), 0);
}

TEST(Affinity, OnlySameHostPesCount) {
    // PEs 2 and 3 run elsewhere: their masks say nothing about this host.
    EXPECT_EQ(kishmem::cpus_shared_by_pes({mask({0}), mask({1}), mask({0}), mask({0})}, {true, true, false, false}), 0);
}

TEST(Affinity, OwnMaskIsReadable) {
    const Blob b = kishmem::affinity_blob();
    ASSERT_EQ(b.size(), sizeof(cpu_set_t));
    cpu_set_t set;
    std::memcpy(&set, b.data(), sizeof set);
    EXPECT_GE(CPU_COUNT(&set), 1);
}
