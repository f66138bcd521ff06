#include "routes.h"

#include <map>

namespace kishmem::routes {

const char* name(Path p) {
    switch (p) {
        case Path::load_store: return "load/store";
        case Path::cuda_ipc: return "CUDA IPC";
        case Path::ucx: return "UCX";
        case Path::ucx_am: return "UCX active messages";
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

Hosts find_hosts(int me, const std::vector<std::string>& name, const std::vector<std::vector<int>>& launcher) {
    const int n = static_cast<int>(name.size());
    std::vector<std::vector<bool>> says(n);  // says[a][b]: a's launcher puts b on a's host (empty: no word)
    for (int a = 0; a < n; ++a) {
        if (launcher[a].empty()) continue;
        says[a].assign(n, false);
        for (int b : launcher[a])
            if (b >= 0 && b < n) says[a][b] = true;
        says[a][a] = true;
    }
    const auto puts = [&](int a, int b) { return !says[a].empty() && says[a][b]; };
    const auto denies = [&](int a, int b) { return !says[a].empty() && !says[a][b]; };
    const auto same = [&](int a, int b) { return a == b || (name[a] == name[b] && !denies(a, b) && !denies(b, a)); };
    Hosts h;
    const auto pe = [](int p) { return "PE " + std::to_string(p); };
    for (int a = 0; a < n && h.disagreement.empty(); ++a)
        for (int b = a + 1; b < n && h.disagreement.empty(); ++b) {
            const int by = puts(a, b) ? a : b;
            if (name[a] != name[b] && (puts(a, b) || puts(b, a)))
                h.disagreement = "the launcher of " + pe(by) + " puts PEs " + std::to_string(a) + " and " +
                                 std::to_string(b) + " on one host, but their host names differ (" + name[a] + ", " +
                                 name[b] + ")";
            else if (name[a] == name[b] && (denies(a, b) || denies(b, a)))
                h.disagreement = "PEs " + std::to_string(a) + " and " + std::to_string(b) + " have one host name (" +
                                 name[a] + "), but the launcher of " + pe(denies(a, b) ? a : b) + " puts " +
                                 pe(denies(a, b) ? b : a) + " on another host";
        }
    // The groups: within each host name, the first PE each one shares a host with; a partition
    // only if that relation is one (else the names alone decide, as every PE sees alike).
    std::map<std::string, std::vector<int>> by_name;
    for (int a = 0; a < n; ++a) by_name[name[a]].push_back(a);
    std::vector<int> rep(n);
    bool partition = true;
    for (auto& [host, pes] : by_name) {
        for (int a : pes)
            for (int b : pes)
                if (same(a, b)) {
                    rep[a] = b;
                    break;
                }
        for (int a : pes)
            for (int b : pes) partition &= same(a, b) == (rep[a] == rep[b]);
    }
    if (!partition) {
        for (auto& [host, pes] : by_name)
            for (int a : pes) rep[a] = pes.front();
        h.disagreement += std::string(h.disagreement.empty() ? "" : "; ") + "the launcher's host groups do not divide the PEs, the host names alone decide";
    }
    h.local.resize(n);
    for (int b = 0; b < n; ++b) {
        h.local[b] = rep[b] == rep[me];
        h.all_one_host &= rep[b] == rep[0];
    }
    return h;
}

std::string pe_list(const std::vector<bool>& set) {
    std::string out;
    const int n = static_cast<int>(set.size());
    for (int a = 0; a < n; ++a) {
        if (!set[a]) continue;
        int b = a;
        while (b + 1 < n && set[b + 1]) ++b;
        out += (out.empty() ? "" : ", ") + std::to_string(a) + (b > a ? "-" + std::to_string(b) : "");
        a = b;
    }
    return out.empty() ? "none" : out;
}

Setup plan_setup(const std::vector<bool>& local, bool all_one_host, const Config& cfg) {
    const int npes = static_cast<int>(local.size());
    const bool ucx_all = cfg.remote == Remote::ucx;  // every peer through UCX, same-host ones too
    int nlocal = 0;
    for (bool l : local) nlocal += l;
    Setup s;
    s.need_ucx = npes > 1 && (ucx_all || !all_one_host);
    s.try_device_heap = cfg.heap != HeapMode::host;
    // A GPU heap per host group: same-host PEs map each other's through CUDA IPC, PEs on other
    // hosts are reached by UCX active messages (their service writes their GPU heap).
    s.device_heap_possible = !ucx_all;
    s.device_heap_off_host = !all_one_host && !ucx_all;
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
        // The user heap: GPU heaps through CUDA IPC on this host and UCX active messages on
        // others; host heaps by load/store on this host unless every peer goes through UCX.
        if (f.device_heap) r.heap[pe] = local ? Path::cuda_ipc : Path::ucx_am;
        else r.heap[pe] = (self || (local && !ucx_all)) ? Path::load_store : Path::ucx;
        // The runtime's barrier and scratch traffic stays on shared memory for same-host peers
        // even when KISHMEM_REMOTE=ucx sends their data through UCX: every barrier_all quiets
        // the data first, so the order between the two holds.
        r.sync[pe] = local ? Path::load_store : Path::ucx;
        r.statics[pe] = (self || (local && setup.share_statics)) ? Path::load_store : Path::ucx;
        r.p2p[pe] = r.heap[pe] == Path::load_store;
        r.ucx_heap |= r.heap[pe] == Path::ucx || r.sync[pe] == Path::ucx;
        r.ucx_statics |= r.statics[pe] == Path::ucx;
        r.ucx_am |= r.heap[pe] == Path::ucx_am;
    }
    if (f.device_heap) {
        // Kernels load/store every same-host heap, unless KISHMEM_REMOTE sends other PEs
        // through a device backend (to exercise it where no NIC is needed); PEs on other hosts
        // always go through one: the CPU proxy with KISHMEM_REMOTE=proxy, IBGDA otherwise.
        const DevicePath backend = cfg.remote == Remote::proxy ? DevicePath::proxy : DevicePath::ibgda;
        const bool forced = cfg.remote == Remote::ibgda || cfg.remote == Remote::proxy;
        r.device.resize(npes);
        for (int pe = 0; pe < npes; ++pe) {
            r.device[pe] = pe == f.me || (f.local[pe] && !forced) ? DevicePath::load_store : backend;
            if (r.device[pe] != DevicePath::load_store)
                r.backend = backend == DevicePath::proxy ? DeviceBackendKind::proxy : DeviceBackendKind::ibgda;
        }
    }
    return r;
}

std::vector<std::string> explain(const Facts& f, const Config& cfg, const Setup& setup, const Routes& r) {
    const int npes = static_cast<int>(f.local.size());
    int nlocal = 0;
    for (bool l : f.local) nlocal += l;
    const bool off_host = nlocal < npes;
    std::vector<bool> other(npes);
    for (int pe = 0; pe < npes; ++pe) other[pe] = !f.local[pe];
    const std::string here = "PE" + std::string(nlocal > 1 ? "s " : " ") + pe_list(f.local);
    const std::string there = "PEs on other hosts (" + pe_list(other) + ")";
    std::vector<std::string> out;
    std::string heap;
    if (f.device_heap) {
        heap = "heap: GPU memory on this host group (" + here + " here, mapped through CUDA IPC)";
        if (off_host)
            heap += "; PEs on other hosts through UCX active messages, their service thread writes their GPU heap "
                    "(this UCX registers host memory only)";
    } else if (!setup.try_device_heap) {
        heap = "heap: host memory (KISHMEM_HEAP=host)";
    } else if (!setup.device_heap_possible) {
        heap = "heap: host memory (KISHMEM_REMOTE=ucx sends every PE through UCX, which cannot reach GPU memory here)";
    } else {
        heap = "heap: host memory (no GPU heap: " + (f.no_device_heap.empty() ? std::string("none tried") : f.no_device_heap) + ")";
    }
    out.push_back(heap);
    std::string host = "host calls: same-host PEs (" + pe_list(f.local) + ") by ";
    host += f.device_heap ? "CUDA IPC copies and atomics" : cfg.remote == Remote::ucx ? "UCX (KISHMEM_REMOTE=ucx)" : "load/store";
    if (off_host) host += ", " + there + " through " + (r.ucx_am ? "UCX active messages" : "UCX");
    out.push_back(host);
    if (f.device_heap) {
        const char* nic = r.backend == DeviceBackendKind::proxy ? "the CPU proxy over " : "the software NIC over ";
        std::string dev = "kernels: same-host PEs (" + pe_list(f.local) + ") ";
        const bool forced = cfg.remote == Remote::ibgda || cfg.remote == Remote::proxy;
        dev += forced && nlocal > 1 ? std::string("through ") + (r.backend == DeviceBackendKind::proxy ? "the CPU proxy" : "the software NIC") +
                                          " (KISHMEM_REMOTE=" + name(r.backend) + ")"
                                    : "by load/store";
        if (off_host)
            dev += ", " + there + " through " + nic +
                   (r.ucx_am ? "UCX (no NIC here; UCX has no CUDA support: the target's service writes its GPU heap)"
                             : "UCX") +
                   " (KISHMEM_REMOTE=" + (cfg.remote == Remote::auto_ ? "auto: IBGDA" : name(r.backend)) + ")";
        out.push_back(dev);
    }
    return out;
}

}  // namespace kishmem::routes
