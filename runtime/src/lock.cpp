// Distributed locks: a ticket lock in PE 0's copy of the symmetric lock variable.  The high 32
// bits hand out tickets, the low 32 bits say which ticket is served: first come, first served,
// so no PE starves however contended the lock is.
//
// Each PE remembers the locks it holds (lock -> ticket), so that shmem_clear_lock of a lock it
// does not hold is an error: serving the next ticket for a non-holder would hand the lock to
// two PEs at once, or to a ticket nobody has, and every later shmem_set_lock would wait forever.
#include <sched.h>

#include <map>
#include <mutex>

#include "state.h"

namespace kishmem::rt {

namespace {
constexpr uint64_t kTicket = 1ull << 32;
constexpr int kHome = 0;
inline uint32_t serving(uint64_t v) { return static_cast<uint32_t>(v); }
inline uint32_t next(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

std::mutex g_held_mutex;
std::map<const long*, uint32_t> g_held;  // the locks this PE holds, and its ticket

void held(const long* lock, uint32_t ticket) {
    std::lock_guard<std::mutex> g(g_held_mutex);
    g_held[lock] = ticket;
}
}  // namespace

void lock_set(long* lock) {
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
