// See init_heaps.h.  The symmetric regions of shmem_init and the device paths.
#include "init_heaps.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "cuda_connections.h"
#include "heap/static_segment.h"
#include "kishmem/device/state.h"
#include "kishmem/env.h"
#include "state.h"
#if KISHMEM_HAVE_UCX
#include "transport/ucx/config.h"
#endif
#if KISHMEM_HAVE_CUDA
#include "device_backend/backend.h"
#include "transport/ibgda/ipc_heap_access.h"
#endif

namespace kishmem {

void publish_device_state(const device::State& st);

#if KISHMEM_HAVE_UCX
// Every endpoint connected now, in one order for all PEs (UcxTransport::wire_up). Collective.
static void wire_up(UcxTransport& ucx) {
    State& s = state();
    check_status(ucx.wire_up(s.pe, [&] { check_status(s.boot->barrier([&] { ucx.progress(); }), "shmem_init", s.pe); }),
                 "shmem_init", s.pe);
}
#endif

// PEs reached through UCX (KISHMEM_REMOTE=ucx, or PEs on other hosts): UCX registers this PE's
// host segment, kishmem's own memfd (heap/segment.h) that same-host peers have mapped already,
// and connects to every PE the routes send through UCX.  UCX allocates nothing for the heap.
// Where UCX has a shared-memory transport (UCX_TLS), it reaches same-host heaps through
// kishmem's mappings of them (load/store, CPU atomics): memory UCX only registers it would reach
// by a system call per operation (cma) and atomics emulated at a target that must be scheduled.
#if KISHMEM_HAVE_UCX
// Whether the UCX transports (the heap's and the global variables') get a library thread that
// progresses them for peers (KISHMEM_UCX_PROGRESS_THREAD; auto: with a GPU heap, whose PEs wait
// inside CUDA calls, where no routine progresses UCX).
static bool ucx_progress_thread() {
    const env::AutoBool pt = env::ucx_progress_thread();
    return pt == env::AutoBool::on || (pt == env::AutoBool::auto_ && state().device_heap);
}

void open_ucx_registered(int nchan) {
    State& s = state();
    std::vector<bool> want(s.npes, false);
    for (int r = 0; r < s.npes; ++r)
        want[r] = s.routes.heap[r] == routes::Path::ucx || s.routes.sync[r] == routes::Path::ucx;
    s.ucx = std::make_unique<UcxTransport>();
    const bool progress_thread = ucx_progress_thread();
    Blob blob;
    check_status(s.ucx->open(s.thread_level == kThreadMultiple || progress_thread, nchan, s.sync_base, s.sync_size, &blob),
                 "shmem_init", s.pe);
    std::vector<Blob> all;
    check_status(s.boot->allgather(blob, &all, nullptr), "shmem_init", s.pe);
    check_status(s.ucx->connect(all, want), "shmem_init", s.pe);
    wire_up(*s.ucx);
    if (progress_thread) s.ucx->start_progress_thread();
    if (ucx_config::maps_same_host(std::getenv("UCX_TLS"))) {
        std::vector<char*> mapped(s.npes, nullptr);
        for (int r = 0; r < s.npes; ++r)
            if (want[r] && s.local[r]) mapped[r] = s.shm->base(r);
        s.ucx->map_peers(std::move(mapped));
    }
    debug("UCX registers the heap; same-host heaps %s", ucx_config::maps_same_host(std::getenv("UCX_TLS"))
                                                            ? "by load/store through kishmem's mappings"
                                                            : "through UCX's own transports (UCX_TLS has no shared memory)");
}
#endif

// The executable's writable segment as a second symmetric region.  Same-host peers share it:
// each PE moves its segment into a shared-memory object at the same address and maps its
// same-host peers' objects, so their variables are reached by load/store and CPU atomics like
// the heap.  PEs on other hosts (every peer with KISHMEM_REMOTE=ucx) go through a UCX
// transport registered over the segment.  Collective: every PE calls it, also alone (1 PE).
void open_statics(char* base, std::size_t bytes, const routes::Routes& routes, bool share) {
    State& s = state();
    std::vector<char*> bases(s.npes, nullptr);
    bases[s.pe] = base;
    if (s.npes > 1) {
        // Held by the state at once, so that an error path (fatal) finds it to unlink.
        s.static_own = std::make_unique<Segment>();
        Segment* own = s.static_own.get();
        if (share && own->create_over(base, bytes) != Status::ok)
            fatal("shmem_init", "cannot share the %zu bytes of global and static variables at %p with same-host PEs; "
                  "KISHMEM_STATIC_SYMMETRIC=0 turns symmetric global variables off", bytes, static_cast<void*>(base));
        std::vector<Blob> all;
        check_status(s.boot->allgather(BlobWriter().str(share ? own->name() : std::string()).take(), &all, nullptr),
                     "shmem_init", s.pe);
        s.static_peers.resize(s.npes);
        for (int r = 0; r < s.npes && share; ++r) {
            if (r == s.pe || routes.statics[r] != routes::Path::load_store) continue;
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
    }
    s.static_shm = std::make_unique<ShmTransport>(bases);
    s.route_static.assign(s.npes, s.static_shm.get());
    if (routes.ucx_statics) {  // the same on every PE (test_routes checks it)
#if KISHMEM_HAVE_UCX
        auto ucx = std::make_unique<UcxTransport>();
        const bool progress_thread = ucx_progress_thread();  // (as the heap's: peers reach globals too)
        Blob blob;
        if (ucx->open(s.thread_level == kThreadMultiple || progress_thread, 1, base, bytes, &blob) != Status::ok)
            fatal("shmem_init", "global and static variables: UCX could not register the %zu bytes at %p; "
                  "KISHMEM_STATIC_SYMMETRIC=0 turns symmetric global variables off", bytes, static_cast<void*>(base));
        std::vector<Blob> all;
        check_status(s.boot->allgather(blob, &all, nullptr), "shmem_init", s.pe);
        std::vector<bool> want(s.npes, false);
        for (int r = 0; r < s.npes; ++r) want[r] = routes.statics[r] == routes::Path::ucx;
        check_status(ucx->connect(all, want), "shmem_init", s.pe);
        if (progress_thread) ucx->start_progress_thread();
        s.static_ucx = std::move(ucx);
        for (int r = 0; r < s.npes; ++r)
            if (want[r]) s.route_static[r] = s.static_ucx.get();
        s.transports.push_back(s.static_ucx.get());
#else
        fatal("shmem_init", "global and static variables of PEs on other hosts need UCX, and this library was built "
              "without it; KISHMEM_STATIC_SYMMETRIC=0 turns symmetric global variables off");
#endif
    }
    s.static_base = base;
    s.static_size = bytes;
    static_objects().load(base, bytes);
    debug("global and static variables symmetric: %zu bytes at %p (%s)", bytes, static_cast<void*>(base),
          share ? "shared with same-host PEs" : "this PE's own by load/store");
}

#if KISHMEM_HAVE_CUDA && KISHMEM_HAVE_UCX
// GPU heaps of PEs on other hosts (routes::Path::ucx_am): the active-message service applies
// peers' requests to this PE's GPU heap through its CUDA IPC heap access, and host calls reach
// theirs through a client of it.  Collective.
static void open_remote_gpu_heaps(const DeviceHeapMap& map) {
    State& s = state();
    std::string why;
    std::vector<char*> own(s.npes, nullptr);
    own[s.pe] = s.dheap->base();
    Blob blob;
    Status st = ibgda::make_ipc_heap_access(own, s.dheap->base(), s.size, s.dheap->device(), &s.am_local, &why);
    if (st == Status::ok) st = UcxAm::open(s.pe, s.npes, s.size, s.am_local.get(), &s.am, &blob, &why);
    std::vector<Blob> all;
    check_status(s.boot->allgather(st == Status::ok ? blob : Blob{}, &all, nullptr), "shmem_init", s.pe);
    for (int r = 0; r < s.npes && st == Status::ok; ++r)
        if (all[r].empty()) st = Status::unreachable, why = "PE " + std::to_string(r) + " could not open its service";
    std::vector<bool> want(s.npes);
    for (int r = 0; r < s.npes; ++r) want[r] = !map.bases[r];
    // (every PE gets here: a failure of open above ends every PE below, after this barrier)
    if (st == Status::ok)
        st = s.am->connect(all, want, &why, [&] {
            check_status(s.boot->barrier([&] { s.am->progress(); }), "shmem_init", s.pe);
        });
    if (st != Status::ok)
        fatal("shmem_init", "GPU heaps on other hosts: UCX active messages: %s; KISHMEM_HEAP=host keeps the heap in host "
              "memory", why.c_str());
    ibgda::LocalCopy copy = ibgda::make_cuda_copy(s.dheap->device(), &why);
    if (!copy) fatal("shmem_init", "GPU heaps on other hosts: %s", why.c_str());
    s.am_transport = std::make_unique<HeapAccessTransport>(s.am->client(std::move(copy)));
    s.am->start();
    debug("GPU heaps of PEs on other hosts reached through UCX active messages");
}
#endif

bool open_device_heap(std::size_t heap_bytes, const routes::Setup& setup, const routes::Config& cfg,
                      DeviceHeapMap* map, std::string* why_not) {
    if (!setup.try_device_heap) return false;
    const bool required = cfg.heap == routes::HeapMode::device;
#if KISHMEM_HAVE_CUDA
    State& s = state();
    int local_rank = 0;
    for (int r = 0; r < s.pe; ++r) local_rank += s.local[r];
    std::string why;
    auto dh = std::make_unique<DeviceHeap>();
    bool ok = setup.device_heap_possible;
    if (!ok) why = "KISHMEM_REMOTE=ucx sends every PE through UCX, which cannot reach GPU memory here";
#if !KISHMEM_HAVE_UCX
    if (ok && setup.device_heap_off_host)
        ok = false, why = "PEs on other hosts need UCX to reach a GPU heap, and this library was built without it";
#endif
    if (ok) {
        const Status st = dh->open(local_rank, heap_bytes, &why);
        ok = st == Status::ok;
        // A CUDA context that ran out of memory at creation: under MPS the work queues asked for
        // each process (cuda_connections.cpp) come out of one pool for the GPU's clients.
        if (const long q = cuda_connections_asked(); st == Status::no_memory && q > 0 && why.rfind("cudaSetDevice", 0) == 0)
            why += " (kishmem asked CUDA for " + std::to_string(q) + " work queues per process: under MPS the PEs of a "
                   "GPU share one pool; set KISHMEM_CUDA_CONNECTIONS lower, or 0 for CUDA's choice)";
    }
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
        if (required) fatal("shmem_init", "KISHMEM_HEAP=device but PE %d has no usable device heap: %s", r, their.c_str());
        debug("device heap not used: PE %d: %s", r, their.c_str());
        *why_not = "PE " + std::to_string(r) + ": " + their;
        return false;
    }
    // The PEs whose kernels share this PE's GPU, wherever their host group (simulated hosts
    // share one GPU between groups): a waiting kernel's grid leaves them room
    // (shmemx_collective_launch_query_gridsize).
    s.gpu_pes = 0;
    for (int r = 0; r < s.npes; ++r) {
        BlobReader rd(all[r]);
        rd.u64();
        s.gpu_pes += r == s.pe || dh->same_gpu(rd.bytes());
    }
    std::vector<char*> bases(s.npes, nullptr);
    bool sys_scope = false;
    std::string map_failure;
    for (int r = 0; r < s.npes && map_failure.empty(); ++r) {
        BlobReader rd(all[r]);
        rd.u64();
        Blob theirs = rd.bytes();
        if (r == s.pe) {
            bases[r] = dh->base();
            continue;
        }
        if (!s.local[r]) continue;  // on another host: UCX active messages (open_remote_gpu_heaps)
        bool same_gpu = false;
        if (dh->map_peer(theirs, &bases[r], &same_gpu, &why) != Status::ok)
            map_failure = "cannot map the device heap of PE " + std::to_string(r) + ": " + why;
        if (!same_gpu) sys_scope = true;
    }
    // Every PE must have mapped every peer; otherwise (auto) all fall back to host heaps.
    std::vector<Blob> mapped;
    check_status(s.boot->allgather(BlobWriter().str(map_failure).take(), &mapped, nullptr), "shmem_init", s.pe);
    for (int r = 0; r < s.npes; ++r) {
        std::string theirs = BlobReader(mapped[r]).str();
        if (theirs.empty()) continue;
        if (required)
            fatal("shmem_init", "KISHMEM_HEAP=device but PE %d %s (CUDA IPC between these GPUs is not possible)", r,
                  theirs.c_str());
        warn("shmem_init", "GPU heaps not used: PE %d %s (no CUDA IPC between these GPUs); the symmetric heap is in "
                           "host memory instead", r, theirs.c_str());
        *why_not = "PE " + std::to_string(r) + " " + theirs + " (no CUDA IPC between these GPUs)";
        return false;
    }
    if (s.npes > device::kMaxPes)
        fatal("shmem_init", "device heaps support up to %d PEs so far (this job has %d); set KISHMEM_HEAP=host",
              device::kMaxPes, s.npes);
    check_status(device_set(dh->base(), 0, device::kDevReserved), "shmem_init", s.pe);
    s.cuda_ipc = std::make_unique<CudaIpcTransport>(bases, dh->device());
    s.base = dh->base();
    s.size = heap_bytes;
    s.device_heap = true;
    s.dheap = std::move(dh);
    map->bases = bases;
    map->sys_scope = sys_scope;
#if KISHMEM_HAVE_UCX
    if (setup.device_heap_off_host) open_remote_gpu_heaps(*map);
#endif
    debug("symmetric heap in GPU %d memory (%zu bytes)", s.dheap->device(), heap_bytes);
    return true;
#else
    (void)heap_bytes, (void)map;
    *why_not = "this library was built without CUDA";
    if (required) fatal("shmem_init", "KISHMEM_HEAP=device but this library was built without CUDA");
    return false;
#endif
}

#if KISHMEM_HAVE_CUDA
// Kernels here may wait for a host thread of kishmem (the software NIC, the CPU proxy, the
// active-message service applying other hosts' operations to this GPU heap), and that thread
// makes CUDA calls. Two ways CUDA can then stop it for good, said once by PE 0 where the choice
// was left to CUDA or set against it:
// - lazy loading (CUDA's default since 12.2): the first launch of a kernel waits, holding the
//   context's lock, until every kernel of the process has ended. The library loads its own
//   kernels at init; the application's are its own to load (or CUDA_MODULE_LOADING=EAGER).
// - few hardware work queues: streams beyond CUDA_DEVICE_MAX_CONNECTIONS share queues, and the
//   thread's copy or atomic queued behind the waiting kernel never starts (cuda_connections.cpp;
//   KISHMEM_CUDA_CONNECTIONS asks for more); a setting below CUDA's default of 8 is named.
static void warn_host_thread_hazards(bool backend_thread, bool am_thread) {
    if (state().pe != 0 || !(backend_thread || am_thread)) return;
    const char* who = backend_thread ? "the software NIC or the CPU proxy" : "the active-message service";
    const char* mode = std::getenv("CUDA_MODULE_LOADING");
    if (!mode || !*mode || std::strcmp(mode, "DEFAULT") == 0)
        warn("shmem_init", "kernels here wait for a host thread of kishmem (%s) that makes CUDA calls, and CUDA loads "
             "kernels lazily: the first launch of an application kernel while another kernel waits for that thread "
             "deadlocks; set CUDA_MODULE_LOADING=EAGER, or launch (or cudaFuncGetAttributes) each kernel once before "
             "kernels communicate", who);
    const char* conns = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    if (conns && std::atoi(conns) > 0 && std::atoi(conns) < 8)
        warn("shmem_init", "kernels here wait for a host thread of kishmem (%s) that queues GPU work, and "
             "CUDA_DEVICE_MAX_CONNECTIONS=%s leaves few hardware queues: work of that thread queued behind a waiting "
             "kernel of a stream that shares its queue never runs (unset it, or set 8 or more)", who, conns);
}
#endif

void start_device_paths(const routes::Routes& routes, const DeviceHeapMap& map) {
#if KISHMEM_HAVE_CUDA
    State& s = state();
    device::State st{};
    st.my_pe = s.pe;
    st.ctx_default = &kishmem_ctx_default_obj;
    const WaitPolicy& waits = wait_policy();
    st.hang_warn_ns = waits.hang_warn > 0 ? static_cast<unsigned long long>(waits.hang_warn * 1e9) : 0;
    st.hang_abort_ns = waits.hang_abort > 0 ? static_cast<unsigned long long>(waits.hang_abort * 1e9) : 0;
    st.n_pes = s.npes;
    st.initialized = 1;
    st.heap_base = s.dheap->base();
    st.heap_size = s.size;
    st.sys_scope = map.sys_scope;
    // peer() in kernels loads/stores a PE whose base is set and hands the others to the backend.
    for (int r = 0; r < s.npes; ++r)
        st.peer_base[r] = routes.device[r] == routes::DevicePath::load_store ? map.bases[r] : nullptr;
    if (routes.backend != routes::DeviceBackendKind::none) {
        DeviceBackendArgs args;
        args.heap = s.dheap->base();
        args.heap_bytes = s.size;
        args.gpu = s.dheap->device();
        args.bases = map.bases;
        args.pe = s.pe;
        args.npes = s.npes;
        args.boot = s.boot.get();
#if KISHMEM_HAVE_UCX
        args.am = s.am.get();
#endif
        std::string why;
        s.device_backend = make_device_backend(routes.backend);
        if (!s.device_backend || s.device_backend->open(args, &st, &why) != Status::ok)
            fatal("shmem_init", "KISHMEM_REMOTE=%s: %s", routes::name(routes.backend),
                  s.device_backend ? why.c_str() : "no such device backend in this build");
    }
    publish_device_state(st);  // also loads the library's kernels (kishmem_register_kernels)
    bool has_am = false;  // UCX active messages carry some remote operations (only with UCX)
#if KISHMEM_HAVE_UCX
    has_am = s.am != nullptr;
#endif
    warn_host_thread_hazards(routes.backend != routes::DeviceBackendKind::none, has_am);
#else
    (void)routes, (void)map;
#endif
}

}  // namespace kishmem
