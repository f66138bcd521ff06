// shmem_init / shmem_finalize: bootstrap, heap segments, route table, transports.
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>

#include "bootstrap/liveness.h"
#include "kishmem/config.h"
#include "kishmem/env.h"
#include "kishmem/team.h"
#include "heap/limits.h"
#include "heap/static_segment.h"
#include "affinity.h"
#include "init_heaps.h"
#include "routes.h"
#include "kishmem/device/state.h"
#include "state.h"
#if KISHMEM_HAVE_CUDA
#include "device_backend/backend.h"
#endif

namespace kishmem {

State::State() = default;
State::~State() = default;

void check_status(Status s, const char* call, int pe) {
    if (s == Status::ok) return;
    char what[256];  // the API routine the program called, when this thread is in one (ApiCall)
    api_call_text(what, sizeof what, call);
    if (pe < 0) fatal(what, "completing this PE's operations failed (%s)", status_name(s));
    fatal(what, "operation on PE %d failed (%s)", pe, status_name(s));
}

void teams_init();
void teams_fini();
void publish_device_state(const device::State& st);

namespace {

// Says to same-host peers how this PE ends (liveness.h), in its own host segment.
// Ends the job when heaps of heap_bytes for `pes` PEs of this host do not fit together in `limit`:
// one before anything is allocated (the PEs do not know yet who shares the host), then all of
// this host's once they do (before any peer's heap is mapped). A heap is a memfd that only the
// pages touched occupy, but a program or UCX may touch it whole, and the OOM killer then ends
// the job without a word.
void refuse_unbacked_heap(std::size_t heap_bytes, int pes, const limits::Limit& limit) {
    const std::size_t total = heap_bytes * static_cast<std::size_t>(pes);  // (many PEs' heaps together may wrap)
    const bool wraps = total / static_cast<std::size_t>(pes) != heap_bytes;
    if (limit.bytes == 0 || (!wraps && total <= limit.bytes)) return;
    const char* set = std::getenv("SHMEM_SYMMETRIC_SIZE");
    if (!set) set = std::getenv("KISHMEM_SYMMETRIC_SIZE");
    if (pes == 1)
        fatal("shmem_init", "SHMEM_SYMMETRIC_SIZE=%s (a heap of %zu bytes with the runtime's own, %s) is more than %s allows "
              "(%zu bytes, %s): lower SHMEM_SYMMETRIC_SIZE", set ? set : "(default)", heap_bytes,
              limits::bytes_text(heap_bytes).c_str(), limit.what.c_str(), limit.bytes, limits::bytes_text(limit.bytes).c_str());
    fatal("shmem_init", "SHMEM_SYMMETRIC_SIZE=%s: the %d PEs on this host have a heap of %zu bytes each with the runtime's "
          "own (%s together), more than %s allows (%zu bytes, %s): lower SHMEM_SYMMETRIC_SIZE or start fewer PEs on a host",
          set ? set : "(default)", pes, heap_bytes, wraps ? "more than 2^64 bytes" : limits::bytes_text(total).c_str(),
          limit.what.c_str(), limit.bytes, limits::bytes_text(limit.bytes).c_str());
}

void mark_end(liveness::Mark how) {
    State& s = state();
    if (s.sync_base && s.sync_size > kLifeMarkOffset)
        __atomic_store_n(reinterpret_cast<uint64_t*>(s.sync_base + kLifeMarkOffset), static_cast<uint64_t>(how),
                         __ATOMIC_RELEASE);
}

// The job ends on an error: nothing of this PE may stay behind in /dev/shm, whether or not its
// peers mapped it already.
void unlink_own_segments() {
    State& s = state();
    if (s.own) s.own->unlink();
    if (s.static_own) s.static_own->unlink();
}

void abort_job(int status, const char* message) {
    State& s = state();
    mark_end(liveness::aborting);
    unlink_own_segments();
    if (s.boot) s.boot->abort(status, message);
    std::_Exit(status ? status : 1);
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

// The pid namespace of this process (pids are compared only within one).
uint64_t pid_namespace() {
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 ? static_cast<uint64_t>(st.st_ino) : 0;
}

// exit() or a return from main without shmem_finalize: same-host peers that wait for this PE
// learn why it is gone (liveness.h); the launcher sees an abnormal end (bootstrap).
void left_without_finalize() {
    State& s = state();
    if (s.initialized && !s.finalized) mark_end(liveness::left);
}

}  // namespace

}  // namespace kishmem

namespace kishmem::rt {

int init(int requested) { return init_with_bootstrap(nullptr, requested); }

}  // namespace kishmem::rt

namespace kishmem {

int init_with_bootstrap(std::unique_ptr<Bootstrap> given, int requested) {
    using namespace rt;
    // Open MPI's UCX components (pml/osc ucx) forward memory-release events to UCX through
    // hooks in their own libraries by default (opal_common_ucx_opal_mem_hooks). When
    // MPI_Init comes after shmem_init and MPI_Finalize before shmem_finalize, MPI_Finalize
    // unloads those libraries while kishmem's UCX keeps running, and a later unmap in any
    // thread jumps into unmapped code. Unless the user chose otherwise, leave memory events to
    // UCX's own hooks (read by MPI_Init, so this only matters when shmem_init comes first; under
    // shmemx_init_mpi MPI has started, and its threads may read the environment while it is
    // written: it is left alone there).
    if (!given || std::strcmp(given->name(), "mpi") != 0) setenv("OMPI_MCA_opal_common_ucx_opal_mem_hooks", "0", 0);
    State& s = state();
    if (s.initialized) return s.thread_level;
    if (s.finalized) fatal("shmem_init", "called after shmem_finalize; OpenSHMEM allows one init per program");
    log_set_abort(abort_job);
    // Every variable of the env table is checked here, once, before anything reads one: a bad
    // value ends the job saying what the variable accepts (env.def's types and choices).
    std::string bad_env;
    if (!env::check_all(&bad_env)) fatal("shmem_init", "%s", bad_env.c_str());
    if (const long c = env::cuda_connections(); c < -1)  // (read when the library loaded: cuda_connections.cpp)
        fatal("shmem_init", "KISHMEM_CUDA_CONNECTIONS=%ld: expected -1 (from the launcher's PEs per GPU), 0 (CUDA's own) "
              "or 1 to 32", c);
    log_enable_debug(env::debug());

    // SHMEM_SYMMETRIC_SIZE is what the program can allocate: the runtime's own regions (kReserved,
    // device::kDevReserved in a GPU heap) come on top of it.
    const std::size_t user_bytes = env::symmetric_size();
    if (user_bytes > SIZE_MAX / 2)
        fatal("shmem_init", "SHMEM_SYMMETRIC_SIZE=%zu is larger than any memory: at most %zu bytes", user_bytes, SIZE_MAX / 2);
    const std::size_t heap_bytes = user_bytes + kReserved;
    routes::Config cfg;
    cfg.remote = env::remote();
    cfg.heap = env::heap();
    WaitPolicy& waits = wait_policy();
    waits.hang_warn = env::hang_warn();
    waits.hang_abort = env::hang_abort();
    waits.progress = rt::progress;
    waits.watch = liveness::check;
    s.thread_level = requested < 0 ? 0 : (requested > kThreadMultiple ? kThreadMultiple : requested);
    waits.progress_any_thread = s.thread_level == kThreadMultiple;  // UCX workers are then made for threads

    s.boot = given ? std::move(given) : bootstrap_open();
    liveness::watch_launcher(env::launcher_watch());  // (a launcher's PEs only: liveness::start)
    s.pe = s.boot->rank();
    s.npes = s.boot->size();
    log_set_pe(s.pe);
    debug("bootstrap %s: PE %d of %d", s.boot->name(), s.pe, s.npes);

    const limits::Limit host_limit = limits::host_memory();
    refuse_unbacked_heap(heap_bytes, 1, host_limit);
    s.own = std::make_unique<Segment>();
    check_status(s.own->create(heap_bytes), "shmem_init", s.pe);
    s.sync_base = s.base = static_cast<char*>(s.own->base());
    s.sync_size = s.size = heap_bytes;

    // Exchange 1: host name, heap segment, heap size, the PEs the launcher says share this host,
    // and the route settings (KISHMEM_REMOTE, KISHMEM_HEAP), which must agree: every PE derives
    // the same routes from them, and a pair of PEs that disagree about load/store between them
    // would each take the other's data for somewhere else.
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    char* static_base = nullptr;
    std::size_t static_bytes = 0;
    if (!(env::static_symmetric() && find_static_segment(&static_base, &static_bytes))) static_bytes = 0;
    const Blob affinity = affinity_blob();
    std::vector<Blob> masks(s.npes);
    BlobWriter launcher_word;
    std::vector<int> said_local = s.boot->local_ranks();
    if (const auto f = env::sim_launcher(); f.here(s.pe)) {  // tests: a launcher that denies or joins
        said_local.assign(1, s.pe);
        if (f.kind == env::LauncherWord::join)
            for (int r = 0; r < s.npes; ++r) said_local.push_back(r);
    }
    launcher_word.u64(said_local.size());
    for (int r : said_local) launcher_word.u64(static_cast<uint64_t>(r));
    const Blob said = launcher_word.take();
    Blob mine = BlobWriter()
                    .str(host)
                    .str(routes::machine_identity())
                    .str(s.own->name())
                    .u64(heap_bytes)
                    .bytes(said.data(), said.size())
                    .str(env::word(cfg.remote))
                    .str(env::word(cfg.heap))
                    .u64(static_bytes)
                    .bytes(affinity.data(), affinity.size())
                    .u64(static_cast<uint64_t>(getpid()))
                    .u64(pid_namespace())
                    .take();
    std::vector<Blob> all;
    check_status(s.boot->allgather(mine, &all, nullptr), "shmem_init", s.pe);
    std::vector<std::string> hosts(s.npes), machines(s.npes), names(s.npes);
    std::vector<pid_t> pids(s.npes, 0);
    std::vector<std::vector<int>> launcher(s.npes);
    for (int r = 0; r < s.npes; ++r) {
        BlobReader rd(all[r]);
        hosts[r] = rd.str();
        machines[r] = rd.str();
        names[r] = rd.str();
        uint64_t size = rd.u64();
        const Blob their_word = rd.bytes();
        BlobReader word(their_word);
        for (uint64_t k = word.u64(); k > 0 && word.ok(); --k) launcher[r].push_back(static_cast<int>(word.u64()));
        const std::string remote_mode = rd.str();
        const std::string heap_mode = rd.str();
        if (rd.u64() != static_bytes) static_bytes = 0;  // not the same executable everywhere
        masks[r] = rd.bytes();
        pids[r] = static_cast<pid_t>(rd.u64());
        if (rd.u64() != pid_namespace()) pids[r] = 0;  // not a pid this PE can look at
        if (!rd.at_end()) fatal("shmem_init", "malformed bootstrap data from PE %d", r);
        if (remote_mode != env::word(cfg.remote))
            fatal("shmem_init", "PE %d has KISHMEM_REMOTE=%s, this PE %s: set it alike on every PE (mpirun passes it to "
                  "other hosts with -x KISHMEM_REMOTE)", r, remote_mode.c_str(), env::word(cfg.remote));
        if (heap_mode != env::word(cfg.heap))
            fatal("shmem_init", "PE %d has KISHMEM_HEAP=%s, this PE %s: set it alike on every PE", r, heap_mode.c_str(),
                  env::word(cfg.heap));
        if (size != heap_bytes)
            fatal("shmem_init", "PE %d has a %llu-byte symmetric heap, this PE %zu: set SHMEM_SYMMETRIC_SIZE alike on every PE",
                  r, static_cast<unsigned long long>(size), heap_bytes);
    }
    const routes::Hosts where = routes::find_hosts(s.pe, hosts, machines, launcher);
    if (!where.disagreement.empty() && s.pe == 0) warn("shmem_init", "%s", where.disagreement.c_str());
    const bool all_one_host = where.all_one_host;
    s.local = where.local;
    for (int r = 0; r < s.npes; ++r)
        if (!s.local[r] || r == s.pe) pids[r] = 0;
    liveness::set_pids(pids);
    const routes::Setup setup = routes::plan_setup(s.local, all_one_host, cfg);
    const bool need_ucx = setup.need_ucx;
    const long nchan = env::ucx_channels();
    if (need_ucx && (nchan < 1 || nchan > 64)) fatal("shmem_init", "KISHMEM_UCX_CHANNELS=%ld: expected 1 to 64", nchan);

    // Map every same-host peer's heap (also under KISHMEM_REMOTE=ucx: UCX only registers the
    // segments, open_ucx_registered); once all have mapped, the names go.
    std::vector<char*> bases(s.npes, nullptr);
    int nlocal = 0;
    for (int r = 0; r < s.npes; ++r) nlocal += s.local[r];
    refuse_unbacked_heap(heap_bytes, nlocal, host_limit);  // (every PE of this host finds the same)
    s.peer_segments.resize(s.npes);
    for (int r = 0; r < s.npes; ++r) {
        if (!s.local[r]) continue;
        if (r == s.pe) {
            bases[r] = s.base;
            continue;
        }
        s.peer_segments[r] = std::make_unique<Segment>();
        check_status(s.peer_segments[r]->attach(names[r], heap_bytes), "shmem_init", r);
        bases[r] = static_cast<char*>(s.peer_segments[r]->base());
    }
    check_status(s.boot->barrier(nullptr), "shmem_init", s.pe);
    s.own->unlink();
    s.shm = std::make_unique<ShmTransport>(bases);
    std::vector<const volatile uint64_t*> marks(s.npes, nullptr);
    for (int r = 0; r < s.npes; ++r)
        if (bases[r] && r != s.pe) marks[r] = reinterpret_cast<const volatile uint64_t*>(bases[r] + kLifeMarkOffset);
    liveness::set_marks(marks);

    // The route decision (routes.cpp), carried out: the GPU heap if there is one, the tables,
    // UCX where a table says so, global variables, the device paths.
    DeviceHeapMap dmap;
    routes::Facts facts;
    facts.me = s.pe;
    facts.local = s.local;
    facts.device_heap = open_device_heap(user_bytes + device::kDevReserved, setup, cfg, &dmap, &facts.no_device_heap);
    s.routes = routes::build_routes(facts, cfg, setup);
    s.route_why = routes::explain(facts, cfg, setup, s.routes);
    s.transports = {s.shm.get()};
#if KISHMEM_HAVE_CUDA
    if (s.device_heap) s.transports.push_back(s.cuda_ipc.get());
#endif
    if (s.routes.ucx_heap) {
#if KISHMEM_HAVE_UCX
        open_ucx_registered(static_cast<int>(nchan));
        if (const auto f = env::sim_ucx_fail(); f.here(s.pe)) s.ucx->fail_on_purpose(f);  // tests
#else
        fatal("shmem_init", "PEs on several hosts (or KISHMEM_REMOTE=ucx) need UCX, and this library was built without it");
#endif
    }
    const auto transport = [&](routes::Path p) -> Transport* {
        switch (p) {
            case routes::Path::load_store: return s.shm.get();
#if KISHMEM_HAVE_CUDA
            case routes::Path::cuda_ipc: return s.cuda_ipc.get();
#endif
#if KISHMEM_HAVE_UCX
            case routes::Path::ucx: return s.ucx.get();
#endif
#if KISHMEM_HAVE_CUDA && KISHMEM_HAVE_UCX
            case routes::Path::ucx_am: return s.am_transport.get();
#endif
            default: break;
        }
        fatal("shmem_init", "no transport for the %s path in this build", routes::name(p));
    };
    s.route.resize(s.npes);
    s.route_sync.resize(s.npes);
    for (int r = 0; r < s.npes; ++r) {
        s.route[r] = transport(s.routes.heap[r]);
        s.route_sync[r] = transport(s.routes.sync[r]);
    }
#if KISHMEM_HAVE_UCX
    if (s.ucx) s.transports.push_back(s.ucx.get());
#endif
#if KISHMEM_HAVE_CUDA && KISHMEM_HAVE_UCX
    if (s.am_transport) s.transports.push_back(s.am_transport.get());
#endif
    if (s.device_heap) start_device_paths(s.routes, dmap);

    // Global and static variables: only when every PE runs the same executable layout (checked in
    // exchange 1 above).
    if (static_bytes) open_statics(static_base, static_bytes, s.routes, setup.share_statics);
    for (Transport* t : s.transports) s.needs_progress |= (t->caps() & cap_needs_progress) != 0;

    const env::AutoBool y = env::yield();
    const int spare_cpus = cpus_shared_by_pes(masks, s.local);
    waits.yield = y == env::AutoBool::auto_ ? spare_cpus < 0 : y == env::AutoBool::on;
    debug("waits %s (KISHMEM_YIELD=%s; %d same-host PEs, %d CPUs in their affinity masks together)",
          waits.yield ? "yield the CPU" : "spin", env::word(y), nlocal, nlocal + spare_cpus);

    // Channels a context can own: the most any transport in use keeps apart (a transport with
    // fewer maps channel c to c % its count).
    s.nchan = 1;
    for (Transport* t : s.transports) s.nchan = std::max(s.nchan, std::min(t->channels(), 64));
    s.alloc = std::make_unique<HeapAllocator>(s.device_heap ? device::kDevReserved : kReserved, s.size);
    if (!s.alloc->freed_bits())
        fatal("shmem_init", "cannot allocate the map of freed heap blocks (%zu bytes)", s.size / 512 + 1);
    std::memset(s.sync_base, 0, kReserved);
    teams_init();
    s.p2p.assign(s.npes, nullptr);
    for (int r = 0; r < s.npes; ++r)
        if (s.routes.p2p[r]) s.p2p[r] = s.shm->base(r);
    g_hot.my_pe = s.pe;
    g_hot.n_pes = s.npes;
    g_hot.base = s.base;
    g_hot.size = s.size;
    g_hot.p2p = s.p2p.data();
    g_hot.device_heap = s.device_heap;
    g_hot.static_base = s.static_base;
    g_hot.static_size = s.static_size;
    g_hot.needs_progress = s.needs_progress;
    g_hot.threads = s.thread_level == kThreadMultiple;
    g_hot.count_target = env::pcntr_target();
    g_hot.freed = s.alloc->freed_bits();
    g_hot.bounds = s.alloc->bound_bits();
    g_hot.static_ends = s.static_size ? static_objects().end_bits() : nullptr;
    s.initialized = g_hot.initialized = true;
    static bool exit_hook = false;
    if (!exit_hook) exit_hook = std::atexit(left_without_finalize) == 0;
    // Nobody may write into a peer's sync slots before that peer zeroed them.
    check_status(s.boot->barrier([] { progress(); }), "shmem_init", s.pe);
    if (s.pe == 0 && (env::info() || env::version())) print_info(env::info());
    if (s.pe == 0 && env::info()) {
        for (const std::string& line : s.route_why) std::printf("  %s\n", line.c_str());
        std::fflush(stdout);
    }
    debug("init done: %d local PEs, %s", nlocal, need_ucx ? "UCX for off-host peers" : "load/store only");
    return s.thread_level;
}

}  // namespace kishmem

namespace kishmem::rt {

void finalize() {
    State& s = state();
    if (!s.initialized) return;
#if KISHMEM_HAVE_CUDA
    // What kernels posted lands while every target heap still exists.
    if (s.device_backend) s.device_backend->drain();
#endif
    s.boot->set_call("shmem_finalize");
    finalize_barrier();
    // The barrier's own flags may still be in flight: complete them while every PE keeps
    // serving its peers, then nothing is in flight towards anyone and transports can close.
    quiet_all();
    check_status(s.boot->barrier([] { progress(); }), "shmem_finalize", s.pe);
    for (Transport* t : s.transports) t->close();
    // From here on peers leave normally: a PE that the last fence let go may be gone before
    // this one sees the fence complete.
    liveness::stop();
    check_status(s.boot->barrier(nullptr), "shmem_finalize", s.pe);
#if KISHMEM_HAVE_UCX
    s.ucx.reset();
#endif
    s.route.clear();
    s.route_sync.clear();
    s.route_static.clear();
    s.static_shm.reset();
#if KISHMEM_HAVE_UCX
    s.static_ucx.reset();
#endif
    s.static_peers.clear();
    s.static_own.reset();  // the program keeps its (now shared) variables mapped
    g_hot.static_base = nullptr;
    g_hot.static_size = 0;
    s.transports.clear();
    s.shm.reset();
#if KISHMEM_HAVE_CUDA
    if (s.device_backend) s.device_backend->close();
    s.device_backend.reset();
#if KISHMEM_HAVE_UCX
    s.am_transport.reset();  // every PE is past the last barrier: nobody sends to the service any more
    s.am.reset();
    s.am_local.reset();
#endif
    s.cuda_ipc.reset();
    s.dheap.reset();
#endif
    s.peer_segments.clear();
    g_hot.size = 0;  // the freed map goes with the allocator
    g_hot.freed = nullptr;
    g_hot.bounds = nullptr;
    g_hot.static_ends = nullptr;
    g_hot.static_last = 0;
    static_objects().clear();
    s.alloc.reset();
    s.boot->finalize();
    teams_fini();
    s.initialized = g_hot.initialized = false;
    s.finalized = true;
}

Hot g_hot;

bool finalized() { return state().finalized; }
std::vector<std::string> route_report() { return state().route_why; }
int thread_level() { return state().thread_level; }
bool same_host(int pe) { return state().local[pe]; }
int gpu_pes() { return state().gpu_pes; }
const char* bootstrap_name() { return state().boot ? state().boot->name() : "none"; }

void global_exit(int status) {
    // A process's exit status keeps the low 8 bits: a nonzero status whose low bits are 0 (256,
    // -256) would read as success.
    if (status != 0 && (status & 0xff) == 0) {
        warn("shmem_global_exit", "status %d reads as 0 in the 8 bits an exit status keeps: the job exits with 1", status);
        status = 1;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    State& s = state();
    mark_end(liveness::aborting);
    unlink_own_segments();
    if (s.boot) s.boot->abort(status, "shmem_global_exit");
    std::_Exit(status);
}

}  // namespace kishmem::rt
