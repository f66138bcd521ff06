// A thread that keeps calling a poll function: the software NIC and the CPU proxy run on one.
// It busy-polls while there is work and for idle_spin_us after the last of it (yielding, so
// PEs that share a core still run), then sleeps, doubling from 1 us to max_sleep_us, until
// work shows up, kick() or stop().
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace kishmem {

class ProgressThread {
public:
    ProgressThread() = default;
    ~ProgressThread() { stop(); }
    ProgressThread(const ProgressThread&) = delete;
    ProgressThread& operator=(const ProgressThread&) = delete;

    // poll returns how much work it did (0: none).
    void start(std::function<std::size_t()> poll, uint32_t idle_spin_us, uint32_t max_sleep_us);
    void stop();
    void kick();
    bool running() const { return thread_.joinable(); }
    uint64_t sleeps() const { return sleeps_.load(std::memory_order_relaxed); }

private:
    void run();

    std::function<std::size_t()> poll_;
    uint32_t idle_spin_us_ = 50;
    uint32_t max_sleep_us_ = 500;
    std::thread thread_;
    std::atomic<bool> stop_{false};
    std::mutex mu_;
    std::condition_variable cv_;
    bool kicked_ = false;
    std::atomic<uint64_t> sleeps_{0};
};

}  // namespace kishmem
