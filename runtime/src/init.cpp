// shmem_init / shmem_finalize: bootstrap, heap segments, route table, transports.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>

#include "kishmem/config.h"
#include "kishmem/env.h"
#include "state.h"

namespace kishmem {

State& state() {
    static State s;
    return s;
}

void check_status(Status s, const char* call, int pe) {
    if (s != Status::ok) fatal(call, "operation on PE %d failed (%s)", pe, status_name(s));
}

void teams_init();
void teams_fini();

namespace {

void abort_job(int status, const char* message) {
    State& s = state();
    if (s.boot) s.boot->abort(status, message);
    std::_Exit(status ? status : 1);
}

int online_cpus() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<int>(n) : 1;
}

void print_info(bool all) {
    std::printf("kishmem %s (OpenSHMEM %d.%d)\n", KISHMEM_VERSION_STRING, 1, 5);
    if (!all) return;
    for (const env::Var& v : env::table()) {
        const char* from = nullptr;
        std::string text = env::text_of(v, &from);
        std::printf("  %-24s = %-10s (%s)  %s\n", v.name, text.c_str(), from, v.doc);
    }
    std::fflush(stdout);
}

// Which PEs share this host: the launcher's word where it gives one, else equal host names.
std::vector<bool> find_local(const Bootstrap& b, const std::vector<std::string>& hosts) {
    std::vector<bool> local(b.size(), false);
    if (!b.local_ranks().empty()) {
        for (int r : b.local_ranks())
            if (r >= 0 && r < b.size()) local[r] = true;
    } else {
        for (int r = 0; r < b.size(); ++r) local[r] = hosts[r] == hosts[b.rank()];
    }
    local[b.rank()] = true;
    return local;
}

}  // namespace

}  // namespace kishmem

namespace kishmem::rt {

int init(int requested) { return init_with_bootstrap(nullptr, requested); }

}  // namespace kishmem::rt

namespace kishmem {

int init_with_bootstrap(std::unique_ptr<Bootstrap> given, int requested) {
    using namespace rt;
    State& s = state();
    if (s.initialized) return s.thread_level;
    if (s.finalized) fatal("shmem_init", "called after shmem_finalize; OpenSHMEM allows one init per program");
    log_enable_debug(env::debug());
    log_set_abort(abort_job);

    const std::size_t heap_bytes = env::symmetric_size();
    const std::string remote = env::remote();
    if (remote != "auto" && remote != "ucx")
        fatal("shmem_init", "KISHMEM_REMOTE='%s': expected auto or ucx", remote.c_str());
    if (heap_bytes < kReserved + kAllocAlign)
        fatal("shmem_init", "SHMEM_SYMMETRIC_SIZE=%zu is too small: at least %zu bytes", heap_bytes, kReserved + kAllocAlign);
    s.hang_warn = env::hang_warn();
    s.hang_abort = env::hang_abort();
    s.thread_level = requested < 0 ? 0 : (requested > 3 ? 3 : requested);

    s.boot = given ? std::move(given) : bootstrap_open();
    s.pe = s.boot->rank();
    s.npes = s.boot->size();
    log_set_pe(s.pe);
    debug("bootstrap %s: PE %d of %d", s.boot->name(), s.pe, s.npes);

    check_status(s.own.create(heap_bytes), "shmem_init", s.pe);
    s.base = static_cast<char*>(s.own.base());
    s.size = heap_bytes;

    // Exchange 1: host name, heap segment, heap size, how many PEs the launcher says are local,
    // and whether this PE wants everything over the network.
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    Blob mine = BlobWriter()
                    .str(host)
                    .str(s.own.name())
                    .u64(heap_bytes)
                    .u64(s.boot->local_ranks().size())
                    .u64(remote == "ucx")
                    .take();
    std::vector<Blob> all;
    check_status(s.boot->allgather(mine, &all, nullptr), "shmem_init", s.pe);
    std::vector<std::string> hosts(s.npes), names(s.npes);
    bool any_remote_ucx = false, all_one_host = true;
    for (int r = 0; r < s.npes; ++r) {
        BlobReader rd(all[r]);
        hosts[r] = rd.str();
        names[r] = rd.str();
        uint64_t size = rd.u64(), nlocal = rd.u64(), want_ucx = rd.u64();
        if (!rd.at_end()) fatal("shmem_init", "malformed bootstrap data from PE %d", r);
        if (size != heap_bytes)
            fatal("shmem_init", "PE %d has a %llu-byte symmetric heap, this PE %zu: set SHMEM_SYMMETRIC_SIZE alike on every PE",
                  r, static_cast<unsigned long long>(size), heap_bytes);
        any_remote_ucx |= want_ucx != 0;
        if (nlocal ? nlocal != static_cast<uint64_t>(s.npes) : hosts[r] != hosts[0]) all_one_host = false;
    }
    s.local = find_local(*s.boot, hosts);

    // Map every same-host peer's heap; once all have mapped, the names go.
    std::vector<char*> bases(s.npes, nullptr);
    s.peer_segments.resize(s.npes);
    int nlocal = 0;
    for (int r = 0; r < s.npes; ++r) {
        if (!s.local[r]) continue;
        ++nlocal;
        if (r == s.pe) {
            bases[r] = s.base;
            continue;
        }
        s.peer_segments[r] = std::make_unique<Segment>();
        check_status(s.peer_segments[r]->attach(names[r], heap_bytes), "shmem_init", r);
        bases[r] = static_cast<char*>(s.peer_segments[r]->base());
    }
    check_status(s.boot->barrier(nullptr), "shmem_init", s.pe);
    s.own.unlink();
    s.shm = std::make_unique<ShmTransport>(bases);

    // Route table: the one decision of "which path reaches pe".
    bool need_ucx = s.npes > 1 && (any_remote_ucx || !all_one_host);
    s.route.assign(s.npes, s.shm.get());
    s.transports = {s.shm.get()};
    if (need_ucx) {
#if KISHMEM_HAVE_UCX
        s.ucx = std::make_unique<UcxTransport>();
        Blob ucx_blob;
        long nchan = env::ucx_channels();
        if (nchan < 1 || nchan > 64) fatal("shmem_init", "KISHMEM_UCX_CHANNELS=%ld: expected 1 to 64", nchan);
        check_status(s.ucx->open(s.thread_level == 3, static_cast<int>(nchan), s.base, s.size, &ucx_blob), "shmem_init",
                     s.pe);
        std::vector<Blob> ucx_all;
        check_status(s.boot->allgather(ucx_blob, &ucx_all, nullptr), "shmem_init", s.pe);
        std::vector<bool> want(s.npes, false);
        for (int r = 0; r < s.npes; ++r) want[r] = r != s.pe && (!s.local[r] || remote == "ucx");
        check_status(s.ucx->connect(ucx_all, want), "shmem_init", s.pe);
        for (int r = 0; r < s.npes; ++r)
            if (want[r]) s.route[r] = s.ucx.get();
        s.transports.push_back(s.ucx.get());
        s.needs_progress = true;
#else
        fatal("shmem_init", "PEs on several hosts (or KISHMEM_REMOTE=ucx) need UCX, and this library was built without it");
#endif
    }

    std::string y = env::yield();
    bool yy = false;
    if (y == "auto") s.yield = nlocal > online_cpus();
    else if (env::parse_bool(y.c_str(), &yy)) s.yield = yy;
    else fatal("shmem_init", "KISHMEM_YIELD='%s': expected auto, 1 or 0", y.c_str());

    s.nchan = 1 << 30;
    for (Transport* t : s.transports) s.nchan = std::min(s.nchan, t->channels());
    s.nchan = std::min(s.nchan, 64);
    s.alloc = std::make_unique<HeapAllocator>(kReserved, s.size);
    std::memset(s.base, 0, kReserved);
    teams_init();
    s.initialized = true;
    // Nobody may write into a peer's sync slots before that peer zeroed them.
    check_status(s.boot->barrier([] { progress(); }), "shmem_init", s.pe);
    if (s.pe == 0 && (env::info() || env::version())) print_info(env::info());
    debug("init done: %d local PEs, %s", nlocal, need_ucx ? "UCX for off-host peers" : "load/store only");
    return s.thread_level;
}

}  // namespace kishmem

namespace kishmem::rt {

void finalize() {
    State& s = state();
    if (!s.initialized) return;
    barrier_all();
    // The barrier's own flags may still be in flight: complete them while every PE keeps
    // serving its peers, then nothing is in flight towards anyone and transports can close.
    quiet_all();
    check_status(s.boot->barrier([] { progress(); }), "shmem_finalize", s.pe);
    for (Transport* t : s.transports) t->close();
    check_status(s.boot->barrier(nullptr), "shmem_finalize", s.pe);
#if KISHMEM_HAVE_UCX
    s.ucx.reset();
#endif
    s.route.clear();
    s.transports.clear();
    s.shm.reset();
    s.peer_segments.clear();
    s.alloc.reset();
    s.boot->finalize();
    teams_fini();
    s.initialized = false;
    s.finalized = true;
}

bool initialized() { return state().initialized; }
bool finalized() { return state().finalized; }
int thread_level() { return state().thread_level; }
int my_pe() { return state().pe; }
int n_pes() { return state().npes; }
bool same_host(int pe) { return state().local[pe]; }
const char* bootstrap_name() { return state().boot ? state().boot->name() : "none"; }

void global_exit(int status) {
    std::fflush(stdout);
    std::fflush(stderr);
    State& s = state();
    if (s.boot) s.boot->abort(status, "shmem_global_exit");
    std::_Exit(status);
}

}  // namespace kishmem::rt
