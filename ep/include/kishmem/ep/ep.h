// kishmem::ep: expert-parallel (MoE) dispatch and combine over a team of PEs.
//
// A Buffer is made collectively over a team; dispatch sends every token to the PEs of its top-k
// experts, which receive them packed per local expert; combine sends each expert's output row
// back to the token's PE, which adds them weighted. The buffer lives in the symmetric heap: on
// a GPU heap the calls launch kernels on the given stream (each peer is reached by the path the
// runtime chose for it: load/store, IBGDA or the CPU proxy); on a host heap the same calls run
// on the CPU with the host API (the stream is ignored). Layouts and byte formulas:
// ep/README.md and layout.h.
#pragma once

#include <shmem.h>
#include <stddef.h>
#include <stdint.h>

#include <memory>
#include <string>

#include "kishmem/ep/layout.h"

// The CUDA runtime's stream type, declared as cuda_runtime_api.h does (no CUDA header needed).
typedef struct CUstream_st* cudaStream_t;

namespace kishmem::ep {

struct Config {
    int max_tokens_per_pe = 128;  // T: most tokens one PE dispatches per call
    int hidden = 7168;            // H: a multiple of 128 for FP8, of 8 for bf16; at most 65536
    int topk = 8;                 // K: entries per token (1..16)
    int num_experts = 0;          // E: a multiple of the team size; expert e lives on team rank e / (E / npes);
                                  // at most 4096, and T x E at most 2^31 - 1
    Format format = Format::fp8_e4m3;  // what dispatch sends: FP8 E4M3 + one float scale per 128 channels, or bf16
    int num_sms = 0;              // GPU: blocks of the send kernels (0: min(T, 128)); CPU form: unused
    bool combine_buffer = false;  // the buffer also holds an expert_out of its own (Buffer::combine_buffer)
};

enum Status : int {
    kOk = 0,
    kBadArgument = 1,   // a bad value in a call (message names it)
    kBadConfig = 2,     // PEs disagree on the configuration, or it is not valid
    kHeapTooSmall = 3,  // the symmetric heap cannot hold the buffer
    kBadOrder = 4,      // calls out of order (e.g. combine before the dispatch receive)
    kPeerError = 5,     // another PE reported bad input in this round
    kNoGpu = 6,         // a GPU heap without GPU support in this build
};

// What dispatch's receive produces (pointers into the buffer; valid until the next dispatch).
struct Received {
    void* x = nullptr;             // [L][R][H] FP8 bytes or bf16; rows [0, count[e]) of expert e are filled
    float* scales = nullptr;       // [L][R][H/128] FP8 only (nullptr for bf16): row value = e4m3 * scale
    int* count = nullptr;          // [L] rows received per local expert (GPU memory on a GPU heap)
    const SrcInfo* src = nullptr;  // [L][R] where each row came from
    int local_experts = 0;         // L = E / npes
    int max_recv = 0;              // R = npes * max_tokens_per_pe
};

// One round's state between dispatch and combine (host side only: nothing is read back).
struct Handle {
    const void* buffer = nullptr;  // the Buffer whose dispatch made it (a handle works with that buffer only)
    uint64_t round = 0;    // this buffer's dispatch round (1, 2, ...)
    int num_tokens = 0;    // T of the dispatch
    bool dispatch_received = false;
    bool combine_sent = false;
};

// Each call's own time while the kernel clock is on (Buffer::set_kernel_clock), in microseconds;
// -1: the last call of that kind did not run with the clock on (or failed before its work).
// dispatch / combine: the last such call (without send_only: send and receive; with send_only:
// the send); dispatch_recv / combine_recv: the last hook.
// GPU form: the stamps themselves too, the GPU's global timer in ns (0 where the call has no
// time): comparable between the PEs of one GPU, so that the PEs' starts show what of a call's time
// is its wait for a peer whose kernel started later.
struct KernelTimes {
    double dispatch_us = -1;
    double dispatch_recv_us = -1;
    double combine_us = -1;
    double combine_recv_us = -1;
    unsigned long long dispatch_start_ns = 0, dispatch_end_ns = 0;
    unsigned long long combine_start_ns = 0, combine_end_ns = 0;
};

class Buffer {
public:
    // Collective over `team` (every PE of the team, same config; the symmetric allocation makes it
    // collective over SHMEM_TEAM_WORLD too). nullptr on error, after one message naming the
    // call, this PE and the value (also in *error when given).
    static std::unique_ptr<Buffer> create(shmem_team_t team, const Config& cfg, std::string* error = nullptr);
    ~Buffer();  // collective (shmem_free)

    // Symmetric heap bytes a buffer of this configuration takes on each PE, for a team of npes.
    static size_t bytes_for(const Config& cfg, int npes);
    size_t bytes() const { return layout_.total; }
    bool on_gpu() const { return gpu_; }
    const Layout& layout() const { return layout_; }
    const Config& config() const { return cfg_; }
    // Config::num_sms as this buffer took it: the most blocks (SMs) a send kernel uses (GPU form:
    // at most this GPU's SMs per PE of the team on it).
    int num_sms() const { return sms_; }
    // GPU form, a call of num_tokens tokens: the blocks of dispatch's send kernel (its last block
    // also receives, unless send_only; dispatch_recv runs 1) and of the kernels whose every block
    // waits for every PE (combine, combine_recv), both within this GPU's SMs per PE sharing it.
    // A send_only combine sends with num_sms(). 0 in the CPU form.
    int dispatch_blocks(int num_tokens) const;
    int receive_blocks(int num_tokens) const;

    // x[T][H] bf16 (16-bit words), topk_idx[T][K] (-1: no expert). GPU heap: device pointers,
    // stream-ordered and capturable; host heap: host pointers, done on return. send_only: return
    // after the sends; dispatch_recv(stream, h) completes the receive (no kernel runs between).
    int dispatch(cudaStream_t stream, const void* x, const int32_t* topk_idx, int num_tokens, Received* out, Handle* h,
                 bool send_only = false);
    int dispatch(cudaStream_t stream, const void* x, const int64_t* topk_idx, int num_tokens, Received* out, Handle* h,
                 bool send_only = false);
    int dispatch_recv(cudaStream_t stream, Handle* h);

    // expert_out[L][R][H] bf16 (row i of expert e answers recv row i of e), topk_weights[T][K] float,
    // out[T][H] bf16: out[t] = sum over k with topk_idx[t][k] >= 0 of weight[t][k] * expert row.
    // expert_out is the caller's to overwrite once the call (send_only: its combine_recv) is done on
    // the stream; where it lies in the symmetric heap the token PEs read it in place, and the call
    // waits for the last of them to finish reading.
    int combine(cudaStream_t stream, const void* expert_out, const float* topk_weights, void* out, Handle* h,
                bool send_only = false);
    int combine_recv(cudaStream_t stream, Handle* h);
    // With Config::combine_buffer: an expert_out[L][R][H] bf16 in the buffer's own block (else
    // nullptr), as DeepEP's get_next_low_latency_combine_buffer. A combine of it does not wait for
    // the token PEs' reads: write it only after this PE's dispatch receive of the round (dispatch,
    // or its dispatch_recv) on the buffer's stream, as experts do. That receive waits for every
    // PE's dispatch, which each PE's stream orders after its previous combine's reads.
    void* combine_buffer() const { return layout_.comb_out_on ? base_ + layout_.comb_out : nullptr; }

    // The received rows in bf16, for experts that take bf16: out[L][R][H], rows [0, count[e]) of
    // each local expert e written (FP8: each value times its group's scale, rounded to the nearest
    // bf16; bf16: copied) and no other row touched, so that nothing is spent on the rows no PE
    // sent. After the dispatch receive of handle h (dispatch without send_only, or its
    // dispatch_recv), until the next dispatch; out may be combine_buffer(). GPU heap: out is GPU
    // memory, 16-byte aligned; one kernel on `stream` (it reads the counts on the GPU: no host
    // synchronization, capturable). Host heap: host memory, done on return.
    int received_bf16(cudaStream_t stream, const Handle* h, void* out);

    // Errors found inside kernels (bad top-k entries, a peer's bad input): synchronizes the stream,
    // prints the message once and returns its status (kOk when none). Host heap: the last error.
    int check(cudaStream_t stream);
    const std::string& last_error() const { return last_error_; }

    // The kernel clock, off by default: the time a call's kernels take, as DeepEP's and
    // TRT-LLM's tables give it (the latency between events around the call also holds the
    // launch). GPU heap: each block's thread 0 reads the GPU's global timer (%globaltimer) at the
    // block's start and end; a call's time runs from its first block's start to its last block's
    // end, over the kernels of that call. While on, each call first resets its two stamps with a
    // 16-byte cudaMemsetAsync on its stream; while off the kernels get a null pointer and stamp
    // nothing. Host heap: the call's work on the host (steady clock; there is no kernel).
    void set_kernel_clock(bool on) { clock_on_ = on; }
    bool kernel_clock() const { return clock_on_; }
    // The last call of each kind (see KernelTimes). GPU heap: call it after synchronizing the
    // stream of those calls (it copies 64 bytes from the GPU); on a failed copy every value is -1
    // after a message.
    KernelTimes kernel_times();

    // A call that the caller's own checks refuse (a binding's: dtype, shape, device): reported
    // as the library reports its own bad input, `why` as the message, and the peers told the same
    // way (their receive reports this PE's bad input instead of waiting). refuse_dispatch stands
    // for a dispatch (it ends the round), refuse_combine for a combine or its hook. Returns
    // kBadArgument (or kBadOrder where the call would have been out of order anyway).
    int refuse_dispatch(cudaStream_t stream, const char* why);
    int refuse_combine(cudaStream_t stream, const char* call, const char* why);

    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

private:
    Buffer() = default;
    template <class Idx>
    int dispatch_any(cudaStream_t s, const void* x, const Idx* idx, int T, Received* out, Handle* h, bool send_only,
                     const char* refused = nullptr);
    int fail(int status, const char* call, const char* fmt, ...);
    // An error this PE found or was told of: kept (last_error, and check's status on the CPU
    // form) and printed once; returns status.
    int note_error(int status, const std::string& msg);
    // Whether h is a handle of this buffer's dispatch with a token count it could have had.
    bool mine(const Handle* h) const;
    // A call refused while a send_only call's hook is owed: the hook's work, done here (the
    // receive; out written), so that every peer's part of that round has arrived and none is
    // still in it or an earlier one when the peers are told of the refusal.
    int finish_pending(cudaStream_t s);
    // A bad call of combine or combine_recv: where this PE owes the round's combine, its peers
    // get a combine flag with the bad-input bit instead (they report it); returns status.
    int refuse_combine(cudaStream_t s, int status);
    // The kernel clock around one call of kind `call` (clock.cpp): begin notes whether it runs
    // clocked and returns the host's start (CPU form), end keeps the CPU form's duration.
    enum ClockCall : int { kClockDispatch, kClockDispatchRecv, kClockCombine, kClockCombineRecv, kClockCalls };
    long long clock_begin(int call);
    void clock_end(int call, long long t0);

    Config cfg_{};
    Layout layout_{};
    shmem_team_t team_ = nullptr;
    char* base_ = nullptr;       // the symmetric block
    bool gpu_ = false;
    int sms_ = 1;
    int gpu_sharers_ = 1;        // GPU: the team's PEs on this PE's GPU (this one included)
    uint64_t round_ = 0;         // host's count of dispatch rounds (the kernels keep their own)
    bool recv_pending_ = false;  // a send_only dispatch waits for its dispatch_recv
    bool comb_pending_ = false;
    uint64_t comb_round_ = 0;    // the dispatch round whose combine this PE sent (or refused)
    int comb_tokens_ = 0;        // that combine's num_tokens (for its receive)
    void* err_ = nullptr;        // GPU: host-mapped error record the kernels fill (device address)
    void* err_host_ = nullptr;   // its host address
    void* out_ = nullptr;        // combine's out and topk_weights, kept for combine_recv
    const float* weights_ = nullptr;
    std::string last_error_;
    int last_status_ = 0;        // the status of the error last_error_ tells
    bool clock_on_ = false;
    bool clock_ran_[kClockCalls] = {};       // the last call of each kind ran with the clock on
    double clock_host_us_[kClockCalls] = {};  // CPU form: its duration (-1: failed before its work)
    unsigned long long* clock_dev_ = nullptr;  // GPU: [kClockCalls][2] stamps (start complemented, end), device memory
    friend struct GpuPath;
    friend struct HostPath;
};

// Node-limited top-k: nodes are groups of experts_per_node consecutive experts; a node's score is
// the sum of its two highest expert scores in double (its one score when experts_per_node is 1).
// Picks the max_nodes best nodes (ties: lower node), then the K best experts among them, best
// first (ties: lower expert); -0.0 equals +0.0, NaN ranks last. Both forms pick the same experts
// (ep/README.md, the tie rule). scores[T][E] float; idx[T][K] int32; weights[T][K] (may be nullptr):
// the picked scores.
// CPU form: host pointers. Returns 0, or kBadArgument with a message.
int select_topk(const float* scores, int T, int E, int K, int max_nodes, int experts_per_node, int32_t* idx,
                float* weights);
// GPU form: device pointers, one thread per token on `stream` (capturable).
int select_topk_gpu(cudaStream_t stream, const float* scores, int T, int E, int K, int max_nodes,
                    int experts_per_node, int32_t* idx, float* weights);

}  // namespace kishmem::ep
