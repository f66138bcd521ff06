// Distributed locks: a ticket lock in PE 0's copy of the symmetric lock variable.  The high 32
// bits hand out tickets, the low 32 bits say which ticket is served: first come, first served,
// so no PE starves however contended the lock is.
//
// Each PE remembers the locks it holds (lock -> ticket and holding thread), so that
// shmem_clear_lock of a lock it does not hold is an error: serving the next ticket for a
// non-holder would hand the lock to two PEs at once, or to a ticket nobody has, and every later
// shmem_set_lock would wait forever.  shmem_set_lock of a lock the PE holds is an error too (the
// spec leaves it undefined): its ticket would come after the PE's own, which is never released
// while the caller waits.  Under SHMEM_THREAD_MULTIPLE another thread of the PE may wait for the
// holding thread, which can still release it.
#include <sched.h>

#include <map>
#include <mutex>
#include <thread>

#include "state.h"

namespace kishmem::rt {

namespace {
constexpr uint64_t kTicket = 1ull << 32;
constexpr int kHome = 0;
inline uint32_t serving(uint64_t v) { return static_cast<uint32_t>(v); }
inline uint32_t next(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

struct Held {
    uint32_t ticket;
    std::thread::id thread;
};
std::mutex g_held_mutex;
std::map<const long*, Held> g_held;  // the locks this PE holds

void held(const long* lock, uint32_t ticket) {
    std::lock_guard<std::mutex> g(g_held_mutex);
    g_held[lock] = Held{ticket, std::this_thread::get_id()};
}

// Before taking a ticket: a lock this PE holds (and no other thread of it could release) would
// never be served.
void check_not_held(const long* lock) {
    std::lock_guard<std::mutex> g(g_held_mutex);
    auto it = g_held.find(lock);
    if (it == g_held.end()) return;
    if (state().thread_level == kThreadMultiple && it->second.thread != std::this_thread::get_id()) return;
    fatal("shmem_set_lock",
          "this PE already holds the lock at %p (ticket %u): a PE may hold a lock once, and a second "
          "shmem_set_lock before shmem_clear_lock would wait for itself forever",
          static_cast<const void*>(lock), it->second.ticket);
}
}  // namespace

void lock_set(long* lock) {
    check_not_held(lock);
    const uint32_t mine = next(amo(0, AmoOp::fetch_add, lock, 8, kTicket, 0, kHome));
    Waiter w("shmem_set_lock", "the lock at %#llx (ticket %lld; PE 0 holds it)",
             static_cast<long long>(reinterpret_cast<uintptr_t>(lock)), mine);
    while (serving(amo(0, AmoOp::fetch, lock, 8, 0, 0, kHome)) != mine) w.spin();
    held(lock, mine);
}

int lock_test(long* lock) {
    progress();  // a caller looping on test_lock must keep serving the holder's release
    uint64_t v = amo(0, AmoOp::fetch, lock, 8, 0, 0, kHome);
    if (next(v) != serving(v)) return 1;  // held (or waited for)
    uint64_t seen = amo(0, AmoOp::cswap, lock, 8, v + kTicket, v, kHome);
    if (seen != v) return 1;
    held(lock, next(v));
    return 0;
}

void lock_clear(long* lock) {
    {
        std::lock_guard<std::mutex> g(g_held_mutex);
        auto it = g_held.find(lock);
        if (it == g_held.end()) {
            const uint64_t v = amo(0, AmoOp::fetch, lock, 8, 0, 0, kHome);
            fatal("shmem_clear_lock",
                  "this PE does not hold the lock at %p (%s); only the PE that acquired a lock with shmem_set_lock "
                  "or a successful shmem_test_lock may release it",
                  static_cast<void*>(lock), next(v) == serving(v) ? "nobody holds it" : "another PE holds it");
        }
        g_held.erase(it);
    }
    quiet_all();  // what the holder wrote is complete before the next holder enters
    // Serve the next ticket.  Only the holder writes the low half, so an add cannot carry into
    // the tickets unless 2^32 acquisitions wrapped it, which the mask below undoes.
    uint64_t v = amo(0, AmoOp::fetch, lock, 8, 0, 0, kHome);
    uint64_t nv = (v & ~0xffffffffull) | static_cast<uint32_t>(serving(v) + 1);
    while (true) {
        uint64_t seen = amo(0, AmoOp::cswap, lock, 8, nv, v, kHome);
        if (seen == v) break;
        v = seen;  // a ticket was taken meanwhile
        nv = (v & ~0xffffffffull) | static_cast<uint32_t>(serving(v) + 1);
    }
}

}  // namespace kishmem::rt
