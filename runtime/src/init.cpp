// shmem_init / shmem_finalize: bootstrap, heap segments, route table, transports.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include "kishmem/config.h"
#include "kishmem/env.h"
#include "kishmem/team.h"
#include "heap/static_segment.h"
#include "kishmem/device/state.h"
#include "state.h"
#if KISHMEM_HAVE_CUDA
#include "transport/ibgda/device_qps.h"
#include "transport/proxy/device_proxy.h"
#endif

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
void publish_device_state(const device::State& st);

namespace {

void abort_job(int status, const char* message) {
    State& s = state();
    if (s.boot) s.boot->abort(status, message);
    std::_Exit(status ? status : 1);
}

// The CPUs this process may run on, as bytes for the bootstrap exchange (all online CPUs when
// the mask cannot be read).
Blob affinity_blob() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        CPU_ZERO(&set);
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        for (long c = 0; c < (n > 0 ? n : 1) && c < CPU_SETSIZE; ++c) CPU_SET(c, &set);
    }
    const auto* p = reinterpret_cast<const uint8_t*>(&set);
    return Blob(p, p + sizeof set);
}

// KISHMEM_YIELD=auto: the host is oversubscribed when its PEs outnumber the CPUs they may run
// on together (the union of their affinity masks).  PEs bound one to a core (mpirun's default)
// then spin on their own cores; PEs squeezed onto fewer cores than there are PEs yield.
bool oversubscribed(const std::vector<Blob>& masks, const std::vector<bool>& local) {
    cpu_set_t all;
    CPU_ZERO(&all);
    int nlocal = 0;
    for (std::size_t r = 0; r < masks.size(); ++r) {
        if (!local[r]) continue;
        ++nlocal;
        cpu_set_t m;
        CPU_ZERO(&m);
        std::memcpy(&m, masks[r].data(), std::min(masks[r].size(), sizeof m));
        CPU_OR(&all, &all, &m);
    }
    return nlocal > CPU_COUNT(&all);
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

// KISHMEM_HEAP: a GPU-memory user heap shared through CUDA IPC when every PE has a usable GPU
// and every peer is on this host; otherwise (auto) the host segment is the user heap.
void open_device_heap(std::size_t heap_bytes, bool ipc_reaches_all) {
    State& s = state();
    const std::string mode = env::heap();
    if (mode != "auto" && mode != "device" && mode != "host")
        fatal("shmem_init", "KISHMEM_HEAP='%s': expected auto, device or host", mode.c_str());
    if (mode == "host") return;
#if KISHMEM_HAVE_CUDA
    int local_rank = 0;
    for (int r = 0; r < s.pe; ++r) local_rank += s.local[r];
    std::string why;
    auto dh = std::make_unique<DeviceHeap>();
    bool ok = ipc_reaches_all;
    if (!ok) why = "some PE is on another host (or KISHMEM_REMOTE=ucx): device heaps reach only same-host PEs so far";
    else ok = dh->open(local_rank, heap_bytes, &why) == Status::ok;
    // Every PE must agree: one PE without a GPU makes the whole job use host heaps (auto).
    std::vector<Blob> all;
    Blob handle = ok ? dh->export_blob() : Blob{};
    check_status(s.boot->allgather(BlobWriter().u64(ok).bytes(handle.data(), handle.size()).str(why).take(), &all, nullptr),
                 "shmem_init", s.pe);
    for (int r = 0; r < s.npes; ++r) {
        BlobReader rd(all[r]);
        if (rd.u64()) continue;
        rd.bytes();
        std::string their = rd.str();
        if (mode == "device") fatal("shmem_init", "KISHMEM_HEAP=device but PE %d has no usable device heap: %s", r, their.c_str());
        debug("device heap not used: PE %d: %s", r, their.c_str());
        return;
    }
    device::State st{};
    st.my_pe = s.pe;
    st.ctx_default = &kishmem_ctx_default_obj;
    st.hang_warn_ns = s.hang_warn > 0 ? static_cast<unsigned long long>(s.hang_warn * 1e9) : 0;
    st.hang_abort_ns = s.hang_abort > 0 ? static_cast<unsigned long long>(s.hang_abort * 1e9) : 0;
    st.n_pes = s.npes;
    st.initialized = 1;
    st.heap_base = dh->base();
    st.heap_size = heap_bytes;
    std::vector<char*> bases(s.npes, nullptr);
    std::string map_failure;
    for (int r = 0; r < s.npes && map_failure.empty(); ++r) {
        BlobReader rd(all[r]);
        rd.u64();
        Blob theirs = rd.bytes();
        if (r == s.pe) {
            bases[r] = dh->base();
            continue;
        }
        bool same_gpu = false;
        if (dh->map_peer(theirs, &bases[r], &same_gpu, &why) != Status::ok)
            map_failure = "cannot map the device heap of PE " + std::to_string(r) + ": " + why;
        if (!same_gpu) st.sys_scope = 1;
    }
    // Every PE must have mapped every peer; otherwise (auto) all fall back to host heaps.
    std::vector<Blob> mapped;
    check_status(s.boot->allgather(BlobWriter().str(map_failure).take(), &mapped, nullptr), "shmem_init", s.pe);
    for (int r = 0; r < s.npes; ++r) {
        std::string theirs = BlobReader(mapped[r]).str();
        if (theirs.empty()) continue;
        if (mode == "device")
            fatal("shmem_init", "KISHMEM_HEAP=device but PE %d %s (CUDA IPC between these GPUs is not possible)", r,
                  theirs.c_str());
        warn("shmem_init", "GPU heaps not used: PE %d %s (no CUDA IPC between these GPUs); the symmetric heap is in "
                           "host memory instead", r, theirs.c_str());
        return;
    }
    if (s.npes > device::kMaxPes)
        fatal("shmem_init", "device heaps support up to %d PEs so far (this job has %d); set KISHMEM_HEAP=host",
              device::kMaxPes, s.npes);
    for (int r = 0; r < s.npes; ++r) st.peer_base[r] = bases[r];
    check_status(device_set(dh->base(), 0, device::kDevReserved), "shmem_init", s.pe);
    s.cuda_ipc = std::make_unique<CudaIpcTransport>(bases);
    s.base = dh->base();
    s.size = heap_bytes;
    s.device_heap = true;
    s.dheap = std::move(dh);
    s.route.assign(s.npes, s.cuda_ipc.get());
    s.transports.push_back(s.cuda_ipc.get());
    // KISHMEM_REMOTE=ibgda or proxy: kernels reach every other PE through IBGDA work queues
    // or the CPU proxy (host calls still use the routes above).
    const std::string remote = env::remote();
    if (remote == "ibgda" || remote == "proxy") {
        const Status rs =
            remote == "ibgda"
                ? ibgda::open_device_qps(s.dheap->base(), heap_bytes, s.dheap->device(), bases, &st, &why)
                : proxy::open_device_proxy(s.dheap->base(), heap_bytes, s.dheap->device(), bases, &st, &why);
        if (rs != Status::ok) fatal("shmem_init", "KISHMEM_REMOTE=%s: %s", remote.c_str(), why.c_str());
        // The device path's route: other PEs remote, not load/store (peer() reads this).
        for (int r = 0; r < s.npes; ++r)
            if (r != s.pe) st.peer_base[r] = nullptr;
    }
    publish_device_state(st);
    debug("symmetric heap in GPU %d memory (%zu bytes)", s.dheap->device(), heap_bytes);
#else
    (void)heap_bytes;
    (void)ipc_reaches_all;
    if (mode == "device") fatal("shmem_init", "KISHMEM_HEAP=device but this library was built without CUDA");
#endif
}

// PEs reached through UCX (KISHMEM_REMOTE=ucx, or PEs on several hosts): UCX allocates each
// PE's host segment (at an address aligned as create() aligns it), so that its shared-memory
// transports reach same-host heaps natively (the initiator copies and does CPU atomics) instead
// of emulating RMA and atomics in software at the target, which then has to be running to serve
// them.  Same-host peers are mapped through ucp_rkey_ptr.  Collective; false, with nothing
// kept, when some PE cannot map a same-host peer that way (e.g. UCX_TLS without shared memory).
bool open_ucx_heap(std::size_t bytes, int nchan, std::vector<char*>* bases) {
#if KISHMEM_HAVE_UCX
    State& s = state();
    auto ucx = std::make_unique<UcxTransport>();
    void* at = reserve_aligned(bytes);
    Blob blob;
    bool ok = at && ucx->open(s.thread_level == 3, nchan, at, bytes, &blob, true) == Status::ok;
    std::vector<Blob> all;
    check_status(s.boot->allgather(ok ? blob : Blob{}, &all, nullptr), "shmem_init", s.pe);
    for (const Blob& b : all) ok &= !b.empty();
    std::vector<char*> mapped(s.npes, nullptr);
    if (ok) {
        std::vector<bool> want(s.npes, true);
        want[s.pe] = false;
        ok = ucx->connect(all, want) == Status::ok;
        mapped[s.pe] = static_cast<char*>(at);
        for (int r = 0; r < s.npes && ok; ++r)
            if (s.local[r] && r != s.pe) ok = (mapped[r] = ucx->peer_ptr(r)) != nullptr;
    }
    std::vector<Blob> verdicts;
    check_status(s.boot->allgather(BlobWriter().u64(ok).take(), &verdicts, nullptr), "shmem_init", s.pe);
    for (const Blob& v : verdicts) ok &= BlobReader(v).u64() != 0;
    if (!ok) {
        debug("UCX does not map same-host heaps here: they are shared by POSIX shared memory, UCX registers them");
        return false;  // ucx closes (and frees what it allocated); the reservation stays unused
    }
    s.own.reset();  // the segment made before (nobody mapped it) goes
    s.sync_base = s.base = static_cast<char*>(at);
    s.ucx = std::move(ucx);
    *bases = mapped;
    for (int r = 0; r < s.npes; ++r)
        if (!s.local[r]) (*bases)[r] = nullptr;
    debug("symmetric heap allocated by UCX; same-host heaps mapped through it");
    return true;
#else
    (void)bytes, (void)nchan, (void)bases;
    return false;
#endif
}

// The executable's writable segment as a second symmetric region.  Same-host peers share it:
// each PE moves its segment into a shared-memory object at the same address and maps its
// same-host peers' objects, so their variables are reached by load/store and CPU atomics like
// the heap.  PEs on other hosts (every peer with KISHMEM_REMOTE=ucx) go through a UCX
// transport registered over the segment.  Collective: every PE calls it, also alone (1 PE).
void open_statics(char* base, std::size_t bytes, bool all_one_host, bool ucx_for_local) {
    State& s = state();
    std::vector<char*> bases(s.npes, nullptr);
    bases[s.pe] = base;
    bool share = false;
    for (int r = 0; r < s.npes; ++r) share |= r != s.pe && s.local[r] && !ucx_for_local;
    if (s.npes > 1) {
        auto own = std::make_unique<Segment>();
        if (share && own->create_over(base, bytes) != Status::ok)
            fatal("shmem_init", "cannot share the %zu bytes of global and static variables at %p with same-host PEs; "
                  "KISHMEM_STATIC_SYMMETRIC=0 turns symmetric global variables off", bytes, static_cast<void*>(base));
        std::vector<Blob> all;
        check_status(s.boot->allgather(BlobWriter().str(share ? own->name() : std::string()).take(), &all, nullptr),
                     "shmem_init", s.pe);
        s.static_peers.resize(s.npes);
        for (int r = 0; r < s.npes && share; ++r) {
            if (r == s.pe || !s.local[r]) continue;
            std::string name = BlobReader(all[r]).str();
            auto seg = std::make_unique<Segment>();
            if (name.empty() || seg->attach(name, bytes) != Status::ok)
                fatal("shmem_init", "cannot map the global and static variables of PE %d (same host); "
                      "KISHMEM_STATIC_SYMMETRIC=0 turns symmetric global variables off", r);
            bases[r] = static_cast<char*>(seg->base());
            s.static_peers[r] = std::move(seg);
        }
        check_status(s.boot->barrier(nullptr), "shmem_init", s.pe);
        own->unlink();
        s.static_own = std::move(own);
    }
    s.static_shm = std::make_unique<ShmTransport>(bases);
    s.route_static.assign(s.npes, s.static_shm.get());
    if (s.npes > 1 && (!all_one_host || ucx_for_local)) {
#if KISHMEM_HAVE_UCX
        auto ucx = std::make_unique<UcxTransport>();
        Blob blob;
        if (ucx->open(s.thread_level == 3, 1, base, bytes, &blob) != Status::ok)
            fatal("shmem_init", "global and static variables: UCX could not register the %zu bytes at %p; "
                  "KISHMEM_STATIC_SYMMETRIC=0 turns symmetric global variables off", bytes, static_cast<void*>(base));
        std::vector<Blob> all;
        check_status(s.boot->allgather(blob, &all, nullptr), "shmem_init", s.pe);
        std::vector<bool> want(s.npes, false);
        for (int r = 0; r < s.npes; ++r) want[r] = bases[r] == nullptr;
        check_status(ucx->connect(all, want), "shmem_init", s.pe);
        s.static_ucx = std::move(ucx);
        for (int r = 0; r < s.npes; ++r)
            if (want[r]) s.route_static[r] = s.static_ucx.get();
        s.transports.push_back(s.static_ucx.get());
        s.needs_progress = true;
#else
        fatal("shmem_init", "global and static variables of PEs on other hosts need UCX, and this library was built "
              "without it; KISHMEM_STATIC_SYMMETRIC=0 turns symmetric global variables off");
#endif
    }
    s.static_base = base;
    s.static_size = bytes;
    debug("global and static variables symmetric: %zu bytes at %p (%s)", bytes, static_cast<void*>(base),
          share ? "shared with same-host PEs" : "this PE's own by load/store");
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
    // UCX's own hooks (read by MPI_Init, so this only matters when shmem_init comes first).
    setenv("OMPI_MCA_opal_common_ucx_opal_mem_hooks", "0", 0);
    State& s = state();
    if (s.initialized) return s.thread_level;
    if (s.finalized) fatal("shmem_init", "called after shmem_finalize; OpenSHMEM allows one init per program");
    log_enable_debug(env::debug());
    log_set_abort(abort_job);

    const std::size_t heap_bytes = env::symmetric_size();
    const std::string remote = env::remote();
    if (remote != "auto" && remote != "ucx" && remote != "ibgda" && remote != "proxy")
        fatal("shmem_init", "KISHMEM_REMOTE='%s': expected auto, ucx, ibgda or proxy", remote.c_str());
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

    s.own = std::make_unique<Segment>();
    check_status(s.own->create(heap_bytes), "shmem_init", s.pe);
    s.sync_base = s.base = static_cast<char*>(s.own->base());
    s.sync_size = s.size = heap_bytes;

    // Exchange 1: host name, heap segment, heap size, how many PEs the launcher says are local,
    // and whether this PE wants everything over the network.
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    char* static_base = nullptr;
    std::size_t static_bytes = 0;
    if (!(env::static_symmetric() && find_static_segment(&static_base, &static_bytes))) static_bytes = 0;
    const Blob affinity = affinity_blob();
    std::vector<Blob> masks(s.npes);
    Blob mine = BlobWriter()
                    .str(host)
                    .str(s.own->name())
                    .u64(heap_bytes)
                    .u64(s.boot->local_ranks().size())
                    .u64(remote == "ucx")
                    .str(env::heap())
                    .u64(static_bytes)
                    .bytes(affinity.data(), affinity.size())
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
        std::string heap_mode = rd.str();
        if (rd.u64() != static_bytes) static_bytes = 0;  // not the same executable everywhere
        masks[r] = rd.bytes();
        if (!rd.at_end()) fatal("shmem_init", "malformed bootstrap data from PE %d", r);
        if (heap_mode != env::heap())
            fatal("shmem_init", "PE %d has KISHMEM_HEAP=%s, this PE %s: set it alike on every PE", r, heap_mode.c_str(),
                  env::heap().c_str());
        if (size != heap_bytes)
            fatal("shmem_init", "PE %d has a %llu-byte symmetric heap, this PE %zu: set SHMEM_SYMMETRIC_SIZE alike on every PE",
                  r, static_cast<unsigned long long>(size), heap_bytes);
        any_remote_ucx |= want_ucx != 0;
        if (nlocal ? nlocal != static_cast<uint64_t>(s.npes) : hosts[r] != hosts[0]) all_one_host = false;
    }
    s.local = find_local(*s.boot, hosts);
    const bool need_ucx = s.npes > 1 && (any_remote_ucx || !all_one_host);
    const long nchan = env::ucx_channels();
    if (need_ucx && (nchan < 1 || nchan > 64)) fatal("shmem_init", "KISHMEM_UCX_CHANNELS=%ld: expected 1 to 64", nchan);

    // Map every same-host peer's heap (through UCX when it allocated the heaps); once all have
    // mapped, the names go.
    std::vector<char*> bases(s.npes, nullptr);
    int nlocal = 0;
    for (int r = 0; r < s.npes; ++r) nlocal += s.local[r];
    if (!(need_ucx && open_ucx_heap(heap_bytes, static_cast<int>(nchan), &bases))) {
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
    }
    s.shm = std::make_unique<ShmTransport>(bases);

    // Route table: the one decision of "which path reaches pe".
    s.route.assign(s.npes, s.shm.get());
    s.route_sync = s.route;
    s.transports = {s.shm.get()};
    open_device_heap(heap_bytes, all_one_host && !any_remote_ucx);
    if (need_ucx) {
#if KISHMEM_HAVE_UCX
        std::vector<bool> want(s.npes, false);
        for (int r = 0; r < s.npes; ++r) want[r] = r != s.pe && (!s.local[r] || any_remote_ucx);
        if (!s.ucx) {  // UCX registers the heap this PE created (open_ucx_heap did not apply)
            s.ucx = std::make_unique<UcxTransport>();
            Blob ucx_blob;
            check_status(s.ucx->open(s.thread_level == 3, static_cast<int>(nchan), s.sync_base, s.sync_size, &ucx_blob),
                         "shmem_init", s.pe);
            std::vector<Blob> ucx_all;
            check_status(s.boot->allgather(ucx_blob, &ucx_all, nullptr), "shmem_init", s.pe);
            check_status(s.ucx->connect(ucx_all, want), "shmem_init", s.pe);
        }
        // The runtime's own barrier and scratch traffic stays on shared memory for same-host
        // peers even when KISHMEM_REMOTE=ucx sends their data through UCX: every barrier_all
        // quiets the data first, so the order between the two holds.
        for (int r = 0; r < s.npes; ++r) {
            if (!want[r]) continue;
            s.route[r] = s.ucx.get();
            if (!s.local[r]) s.route_sync[r] = s.ucx.get();
        }
        s.transports.push_back(s.ucx.get());
        s.needs_progress = true;
#else
        fatal("shmem_init", "PEs on several hosts (or KISHMEM_REMOTE=ucx) need UCX, and this library was built without it");
#endif
    }

    // Global and static variables: only when every PE runs the same executable layout (checked in
    // exchange 1 above).
    if (static_bytes) open_statics(static_base, static_bytes, all_one_host, any_remote_ucx);

    std::string y = env::yield();
    bool yy = false;
    if (y == "auto") s.yield = oversubscribed(masks, s.local);
    else if (env::parse_bool(y.c_str(), &yy)) s.yield = yy;
    else fatal("shmem_init", "KISHMEM_YIELD='%s': expected auto, 1 or 0", y.c_str());

    // Channels a context can own: the most any transport in use keeps apart (a transport with
    // fewer maps channel c to c % its count).
    s.nchan = 1;
    for (Transport* t : s.transports) s.nchan = std::max(s.nchan, std::min(t->channels(), 64));
    s.alloc = std::make_unique<HeapAllocator>(s.device_heap ? device::kDevReserved : kReserved, s.size);
    std::memset(s.sync_base, 0, kReserved);
    teams_init();
    s.p2p.assign(s.npes, nullptr);
    for (int r = 0; r < s.npes; ++r)
        if (s.route[r] == s.shm.get()) s.p2p[r] = s.shm->base(r);
    g_hot.my_pe = s.pe;
    g_hot.n_pes = s.npes;
    g_hot.base = s.base;
    g_hot.size = s.size;
    g_hot.p2p = s.p2p.data();
    g_hot.device_heap = s.device_heap;
    g_hot.static_base = s.static_base;
    g_hot.static_size = s.static_size;
    s.initialized = g_hot.initialized = true;
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
#if KISHMEM_HAVE_CUDA
    ibgda::drain_device_qps();  // what kernels posted lands while every target heap still exists
    proxy::drain_device_proxy();
#endif
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
    ibgda::close_device_qps();
    proxy::close_device_proxy();
    s.cuda_ipc.reset();
    s.dheap.reset();
#endif
    s.peer_segments.clear();
    s.alloc.reset();
    s.boot->finalize();
    teams_fini();
    s.initialized = g_hot.initialized = false;
    s.finalized = true;
}

Hot g_hot;

bool finalized() { return state().finalized; }
int thread_level() { return state().thread_level; }
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
