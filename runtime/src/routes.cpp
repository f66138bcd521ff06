#include "routes.h"

namespace kishmem::routes {

const char* name(Path p) {
    switch (p) {
        case Path::load_store: return "load/store";
        case Path::cuda_ipc: return "CUDA IPC";
        case Path::ucx: return "UCX";
    }
    return "?";
}

const char* name(DeviceBackendKind k) {
    switch (k) {
        case DeviceBackendKind::none: return "none";
        case DeviceBackendKind::ibgda: return "ibgda";
        case DeviceBackendKind::proxy: return "proxy";
    }
    return "?";
}

Setup plan_setup(const std::vector<bool>& local, bool all_one_host, const Config& cfg) {
    const int npes = static_cast<int>(local.size());
    const bool ucx_all = cfg.remote == Remote::ucx;  // every peer through UCX, same-host ones too
    int nlocal = 0;
    for (bool l : local) nlocal += l;
    Setup s;
    s.need_ucx = npes > 1 && (ucx_all || !all_one_host);
    s.try_device_heap = cfg.heap != HeapMode::host;
    s.device_heap_possible = all_one_host && !ucx_all;
    s.share_statics = nlocal > 1 && !ucx_all;
    return s;
}

Routes build_routes(const Facts& f, const Config& cfg, const Setup& setup) {
    const int npes = static_cast<int>(f.local.size());
    const bool ucx_all = cfg.remote == Remote::ucx;
    Routes r;
    r.heap.resize(npes);
    r.sync.resize(npes);
    r.statics.resize(npes);
    r.p2p.resize(npes);
    for (int pe = 0; pe < npes; ++pe) {
        const bool self = pe == f.me, local = f.local[pe];
        // The user heap: GPU heaps through CUDA IPC (every PE is on this host then); host heaps
        // by load/store on this host unless every peer goes through UCX.
        r.heap[pe] = f.device_heap ? Path::cuda_ipc : (self || (local && !ucx_all)) ? Path::load_store : Path::ucx;
        // The runtime's barrier and scratch traffic stays on shared memory for same-host peers
        // even when KISHMEM_REMOTE=ucx sends their data through UCX: every barrier_all quiets
        // the data first, so the order between the two holds.
        r.sync[pe] = local ? Path::load_store : Path::ucx;
        r.statics[pe] = (self || (local && setup.share_statics)) ? Path::load_store : Path::ucx;
        r.p2p[pe] = r.heap[pe] == Path::load_store;
        r.ucx_heap |= r.heap[pe] == Path::ucx || r.sync[pe] == Path::ucx;
        r.ucx_statics |= r.statics[pe] == Path::ucx;
    }
    if (f.device_heap) {
        // Kernels load/store every same-GPU-host heap, unless KISHMEM_REMOTE sends other PEs
        // through a device backend (to exercise it where no NIC is needed).
        DevicePath other = DevicePath::load_store;
        if (cfg.remote == Remote::ibgda) other = DevicePath::ibgda, r.backend = DeviceBackendKind::ibgda;
        if (cfg.remote == Remote::proxy) other = DevicePath::proxy, r.backend = DeviceBackendKind::proxy;
        r.device.assign(npes, other);
        r.device[f.me] = DevicePath::load_store;
    }
    return r;
}

}  // namespace kishmem::routes
