// A put of one word into a mapped peer (ShmTransport::put, and the inline heap put of
// runtime.h) is one store.  glibc's memcpy writes 2 to 16 bytes as two overlapping stores; an
// active-set barrier whose pSync sat in a global variable took the second store of a signal the
// target had already consumed and cleared for a new signal (a stale value, "PEs disagree" or a
// wrong sum, under load).  Counted with a hardware write watchpoint on the word
// (perf_event_open); skipped where the machine gives none, or one that counts nothing (a virtual
// machine whose hypervisor does not pass debug registers on: two stores count 0).
#include <gtest/gtest.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <functional>

#include "kishmem/copy_once.h"
#include "transport/shm/shm.h"

using namespace kishmem;

namespace {

alignas(64) uint64_t g_word[8];

// Stores to the 8 bytes at `at` while `fn` runs; -1 where no watchpoint can be had.
long stores_to(void* at, const std::function<void()>& fn) {
    perf_event_attr a{};
    a.type = PERF_TYPE_BREAKPOINT;
    a.size = sizeof a;
    a.bp_type = HW_BREAKPOINT_W;
    a.bp_addr = reinterpret_cast<uint64_t>(at);
    a.bp_len = HW_BREAKPOINT_LEN_8;
    a.sample_period = 1;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    const int fd = static_cast<int>(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
    if (fd < 0) return -1;
    ioctl(fd, PERF_EVENT_IOC_RESET, 0);
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    fn();
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    long long n = 0;
    const bool ok = read(fd, &n, sizeof n) == static_cast<ssize_t>(sizeof n);
    close(fd);
    return ok ? static_cast<long>(n) : -1;
}

// Two known stores as the watchpoint counts them: 2 where it works; -1 (none) or 0 (it never
// fires) where the tests cannot count; anything else fails WatchpointCountsEachStore.
long two_stores() {
    static const long n = [] {
        volatile uint64_t* w = g_word;
        return stores_to(g_word, [&] {
            *w = 1;
            *w = 2;
        });
    }();
    return n;
}
#define SKIP_WITHOUT_COUNTS()                                                                         \
    do {                                                                                              \
        if (two_stores() < 0) GTEST_SKIP() << "no hardware write watchpoint (perf_event_open)";      \
        if (two_stores() == 0) GTEST_SKIP() << "the write watchpoint counts nothing on this machine"; \
    } while (0)

// A size the compiler cannot see (as the transports get it).
std::size_t opaque(std::size_t n) {
    volatile std::size_t v = n;
    return v;
}

}  // namespace

TEST(StoreOnce, WatchpointCountsEachStore) {
    // The counter the checks below rely on: two stores are two.
    SKIP_WITHOUT_COUNTS();
    EXPECT_EQ(two_stores(), 2);
}

TEST(StoreOnce, ShmPutOfAWordIsOneStore) {
    SKIP_WITHOUT_COUNTS();
    std::vector<char*> bases{reinterpret_cast<char*>(g_word)};
    ShmTransport shm(bases);
    for (std::size_t bytes : {1, 2, 4, 8}) {
        const uint64_t v = 0x0102030405060708ull;
        const long n = stores_to(g_word, [&] { shm.put(0, 0, 0, &v, opaque(bytes), false); });
        if (n < 0) GTEST_SKIP() << "no hardware write watchpoint (perf_event_open)";
        EXPECT_EQ(n, 1) << bytes << "-byte put";
    }
}

TEST(StoreOnce, CopyOnceOfAWordIsOneStore) {
    SKIP_WITHOUT_COUNTS();
    for (std::size_t bytes : {2, 4, 8}) {
        const uint64_t v = 42;
        const long n = stores_to(g_word, [&] { copy_once(g_word, &v, opaque(bytes)); });
        if (n < 0) GTEST_SKIP() << "no hardware write watchpoint (perf_event_open)";
        EXPECT_EQ(n, 1) << bytes << " bytes";
    }
}
