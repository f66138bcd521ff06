// Waiting, for every layer that waits (the runtime's barriers and waits, UCX requests): a
// base-layer helper, so that transports need not reach back into the runtime core.  The core
// fills the WaitPolicy at init: its progress function (every transport serves its peers while
// anyone waits), whether to yield the CPU, and the hang bounds.
#pragma once

namespace kishmem {

struct WaitPolicy {
    void (*progress)() = nullptr;  // called on every spin (nullptr: nothing to progress)
    bool progress_any_thread = false;  // progress may run on any thread (SHMEM_THREAD_MULTIPLE)
    bool yield = false;            // this host's PEs outnumber their CPUs: give the CPU away (Backoff)
    double hang_warn = 0;          // seconds before a wait says what it waits for (0: never)
    double hang_abort = 0;         // seconds before a wait aborts the job (0: never)
    // Called about once a second while a wait lasts, with the call and what it waits for: ends
    // the job when a peer or the launcher is gone (nullptr: nothing to watch).
    void (*watch)(const char* call, const char* what) = nullptr;
};
WaitPolicy& wait_policy();

// The spin-loop hint between two polls of a variable another core writes (x86 PAUSE, Arm
// YIELD): without it the core runs ahead with loads of the old value, and the poll that sees the
// new one is replayed behind them; with it, an 8-byte ping-pong between the two cores of the
// development VM takes about 50 ns one way instead of about 57 (docs/perf.md).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

// Gives the core away between two polls of a wait: sched_yield for the first 256 polls, then
// sleeps from 1 us doubling to 200 us. On Linux 6.x (EEVDF) tasks that spin on sched_yield alone
// kept the task they waited for, and every other, off both cores of a 2-core host for up to
// 23 s (docs/cluster.md).
class Backoff {
public:
    void pause();

private:
    unsigned polls_ = 0;
    unsigned sleep_ns_ = 0;
};

// A bounded-spin wait: progresses, yields where the policy says, and warns / aborts per
// KISHMEM_HANG_WARN / KISHMEM_HANG_ABORT naming `call` and what it waits for: `what_fmt`
// formatted with a, b, c (as long long: use %lld / %llx) only when it is said.
class Waiter {
public:
    Waiter(const char* call, const char* what_fmt, long long a = 0, long long b = 0, long long c = 0)
        : call_(call), fmt_(what_fmt), a_(a), b_(b), c_(c) {}
    void spin();  // call once per unsuccessful poll
    // What is awaited, in words (the format filled in, then the detail function's words).
    void describe(char* out, unsigned long n) const;
    // Words added to the hang messages, computed only when one is said (e.g. which PEs have not
    // entered a collective call yet): fn(arg, out, n) writes at most n bytes.
    void set_detail(void (*fn)(const void* arg, char* out, unsigned long n), const void* arg) {
        detail_ = fn;
        detail_arg_ = arg;
    }
    // A check run about once a second while the wait lasts (from its first second on, whatever
    // the hang bounds): fn(arg) may end the job when what is awaited can never come.
    void set_check(void (*fn)(void* arg), void* arg) {
        check_ = fn;
        check_arg_ = arg;
    }

private:
    const char* call_;
    const char* fmt_;
    long long a_, b_, c_;
    void (*detail_)(const void*, char*, unsigned long) = nullptr;
    const void* detail_arg_ = nullptr;
    void (*check_)(void*) = nullptr;
    void* check_arg_ = nullptr;
    unsigned count_ = 0;
    Backoff backoff_;  // where the policy yields
    double start_ = 0;
    double next_watch_ = 0;
    bool warned_ = false;
};

// The hang bounds of a wait that polls by itself (one that cannot be a Waiter: it may not run the
// progress hook, or it runs before init): given the seconds waited so far, warns once (*warned)
// after warn_s seconds and ends the job after abort_s (0: never), naming `call` and `what` as a
// Waiter does.  Without the bounds, those of the wait policy.
void hang_bounds(const char* call, const char* what, double waited, bool* warned, double warn_s, double abort_s);
void hang_bounds(const char* call, const char* what, double waited, bool* warned);
// Whether hang_bounds would say something now (a Waiter describes what it waits for only then).
inline bool hang_due(double waited, bool warned, double warn_s, double abort_s) {
    return (abort_s > 0 && waited >= abort_s) || (!warned && warn_s > 0 && waited >= warn_s);
}

// Marks the calling thread as one of the library's own (the software NIC's, the CPU proxy's, the
// active-message service's: ProgressThread does it). Its waits call the policy's progress, which
// drives the application's transports, only where any thread may (progress_any_thread; UCX
// workers are made for one thread otherwise); where it may, they still do: peers' software RMA
// over TCP needs this PE's progress while its application waits outside the library.
void mark_library_thread();

}  // namespace kishmem
