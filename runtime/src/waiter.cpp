#include "kishmem/waiter.h"

#include <sched.h>
#include <time.h>

#include <chrono>
#include <cstdio>

#include "kishmem/log.h"

namespace kishmem {

WaitPolicy& wait_policy() {
    static WaitPolicy p;
    return p;
}

namespace {
thread_local bool t_library_thread = false;
}

void mark_library_thread() { t_library_thread = true; }

void Backoff::pause() {
    constexpr unsigned kYields = 256, kMaxSleepNs = 200000;
    if (polls_ < kYields) {
        ++polls_;
        sched_yield();
        return;
    }
    sleep_ns_ = sleep_ns_ == 0 ? 1000 : (sleep_ns_ * 2 > kMaxSleepNs ? kMaxSleepNs : sleep_ns_ * 2);
    const timespec ts{0, static_cast<long>(sleep_ns_)};
    nanosleep(&ts, nullptr);
}

void Waiter::spin() {
    const WaitPolicy& p = wait_policy();
    if (p.progress && (p.progress_any_thread || !t_library_thread)) p.progress();
    // Yield only where this host's PEs outnumber the cores they may run on together (or
    // KISHMEM_YIELD=1): a PE with a core of its own keeps spinning, however long it waits.
    if (p.yield) backoff_.pause();
    // The clock is read every 1024 polls, every 16 where polls yield: on a loaded host a yield
    // can cost milliseconds, and 1024 of them kept PEs waiting 40 s without a word.
    if ((++count_ & (p.yield ? 15u : 1023u)) != 0) return;
    if (p.hang_warn <= 0 && p.hang_abort <= 0 && !p.watch && !check_) return;
    using namespace std::chrono;
    const double t = duration<double>(steady_clock::now().time_since_epoch()).count();
    if (start_ == 0) {
        start_ = t;
        next_watch_ = t + 1.0;
        return;
    }
    char what[512];
    if ((p.watch || check_) && t >= next_watch_) {
        next_watch_ = t + 1.0;
        if (check_) check_(check_arg_);
        if (p.watch) {
            describe(what, sizeof what);
            p.watch(call_, what);
        }
    }
    const double waited = t - start_;
    if (!hang_due(waited, warned_, p.hang_warn, p.hang_abort)) return;
    describe(what, sizeof what);
    hang_bounds(call_, what, waited, &warned_, p.hang_warn, p.hang_abort);
}

void hang_bounds(const char* call, const char* what, double waited, bool* warned, double warn_s, double abort_s) {
    if (abort_s > 0 && waited >= abort_s)
        fatal(call, "waited %.0f s for %s; ending the job (KISHMEM_HANG_ABORT=%g s; 0 waits forever)", waited, what,
              abort_s);
    if (!*warned && warn_s > 0 && waited >= warn_s) {
        *warned = true;
        warn(call, "has waited %.0f s for %s (still waiting; %s)", waited, what,
             abort_s > 0 ? "the job ends when it has waited KISHMEM_HANG_ABORT seconds" : "KISHMEM_HANG_ABORT=0: no limit");
    }
}

void hang_bounds(const char* call, const char* what, double waited, bool* warned) {
    const WaitPolicy& p = wait_policy();
    hang_bounds(call, what, waited, warned, p.hang_warn, p.hang_abort);
}

void Waiter::describe(char* out, unsigned long n) const {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    int k = std::snprintf(out, n, fmt_, a_, b_, c_);
#pragma GCC diagnostic pop
    if (detail_ && k >= 0 && static_cast<unsigned long>(k) + 3 < n) {
        std::snprintf(out + k, n - k, "; ");
        detail_(detail_arg_, out + k + 2, n - k - 2);
    }
}

}  // namespace kishmem
