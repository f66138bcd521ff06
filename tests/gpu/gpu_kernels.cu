// Kernels of the GPU test, in a translation unit of their own: with gpu_main.cu it proves that
// two .cu files built without -rdc each see the device state.
#include <cooperative_groups.h>
#include <shmem.h>
#include <shmemx.h>

#include "gpu_kernels.h"

__global__ void k_ring_put(int* dst, const int* src, int n) {
    int me = shmem_my_pe(), np = shmem_n_pes();
    if (threadIdx.x == 0 && blockIdx.x == 0) shmem_int_put(dst, src, n, (me + 1) % np);
}

__global__ void k_p_g(long* cell, long* out) {
    int me = shmem_my_pe(), np = shmem_n_pes();
    shmem_long_p(cell, 1000 + me, (me + 1) % np);
    shmem_barrier_all();
    *out = shmem_long_g(cell, (me + 1) % np);  // what my left neighbour put there... on my right PE
}

__global__ void k_atomics(unsigned long long* counter, int rounds, unsigned long long* fetched) {
    int np = shmem_n_pes();
    for (int r = 0; r < rounds; ++r)
        for (int pe = 0; pe < np; ++pe) fetched[r * np + pe] = shmem_ulonglong_atomic_fetch_inc(counter, pe);
}

__global__ void k_signal(char* dst, const char* src, size_t n, uint64_t* sig, int rounds) {
    int me = shmem_my_pe(), np = shmem_n_pes();
    int right = (me + 1) % np;
    for (int r = 1; r <= rounds; ++r) {
        shmemx_putmem_signal_block(dst, src, n, sig, 1, SHMEM_SIGNAL_ADD, right);
        if (threadIdx.x == 0) shmem_signal_wait_until(sig, SHMEM_CMP_GE, (uint64_t)r);
        __syncthreads();
    }
}

// scope 0-2: a thread's, a warp's, the block's put of src into the right PE's dst; 3-5: their
// get of the right PE's src into this PE's dst.
__global__ void k_coop_put(char* dst, const char* src, size_t n, int scope) {
    int me = shmem_my_pe(), np = shmem_n_pes();
    int right = (me + 1) % np;
    if (scope == 0 && threadIdx.x == 0) shmem_putmem(dst, src, n, right);
    if (scope == 1 && threadIdx.x < 32) shmemx_putmem_warp(dst, src, n, right);
    if (scope == 2) shmemx_putmem_block(dst, src, n, right);
    if (scope == 3 && threadIdx.x == 0) shmem_getmem(dst, src, n, right);
    if (scope == 4 && threadIdx.x < 32) shmemx_getmem_warp(dst, src, n, right);
    if (scope == 5) shmemx_getmem_block(dst, src, n, right);
    shmemx_barrier_all_block();
}

// Every block writes its index into the right PE, the grid synchronises, block 0 runs the
// PE-level barrier: needs all blocks resident (a collective launch).
__global__ void k_collective(int* dst) {
    int me = shmem_my_pe(), np = shmem_n_pes();
    if (threadIdx.x == 0) shmem_int_p(dst + blockIdx.x, 1000 * me + (int)blockIdx.x, (me + 1) % np);
    cooperative_groups::this_grid().sync();
    if (blockIdx.x == 0) shmemx_barrier_all_block();
}

int launch_collective(int* dst, int blocks) {
    void* args[] = {&dst};
    return (int)shmemx_collective_launch((const void*)k_collective, dim3(blocks), dim3(64), args, 0, 0);
}

int collective_gridsize(int* most, int* per_sm) {
    int e = (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, k_collective, 64, 0);
    return e != 0 ? e : shmemx_collective_launch_query_gridsize((const void*)k_collective, dim3(64), nullptr, 0, most);
}

__global__ void k_strided(int* dst, const int* src, int* got) {
    int right = (shmem_my_pe() + 1) % shmem_n_pes();
    shmem_int_iput(dst, src, 3, 2, 10, right);  // right's dst[3i] = my src[2i]
    shmem_barrier_all();
    shmem_int_iget(got, dst, 1, 3, 10, right);  // got[i] = right's dst[3i]
}

__global__ void k_waits(int* flags, int n, unsigned long long* out) {
    int right = (shmem_my_pe() + 1) % shmem_n_pes();
    for (int i = 0; i < n; ++i) shmem_int_p(flags + i, i + 1, right);
    shmem_int_wait_until_all(flags, n, nullptr, SHMEM_CMP_GE, 1);
    out[0] = shmem_int_wait_until_any(flags, n, nullptr, SHMEM_CMP_EQ, 3);
    size_t idx[8];
    out[1] = shmem_int_test_some(flags, n, idx, nullptr, SHMEM_CMP_GT, 2);
    out[2] = idx[0];
    int status[4] = {0, 1, 1, 1};
    out[3] = shmem_int_test_any(flags, n, status, SHMEM_CMP_GT, 5);
    int refs[4] = {1, 2, 3, 4};
    shmem_int_wait_until_all_vector(flags, n, nullptr, SHMEM_CMP_EQ, refs);
    out[4] = shmem_int_test_all_vector(flags, n, nullptr, SHMEM_CMP_EQ, refs);
}

// Team queries and team barriers in a kernel: WORLD and a team of the even PEs.
__global__ void k_teams(shmem_team_t even, int* out) {
    out[0] = shmem_team_my_pe(SHMEM_TEAM_WORLD);
    out[1] = shmem_team_n_pes(SHMEM_TEAM_WORLD);
    out[2] = shmem_team_my_pe(even);
    out[3] = shmem_team_n_pes(even);
    if (out[2] >= 0) shmem_team_sync(even);
    shmem_team_sync(SHMEM_TEAM_WORLD);
}

void launch_teams(shmem_team_t even, int* out) { k_teams<<<1, 1>>>(even, out); }

void launch_strided(int* dst, const int* src, int* got) { k_strided<<<1, 1>>>(dst, src, got); }
void launch_waits(int* flags, int n, unsigned long long* out) { k_waits<<<1, 1>>>(flags, n, out); }

void launch_ring_put(int* dst, const int* src, int n) { k_ring_put<<<1, 1>>>(dst, src, n); }
void launch_p_g(long* cell, long* out) { k_p_g<<<1, 1>>>(cell, out); }
void launch_atomics(unsigned long long* c, int rounds, unsigned long long* f) { k_atomics<<<1, 1>>>(c, rounds, f); }
void launch_signal(char* d, const char* s, size_t n, uint64_t* sig, int rounds) { k_signal<<<1, 256>>>(d, s, n, sig, rounds); }
void launch_coop_put(char* d, const char* s, size_t n, int scope) { k_coop_put<<<1, 256>>>(d, s, n, scope); }
