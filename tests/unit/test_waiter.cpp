// The wait helper (kishmem/waiter.h): every spin drives the policy's progress (the application's
// transports); on a thread marked as the library's (mark_library_thread: the software NIC's, the
// proxy's, the active-message service's) it does so only where the policy allows any thread
// (SHMEM_THREAD_MULTIPLE: UCX workers made for one thread must not be driven from a second one);
// the hang bound holds either way.
#include <gtest/gtest.h>

#include <time.h>

#include <chrono>
#include <thread>

#include "kishmem/waiter.h"

namespace {
int g_progress_calls = 0;
void count_progress() { ++g_progress_calls; }

struct PolicyGuard {  // the policy as it was, back after each test
    kishmem::WaitPolicy saved = kishmem::wait_policy();
    ~PolicyGuard() { kishmem::wait_policy() = saved; }
};
}  // namespace

// How many times `spins` spins of one wait called the policy's progress, on a thread of its own
// (marked as the library's with library_thread).
static int progress_calls(bool library_thread, bool any_thread, int spins) {
    PolicyGuard g;
    kishmem::wait_policy() = kishmem::WaitPolicy{};
    kishmem::wait_policy().progress = count_progress;
    kishmem::wait_policy().progress_any_thread = any_thread;
    g_progress_calls = 0;
    std::thread t([&] {
        if (library_thread) kishmem::mark_library_thread();
        kishmem::Waiter w("test", "nothing");
        for (int i = 0; i < spins; ++i) w.spin();
    });
    t.join();
    return g_progress_calls;
}

TEST(Waiter, SpinDrivesThePolicysProgress) {
    EXPECT_EQ(progress_calls(false, false, 100), 100);
    EXPECT_EQ(progress_calls(false, true, 100), 100);
}

TEST(Waiter, LibraryThreadLeavesSingleThreadTransportsAlone) { EXPECT_EQ(progress_calls(true, false, 100000), 0); }

TEST(Waiter, LibraryThreadProgressesWhereAnyThreadMay) { EXPECT_EQ(progress_calls(true, true, 100), 100); }

TEST(WaiterDeathTest, LibraryThreadStillEndsAtTheHangBound) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            kishmem::wait_policy() = kishmem::WaitPolicy{};
            kishmem::wait_policy().hang_abort = 0.2;
            kishmem::mark_library_thread();
            kishmem::Waiter w("UCX active messages", "%lld of this PE's requests to be answered", 3);
            for (;;) w.spin();
        },
        "UCX active messages.*waited [0-9]+ s for 3 of this PE's requests to be answered; ending the job");
}

// Where the policy yields (PEs outnumber cores), a wait that lasts sleeps and leaves the core to
// the PE it waits for: spinning on sched_yield alone kept that PE off the cores for up to 23 s
// on a 2-core Linux 6.18 host. 0.3 s of waiting costs the waiting thread a fifth of it in CPU
// time at most (spinning costs all of it); where the policy does not yield, the wait keeps the
// core (a PE with a core of its own answers fastest).
static double cpu_share_of_wait(bool yield) {
    PolicyGuard g;
    kishmem::wait_policy() = kishmem::WaitPolicy{};
    kishmem::wait_policy().yield = yield;
    double share = 0;
    std::thread t([&] {
        using clk = std::chrono::steady_clock;
        timespec c0{}, c1{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
        const clk::time_point t0 = clk::now();
        kishmem::Waiter w("test", "nothing");
        while (clk::now() - t0 < std::chrono::milliseconds(300)) w.spin();
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
        const double cpu = (c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) * 1e-9;
        share = cpu / std::chrono::duration<double>(clk::now() - t0).count();
    });
    t.join();
    return share;
}

TEST(Waiter, LongWaitSleepsWhereThePolicyYields) {
    EXPECT_LT(cpu_share_of_wait(true), 0.2);
    EXPECT_GT(cpu_share_of_wait(false), 0.4);
}
