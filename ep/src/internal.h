// kishmem::ep internals: the two forms of the calls (CPU on a host heap, kernels on a GPU heap)
// and the error record kernels fill.
#pragma once

#include <stdint.h>

#include "kishmem/ep/ep.h"
#include "row_check.h"

namespace kishmem::ep {

// Filled by kernels (first error wins, code written last); read by Buffer::check. Host-mapped.
struct ErrorRecord {
    int code;      // ErrorCode; 0: none
    int token;     // topk_idx row
    int k;         // topk_idx column
    int from_pe;   // kPeerBad: the team rank that reported bad input
    long long value;
};
// kErrPeerBad / kErrPeerBadCombine: a dispatch / combine flag from PE from_pe carried
// kBadInputBit (value: this PE's round).
enum ErrorCode : int { kErrNone = 0, kErrIndex = 1, kErrDuplicate = 2, kErrPeerBad = 3, kErrPeerBadCombine = 4 };

// How one PE's part of Buffer::create's second step ended (every PE publishes it).
enum PartFailure : int { kPartOk = 0, kPartNoBlock = 1, kPartGpuStart = 2 };
namespace testing {
// Tests only: this PE's part of the next Buffer::create ends with `code` (a PartFailure), as if
// its block or its GPU form could not be had.
void fail_next_create(int code);
}  // namespace testing

// The first bad entry of topk_idx[T][K] in row-major order (t * K + k), or -1.
template <class Idx>
inline long first_bad_entry(const Idx* idx, int T, int K, int E) {
    for (long t = 0; t < T; ++t)
        if (const int k = first_bad_in_row(idx + t * K, K, E); k >= 0) return t * K + k;
    return -1;
}

struct HostPath {
    static int dispatch_send(Buffer& b, const uint16_t* x, const void* idx, bool idx64, int T, bool poison);
    static int dispatch_recv(Buffer& b);
    static int combine_send(Buffer& b, const uint16_t* expert_out);
    static int combine_recv(Buffer& b, const float* weights, uint16_t* out, int T);
    static void received_bf16(const Buffer& b, uint16_t* out);  // Buffer::received_bf16's CPU form
    static int combine_bad_input(Buffer& b);  // comb_flag[me] = round | kBadInputBit on every PE
    static int report_peer(Buffer& b, int code, int from_pe, uint64_t round);  // kPeerError, after the message
};

struct GpuPath {
    static bool is_device_memory(const void* p);  // false in builds without CUDA
    static int send_blocks(const Buffer& b, int T, int* per = nullptr);  // dispatch's send kernel (Buffer::dispatch_blocks)
    static int waiting_blocks(const Buffer& b, int T);  // kernels whose every block waits for every PE
    static int combine_blocks(const Buffer& b, int T);  // combine's receive (Buffer::receive_blocks)
    static bool capturing(cudaStream_t s);         // the stream is being captured into a graph
    static long long device_id();                  // this PE's GPU (from its UUID), > 0; 0: none
    static int init(Buffer& b);                     // error record, zeroed block, pe_of table
    static void fini(Buffer& b);
    // fuse_recv: the send kernel's last block also does the receive (dispatch without send_only)
    static int dispatch_send(Buffer& b, cudaStream_t s, const void* x, const void* idx, bool idx64, int T, bool poison,
                             bool fuse_recv);
    static int dispatch_recv(Buffer& b, cudaStream_t s);
    // fuse_recv: one kernel sends and receives (combine without send_only)
    static int combine_send(Buffer& b, cudaStream_t s, const void* expert_out, const float* weights, void* out, int T,
                            bool fuse_recv);
    static int combine_recv(Buffer& b, cudaStream_t s, const float* weights, void* out, int T);
    static int received_bf16(Buffer& b, cudaStream_t s, void* out);  // Buffer::received_bf16's kernel
    // comb_flag[me] = round | kBadInputBit on every PE, stream-ordered (gpu_refuse.cu)
    static int combine_bad_input(Buffer& b, cudaStream_t s);
    // a refused hook after a sent combine: its acknowledgement to the mapped PEs (gpu_refuse.cu)
    static int combine_acknowledge(Buffer& b, cudaStream_t s);
    static int check(Buffer& b, cudaStream_t s);  // synchronizes; reports the error record
    // The kernel clock: the two stamps a call of kind `call` gives its kernels, reset on the
    // stream first (null while the clock is off; gpu_path.cu only); and every kind's stamps
    // copied to the host (stamps[2 * kClockCalls]; kOk, or kNoGpu after a message).
    static unsigned long long* clock_slot(Buffer& b, cudaStream_t s, int call);
    static int read_clock(Buffer& b, unsigned long long* stamps);
    static int copy_to_device(void* dst, const void* src, size_t n);  // kOk, or kNoGpu after a message
    static int zero_device(void* dst, size_t n);
};

// select_topk's argument checks (both forms; kOk, or kBadArgument after the message) and its
// messages: one line "kishmem: kishmem::ep::CALL: PE n: WHAT" on stderr, flushed (topk.cpp).
int topk_args_bad(const char* call, int T, int E, int K, int max_nodes, int epn, const void* scores, const void* idx);
void topk_report(const char* call, const char* what);

// Message text for an error record (the call, this PE and the value).
std::string describe(const ErrorRecord& e, const Layout& l);

}  // namespace kishmem::ep
