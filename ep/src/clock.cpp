// kishmem::ep::Buffer's kernel clock (ep.h): which calls ran with it on, the CPU form's
// durations, and the times the getter reports. The GPU form's stamps: gpu_path.cu (clock_slot,
// read_clock) and src/clock.cuh (in the kernels).
#include <chrono>

#include "internal.h"

namespace kishmem::ep {
namespace {

long long now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

long long Buffer::clock_begin(int call) {
    clock_ran_[call] = clock_on_;
    clock_host_us_[call] = -1;
    return clock_on_ && !gpu_ ? now_ns() : 0;
}

void Buffer::clock_end(int call, long long t0) {
    if (clock_on_ && !gpu_) clock_host_us_[call] = static_cast<double>(now_ns() - t0) * 1e-3;
}

KernelTimes Buffer::kernel_times() {
    KernelTimes t;
    double* at[kClockCalls] = {&t.dispatch_us, &t.dispatch_recv_us, &t.combine_us, &t.combine_recv_us};
    unsigned long long st[2 * kClockCalls] = {};
    if (gpu_ && GpuPath::read_clock(*this, st) != kOk) return t;
    for (int c = 0; c < kClockCalls; ++c) {
        if (!clock_ran_[c]) continue;
        if (!gpu_) *at[c] = clock_host_us_[c];
        else if (st[2 * c] && st[2 * c + 1])  // start complemented (0: no block stamped it), end
            *at[c] = static_cast<double>(st[2 * c + 1] - ~st[2 * c]) * 1e-3;
    }
    if (t.dispatch_us >= 0 && gpu_) {
        t.dispatch_start_ns = ~st[2 * kClockDispatch];
        t.dispatch_end_ns = st[2 * kClockDispatch + 1];
    }
    if (t.combine_us >= 0 && gpu_) {
        t.combine_start_ns = ~st[2 * kClockCombine];
        t.combine_end_ns = st[2 * kClockCombine + 1];
    }
    return t;
}

}  // namespace kishmem::ep
