// Whether the other PEs are still there.  A PE that dies, or leaves with exit() before
// shmem_finalize, must not leave the others waiting for it until the launcher's time limit:
// every wait (kishmem::Waiter, the bootstrap's fences) calls liveness::check() about once a
// second, which ends the job with one message naming the PE that is gone and the call this PE
// was waiting in.  What it looks at, cheapest first:
//   - reports from the launcher (PMIx events: a process aborted or terminated), kept by report();
//   - the launcher itself: a PE whose parent process went away (reparented) or whose PMIx
//     server connection was lost is an orphan and exits instead of spinning forever;
//   - same-host peers: their pids, exchanged in shmem_init (kill(pid, 0), zombies count as
//     gone); before that exchange, the processes of this user whose environment names this
//     job's PMIx namespace and the peer's rank (a peer absent from three scans in a row is gone).
// Peers on other hosts are covered by the launcher's word only (and KISHMEM_HANG_ABORT).
#pragma once
#include <sys/types.h>

#include <cstdint>

#include <string>
#include <vector>

namespace kishmem::liveness {

// Before any check: this PE, the job size and the launcher's namespace ("" when none).  The
// local ranks are this host's PEs as the launcher lists them (this one included).
void start(int me, int npes, const std::string& nspace, const std::vector<int>& local_ranks);

// Once shmem_init exchanged them: pids[r] of the same-host PEs (0 for PEs on other hosts).
void set_pids(const std::vector<pid_t>& pids);

// What a PE says about its own end, in a word of its host segment that same-host peers map
// (marks[r]: PE r's word, nullptr where not mapped).  A peer whose process is gone after it
// said `aborting` is ending the job on purpose (shmem_global_exit, a fatal error): the launcher
// takes everyone down, nothing more is said; `left` means exit() without shmem_finalize.
enum Mark : uint64_t { running = 0, aborting = 1, left = 2 };
void set_marks(const std::vector<const volatile uint64_t*>& marks);

// From any thread (a launcher's event): PE `pe` is gone, `why` in words; pe < 0: the launcher.
void report(int pe, const char* why);

// Ends the job (fatal, naming `call` and `what` this PE waited for) when a peer or the
// launcher is gone; otherwise returns at once.  Rate-limited: the real checks run at most once
// a second, so it can be called on every spin.
void check(const char* call, const char* what);

// A PE that runs its own code calls no check(): a thread of its own then looks every
// `interval` seconds (0: no thread) whether the launcher is gone, as check() does (the parent
// process seen at start() exited, or the PMIx server's connection was reported lost), and ends
// this PE with a message on stderr (mpirun's local PEs are its children; srun's are
// slurmstepd's, which ends them itself).  Started once, after start(); ends after stop().
void watch_launcher(double interval);

// Stops every check (shmem_finalize: peers leave normally from here on).
void stop();

// The PE of a same-host peer found gone by the last check(), for tests; -1 when none.
int last_gone();

}  // namespace kishmem::liveness
