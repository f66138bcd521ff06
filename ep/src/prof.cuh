// Stage timestamps inside the GPU form's kernels, for finding where a call's time goes. Built
// only with -DKISHMEM_EP_PROFILE (otherwise every macro is empty): each kernel stamps the GPU's
// global timer per stage (earliest start, latest end over blocks) for its last 256 rounds, and
// Buffer's destruction prints each stage's median time from the kernel's start. The stages:
//   dispatch      s1 entries counted and checked (the fetch-adds back), s2 first rows known,
//                 s3 rows sent, s4 arrived at every PE, s5 the last block's start, s6 every
//                 sender arrived (the receiving block), s7 counts taken
//   combine_send  s1 rows about to be pushed, s2 rows (or offsets) written, s3 arrived,
//                 s4 the last block's start, s5 whether some PE is unmapped known, s6 block 0's
//                 offsets stored at the peers, s7 block 0's arrival (pull) added
//   combine_recv  s1 every sender arrived, s2 sums written, s3 the last block's start,
//                 s4 reads acknowledged to the peers, s5 the peers' acknowledgements received
//                 (s4 and s5 only in rounds where some PE waits for reads), s6 the last block's end
#pragma once

#include <stdint.h>

#include "clock.cuh"

namespace kishmem::ep::gpu {

enum ProfKind { kProfDispatch = 0, kProfCombineSend = 1, kProfCombineRecv = 2, kProfKinds = 3 };
constexpr int kProfRounds = 256, kProfStages = 8;

#if defined(KISHMEM_EP_PROFILE)
__device__ unsigned long long g_prof[kProfKinds][kProfRounds][kProfStages];

// Stage 0 keeps the earliest time (stored complemented, so that max finds it); others the latest.
#define KISHMEM_EP_PROF(kind, round, stage)                                                                 \
    do {                                                                                                    \
        if (threadIdx.x == 0) {                                                                             \
            const unsigned long long t_ = ::kishmem::ep::gpu::globaltimer();                                \
            atomicMax(&::kishmem::ep::gpu::g_prof[kind][(round) % kProfRounds][stage], (stage) == 0 ? ~t_ : t_); \
        }                                                                                                   \
    } while (0)
#else
#define KISHMEM_EP_PROF(kind, round, stage) \
    do {                                    \
    } while (0)
#endif

}  // namespace kishmem::ep::gpu
