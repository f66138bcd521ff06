// The watch of blocking launcher calls (blocked.h): one global slot (calls into PMIx come from
// the thread that runs init and finalize, one at a time) and one thread that looks at it four
// times a second while a call runs, and sleeps on a condition variable otherwise (no wake-ups
// on the program's cores between calls: KISHMEM_LAUNCHER_WATCH=0 stays true to its word).
#include "blocked.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "kishmem/log.h"
#include "kishmem/waiter.h"

namespace kishmem::blocked {
namespace {

using clock = std::chrono::steady_clock;

struct Slot {
    std::atomic<long long> since{0};      // the call's start (steady clock, ns); 0: none runs
    std::atomic<unsigned> generation{0};  // one per call, so that each call warns once
    std::atomic<const char*> call{nullptr};
    std::atomic<const char*> what{nullptr};
};
Slot g_slot;
std::once_flag g_thread;
// The thread's sleep between calls. Never destroyed: at exit the thread still waits on it, and
// glibc's pthread_cond_destroy waits for its waiters.
struct Sleep {
    std::mutex mu;
    std::condition_variable cv;
};
Sleep& sleep_() {
    static Sleep* s = new Sleep;
    return *s;
}

long long now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now().time_since_epoch()).count();
}

void watch() {
    sigset_t all;  // the program's signals go to its own threads
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    unsigned warned = 0;
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(sleep_().mu);
            sleep_().cv.wait(lock, [] { return g_slot.since.load(std::memory_order_acquire) != 0; });
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
        const unsigned gen = g_slot.generation.load(std::memory_order_acquire);
        const long long since = g_slot.since.load(std::memory_order_acquire);
        if (!since) continue;
        const char* call = g_slot.call.load(std::memory_order_relaxed);
        const char* what = g_slot.what.load(std::memory_order_relaxed);
        if (g_slot.generation.load(std::memory_order_acquire) != gen) continue;  // a new call began meanwhile
        const double waited = (now_ns() - since) * 1e-9;
        const WaitPolicy& p = wait_policy();
        if (p.hang_abort > 0 && waited >= p.hang_abort) {
            char pe[32] = "";
            if (log_pe() >= 0) std::snprintf(pe, sizeof pe, "PE %d: ", log_pe());
            std::fprintf(stderr, "kishmem: %s%s: %s has not returned after %.0f s: the launcher's PMIx server does not "
                         "answer; ending this PE (KISHMEM_HANG_ABORT=%g)\n", pe, call, what, waited, p.hang_abort);
            std::fflush(stderr);
            std::_Exit(1);
        }
        if (warned != gen && p.hang_warn > 0 && waited >= p.hang_warn) {
            warned = gen;
            warn(call, "%s has not returned after %.0f s: the launcher's PMIx server does not answer (still waiting; "
                       "KISHMEM_HANG_ABORT=N ends this PE after N s)", what, waited);
        }
    }
}

}  // namespace

Scope::Scope(const char* call, const char* what) {
    std::call_once(g_thread, [] { std::thread(watch).detach(); });
    g_slot.call.store(call, std::memory_order_relaxed);
    g_slot.what.store(what, std::memory_order_relaxed);
    g_slot.generation.fetch_add(1, std::memory_order_acq_rel);
    {
        std::lock_guard<std::mutex> lock(sleep_().mu);
        g_slot.since.store(now_ns(), std::memory_order_release);
    }
    sleep_().cv.notify_one();
}

Scope::~Scope() { g_slot.since.store(0, std::memory_order_release); }

}  // namespace kishmem::blocked
