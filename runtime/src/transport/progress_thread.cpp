#include "progress_thread.h"

#include "kishmem/waiter.h"

#include <sched.h>

#include <chrono>

namespace kishmem {

void ProgressThread::start(std::function<std::size_t()> poll, uint32_t idle_spin_us, uint32_t max_sleep_us) {
    if (thread_.joinable()) return;
    poll_ = std::move(poll);
    idle_spin_us_ = idle_spin_us;
    max_sleep_us_ = max_sleep_us == 0 ? 1 : max_sleep_us;
    stop_.store(false, std::memory_order_release);
    thread_ = std::thread([this] { run(); });
}

void ProgressThread::stop() {
    if (!thread_.joinable()) return;
    {
        std::lock_guard<std::mutex> lk(mu_);
        stop_.store(true, std::memory_order_release);
    }
    cv_.notify_all();
    thread_.join();
}

void ProgressThread::kick() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        kicked_ = true;
    }
    cv_.notify_all();
}

void ProgressThread::run() {
    mark_library_thread();  // its waits leave single-thread transports of the application alone
    using clock = std::chrono::steady_clock;
    bool idle = false;
    clock::time_point idle_since;
    uint32_t sleep_us = 1;
    while (!stop_.load(std::memory_order_acquire)) {
        if (poll_() != 0) {
            idle = false;
            sleep_us = 1;
            continue;
        }
        const clock::time_point now = clock::now();
        if (!idle) {
            idle = true;
            idle_since = now;
        }
        if (now - idle_since < std::chrono::microseconds(idle_spin_us_)) {
            sched_yield();
            continue;
        }
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait_for(lk, std::chrono::microseconds(sleep_us),
                     [this] { return kicked_ || stop_.load(std::memory_order_relaxed); });
        if (kicked_) {
            kicked_ = false;
            idle = false;
            sleep_us = 1;
        } else {
            sleeps_.fetch_add(1, std::memory_order_relaxed);
            sleep_us = sleep_us * 2 > max_sleep_us_ ? max_sleep_us_ : sleep_us * 2;
        }
    }
}

}  // namespace kishmem
