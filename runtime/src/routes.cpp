#include "routes.h"

#include <sys/stat.h>

#include <fstream>
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

namespace {

// "0-1 | 2-3": a partition of the PEs, each group as pe_list writes it, in order of first PE.
std::string partition_text(const std::vector<std::vector<bool>>& groups) {
    std::string out;
    for (const auto& g : groups) out += (out.empty() ? "" : " | ") + pe_list(g);
    return out;
}

}  // namespace

Hosts find_hosts(int me, const std::vector<std::string>& name, const std::vector<std::string>& machine,
                 const std::vector<std::vector<int>>& launcher) {
    const int n = static_cast<int>(name.size());
    const auto key = [&](int a) { return name[a] + '\n' + (a < static_cast<int>(machine.size()) ? machine[a] : ""); };
    std::map<std::string, int> first;  // key -> its first PE
    std::vector<int> rep(n);
    for (int a = 0; a < n; ++a) rep[a] = first.emplace(key(a), a).first->second;
    Hosts h;
    h.local.resize(n);
    for (int b = 0; b < n; ++b) {
        h.local[b] = rep[b] == rep[me];
        h.all_one_host &= rep[b] == rep[0];
    }
    // The launcher's word against the groups: each PE's launcher, where it speaks, should name
    // exactly the PEs of its group.  Reported once, with both views.
    std::vector<std::vector<bool>> ours, theirs;
    bool differs = false;
    for (int a = 0; a < n; ++a) {
        if (rep[a] == a) {
            ours.emplace_back(n, false);
            for (int b = 0; b < n; ++b) ours.back()[b] = rep[b] == a;
        }
        if (launcher[a].empty()) continue;
        std::vector<bool> says(n, false);
        says[a] = true;
        for (int b : launcher[a])
            if (b >= 0 && b < n) says[b] = true;
        for (int b = 0; b < n; ++b) differs |= says[b] != (rep[b] == rep[a]);
        bool seen = false;
        for (const auto& t : theirs) seen |= t == says;
        if (!seen) theirs.push_back(says);
    }
    if (differs)
        h.disagreement = "the launcher's host groups (" + partition_text(theirs) + ") differ from the PEs' host names and "
                         "machines (" + partition_text(ours) + "): the host names and machines decide";
    return h;
}

std::string machine_identity() {
    std::string boot;
    std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
    struct stat st {};
    const unsigned long long shm = stat("/dev/shm", &st) == 0 ? static_cast<unsigned long long>(st.st_dev) : 0;
    return boot + "/" + std::to_string(shm);
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
