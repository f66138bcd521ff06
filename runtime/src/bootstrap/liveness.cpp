#include "liveness.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "kishmem/log.h"

namespace kishmem::liveness {
namespace {

constexpr int kNone = -2;
constexpr int kLauncher = -1;
constexpr int kAbsentScans = 3;  // before the pid exchange: absent from this many scans in a row

struct Watch {
    std::atomic<bool> active{false};
    std::atomic<int> reported{kNone};
    char reported_why[256] = {0};
    int me = 0;
    pid_t ppid = 0;
    std::string nspace;
    std::vector<int> peers;          // same-host PEs other than this one
    std::vector<pid_t> pids;         // by PE; 0 = unknown
    std::vector<const volatile uint64_t*> marks;  // by PE; nullptr = not mapped
    std::vector<int> absent;         // by PE: scans in a row that did not find it
    double next = 0;                 // steady-clock time of the next real check
    int last_gone = -1;
};

Watch& w() {
    static Watch* g = new Watch;  // never destroyed: checks may run from exit handlers
    return *g;
}

double now() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// The state letter of /proc/PID/stat ('Z' zombie, 'X' dead), 0 when it cannot be read.
char proc_state(pid_t pid) {
    char path[64], buf[512];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    const char* rp = std::strrchr(buf, ')');  // the command name may hold spaces and ')'
    return rp && rp[1] == ' ' ? rp[2] : 0;
}

bool pid_alive(pid_t pid) {
    if (kill(pid, 0) != 0 && errno == ESRCH) return false;
    const char st = proc_state(pid);
    return st != 'Z' && st != 'X';
}

// The PMIx rank of a live process of this job (environment PMIX_NAMESPACE=nspace), or -1.
int job_rank_of(const char* pid_dir, const std::string& env_ns) {
    char path[300];
    std::snprintf(path, sizeof path, "/proc/%s/environ", pid_dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    static thread_local std::vector<char> buf(1 << 16);
    ssize_t n = 0;
    for (ssize_t k; n < static_cast<ssize_t>(buf.size()) - 1 && (k = read(fd, buf.data() + n, buf.size() - 1 - n)) > 0;)
        n += k;
    close(fd);
    if (n <= 0) return -1;  // zombies have no environment
    buf[n] = 0;
    bool ours = false;
    int rank = -1;
    for (const char* p = buf.data(); p < buf.data() + n; p += std::strlen(p) + 1) {
        if (env_ns == p) ours = true;
        else if (std::strncmp(p, "PMIX_RANK=", 10) == 0) rank = std::atoi(p + 10);
    }
    return ours ? rank : -1;
}

// Before the pids are known: which same-host PEs have a live process now.
void scan(std::vector<bool>* present) {
    Watch& g = w();
    present->assign(g.absent.size(), false);
    const std::string env_ns = "PMIX_NAMESPACE=" + g.nspace;
    DIR* d = opendir("/proc");
    if (!d) {
        present->assign(g.absent.size(), true);  // cannot tell: say nothing
        return;
    }
    const uid_t uid = geteuid();
    const pid_t self = getpid();
    while (dirent* e = readdir(d)) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        if (std::atoi(e->d_name) == self) continue;
        struct stat st;
        char path[300];
        std::snprintf(path, sizeof path, "/proc/%s", e->d_name);
        if (stat(path, &st) != 0 || st.st_uid != uid) continue;
        int r = job_rank_of(e->d_name, env_ns);
        if (r >= 0 && r < static_cast<int>(present->size())) (*present)[r] = true;
    }
    closedir(d);
}

// Says `text` on stderr once and ends this process (a second caller, e.g. a wait's check and
// the launcher watch at once, waits for the first to end it).  No fatal(): its abort goes
// through the launcher, which is not there to answer; and stderr may be a pipe to the dead
// launcher: SIGPIPE is ignored so that the write fails instead of killing the PE silently.
[[noreturn]] void end_orphan(const char* text) {
    static std::atomic<bool> ending{false};
    if (ending.exchange(true))
        for (;;) pause();
    signal(SIGPIPE, SIG_IGN);
    std::fputs(text, stderr);
    std::fflush(stderr);
    std::_Exit(1);
}

[[noreturn]] void launcher_gone(const char* call, const char* what, const char* why) {
    char text[512];
    std::snprintf(text, sizeof text, "kishmem: PE %d: %s: %s while this PE waited for %s; exiting (no launcher to end "
                  "the job)\n", w().me, call, why, what);
    end_orphan(text);
}

// Why the launcher is gone, or false when it is there.  From any thread.
bool orphaned(char* why, std::size_t n) {
    Watch& g = w();
    if (g.reported.load(std::memory_order_acquire) == kLauncher) {
        std::snprintf(why, n, "%s", g.reported_why);
        return true;
    }
    if (getppid() != g.ppid) {
        std::snprintf(why, n, "the launcher is gone (parent process %d exited)", static_cast<int>(g.ppid));
        return true;
    }
    return false;
}

}  // namespace

void start(int me, int npes, const std::string& nspace, const std::vector<int>& local_ranks) {
    Watch& g = w();
    g.me = me;
    g.ppid = getppid();
    g.nspace = nspace;
    g.pids.assign(npes, 0);
    g.absent.assign(npes, 0);
    g.marks.assign(npes, nullptr);
    g.peers.clear();
    for (int r : local_ranks)
        if (r != me && r >= 0 && r < npes) g.peers.push_back(r);
    g.next = now() + 1.0;
    g.active.store(true, std::memory_order_release);
}

void set_pids(const std::vector<pid_t>& pids) {
    Watch& g = w();
    g.peers.clear();
    for (std::size_t r = 0; r < pids.size() && r < g.pids.size(); ++r) {
        g.pids[r] = pids[r];
        if (pids[r] > 0 && static_cast<int>(r) != g.me) g.peers.push_back(static_cast<int>(r));
    }
}

void set_marks(const std::vector<const volatile uint64_t*>& marks) {
    Watch& g = w();
    for (std::size_t r = 0; r < marks.size() && r < g.marks.size(); ++r) g.marks[r] = marks[r];
}

void report(int pe, const char* why) {
    Watch& g = w();
    int none = kNone;
    if (!g.active.load(std::memory_order_acquire)) return;
    // The words first, then the PE (the checker reads the PE, then the words).
    static std::atomic<bool> writing{false};
    if (writing.exchange(true)) return;  // the first report wins
    std::snprintf(g.reported_why, sizeof g.reported_why, "%s", why ? why : "");
    g.reported.compare_exchange_strong(none, pe < 0 ? kLauncher : pe, std::memory_order_acq_rel);
}

void check(const char* call, const char* what) {
    Watch& g = w();
    if (!g.active.load(std::memory_order_relaxed)) return;
    const int rep = g.reported.load(std::memory_order_acquire);
    if (rep != kNone) {
        g.active.store(false);
        if (rep == kLauncher) launcher_gone(call, what, g.reported_why);
        fatal(call, "PE %d is gone (%s) while this PE waited for %s", rep, g.reported_why, what);
    }
    const double t = now();
    if (t < g.next) return;
    g.next = t + 0.5;  // Waiter calls about once a second; the bootstrap's fences as often

    if (char why[300]; orphaned(why, sizeof why)) {
        g.active.store(false);
        launcher_gone(call, what, why);
    }
    if (g.peers.empty()) return;
    if (g.pids[g.peers[0]] > 0) {
        for (int r : g.peers) {
            const uint64_t said = g.marks[r] ? *g.marks[r] : running;
            if (said == aborting) continue;  // ending the job on purpose: the launcher ends ours
            const bool alive = pid_alive(g.pids[r]);
            if (alive && said != left) continue;
            g.active.store(false);
            g.last_gone = r;
            if (said == left)
                fatal(call, "PE %d is gone (its program ended without shmem_finalize) while this PE waited for %s", r,
                      what);
            fatal(call, "PE %d is gone (its process %d on this host ended: killed or crashed) while this PE waited "
                  "for %s", r, static_cast<int>(g.pids[r]), what);
        }
        return;
    }
    if (g.nspace.empty()) return;
    std::vector<bool> present;
    scan(&present);
    for (int r : g.peers) {
        g.absent[r] = present[r] ? 0 : g.absent[r] + 1;
        if (g.absent[r] < kAbsentScans) continue;
        g.active.store(false);
        g.last_gone = r;
        fatal(call, "PE %d is gone (no process of this job has PMIx rank %d on this host any more) while this PE "
              "waited for %s", r, r, what);
    }
}

void watch_launcher(double interval) {
    if (interval <= 0 || !w().active.load(std::memory_order_acquire)) return;
    std::thread([interval] {
        sigset_t all;  // the program's signals go to its own threads
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, nullptr);
        Watch& g = w();
        for (;;) {
            std::this_thread::sleep_for(std::chrono::duration<double>(interval));
            if (!g.active.load(std::memory_order_acquire)) return;  // finalized (or a check is ending the job)
            char why[300], text[512];
            if (!orphaned(why, sizeof why)) continue;
            std::snprintf(text, sizeof text, "kishmem: PE %d: %s; ending this PE, which no launcher will end (the "
                          "launcher watch, every %g s: KISHMEM_LAUNCHER_WATCH)\n", g.me, why, interval);
            end_orphan(text);
        }
    }).detach();
}

void stop() { w().active.store(false, std::memory_order_release); }

int last_gone() { return w().last_gone; }

}  // namespace kishmem::liveness
