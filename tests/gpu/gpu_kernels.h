#pragma once
#include <stddef.h>
#include <stdint.h>
#include <shmem.h>
void launch_ring_put(int* dst, const int* src, int n);
void launch_p_g(long* cell, long* out);
void launch_atomics(unsigned long long* counter, int rounds, unsigned long long* fetched);
void launch_signal(char* dst, const char* src, size_t n, uint64_t* sig, int rounds);
void launch_coop_put(char* dst, const char* src, size_t n, int scope);
int launch_collective(int* dst, int blocks);
// The largest collective grid of launch_collective's kernel (shmemx_collective_launch_query_gridsize)
// and its blocks per SM (occupancy): 0 or the CUDA error.
int collective_gridsize(int* most, int* per_sm);
void launch_strided(int* dst, const int* src, int* got);
void launch_waits(int* flags, int n, unsigned long long* out);
void launch_teams(shmem_team_t even, int* out);
