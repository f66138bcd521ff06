// The route decision (runtime/src/routes.h) over every combination of KISHMEM_REMOTE,
// KISHMEM_HEAP, host layouts and GPU outcomes, for every PE of each job: each table checked
// against rules stated here independently of routes.cpp, the decisions every PE must take
// alike (whether UCX is opened, for the heap, for global variables and for GPU heaps on other
// hosts) checked to agree, and the report in words (explain) checked for its reasons.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "routes.h"

using namespace kishmem::routes;

namespace {

struct Job {
    std::string name;
    std::vector<int> host;  // host[pe]
};

// 1 to 5 PEs on one host, and several layouts over two and three hosts.
std::vector<Job> jobs() {
    std::vector<Job> j;
    for (int n = 1; n <= 5; ++n) j.push_back({std::to_string(n) + " PEs, one host", std::vector<int>(n, 0)});
    j.push_back({"2 hosts x 1", {0, 1}});
    j.push_back({"2 hosts x 2", {0, 0, 1, 1}});
    j.push_back({"2 hosts interleaved", {0, 1, 0, 1}});
    j.push_back({"3 hosts uneven", {0, 0, 0, 1, 2, 2}});
    return j;
}

const Remote kRemotes[] = {Remote::auto_, Remote::ucx, Remote::ibgda, Remote::proxy};
const HeapMode kHeaps[] = {HeapMode::auto_, HeapMode::device, HeapMode::host};

std::string label(const Job& j, Remote r, HeapMode h, bool gpus, int me) {
    return j.name + ", remote=" + std::to_string(static_cast<int>(r)) + ", heap=" + std::to_string(static_cast<int>(h)) +
           (gpus ? ", GPUs" : ", no GPUs") + ", PE " + std::to_string(me);
}

// The PEs a report line lists after `lead` ("0-1, 4" read back as "0,1,4"; "" when absent).
std::string spelled(const std::string& line, const std::string& lead) {
    const std::size_t at = line.find(lead);
    if (at == std::string::npos) return "";
    const std::string list = line.substr(at + lead.size(), line.find(')', at) - at - lead.size());
    std::string out;
    for (std::size_t i = 0; i < list.size();) {
        std::size_t used = 0;
        const int a = std::stoi(list.substr(i), &used);
        int b = a;
        i += used;
        if (i < list.size() && list[i] == '-') {
            b = std::stoi(list.substr(i + 1), &used);
            i += 1 + used;
        }
        for (int pe = a; pe <= b; ++pe) out += (out.empty() ? "" : ",") + std::to_string(pe);
        while (i < list.size() && (list[i] == ',' || list[i] == ' ')) ++i;
    }
    return out;
}

}  // namespace

TEST(Routes, EveryCombination) {
    int cases = 0;
    for (const Job& job : jobs()) {
        const int n = static_cast<int>(job.host.size());
        bool one_host = true;
        for (int h : job.host) one_host &= h == job.host[0];
        for (Remote remote : kRemotes)
            for (HeapMode heap : kHeaps)
                for (bool gpus : {false, true}) {
                    Config cfg{remote, heap};
                    int ucx_heap_votes = 0, ucx_statics_votes = 0, ucx_am_votes = 0;
                    for (int me = 0; me < n; ++me, ++cases) {
                        SCOPED_TRACE(label(job, remote, heap, gpus, me));
                        std::vector<bool> local(n);
                        for (int pe = 0; pe < n; ++pe) local[pe] = job.host[pe] == job.host[me];
                        const kishmem::routes::Setup setup = plan_setup(local, one_host, cfg);
                        // A GPU heap is tried unless KISHMEM_HEAP=host, and can work (one per host
                        // group) unless everybody is sent through UCX; PEs on other hosts are then
                        // reached by UCX active messages.
                        EXPECT_EQ(setup.try_device_heap, heap != HeapMode::host);
                        EXPECT_EQ(setup.device_heap_possible, remote != Remote::ucx);
                        EXPECT_EQ(setup.device_heap_off_host, !one_host && remote != Remote::ucx);
                        EXPECT_EQ(setup.need_ucx, n > 1 && (!one_host || remote == Remote::ucx));
                        Facts f;
                        f.me = me;
                        f.local = local;
                        f.device_heap = gpus && setup.try_device_heap && setup.device_heap_possible;
                        if (!f.device_heap && setup.try_device_heap && setup.device_heap_possible) f.no_device_heap = "no GPU";
                        const Routes r = build_routes(f, cfg, setup);
                        ASSERT_EQ(r.heap.size(), static_cast<size_t>(n));
                        ASSERT_EQ(r.sync.size(), static_cast<size_t>(n));
                        ASSERT_EQ(r.statics.size(), static_cast<size_t>(n));
                        ASSERT_EQ(r.p2p.size(), static_cast<size_t>(n));
                        bool any_ucx = false, any_am = false;
                        for (int pe = 0; pe < n; ++pe) {
                            SCOPED_TRACE("peer " + std::to_string(pe));
                            const bool self = pe == me, same = job.host[pe] == job.host[me];
                            Path want_heap = Path::ucx;
                            if (f.device_heap) want_heap = same ? Path::cuda_ipc : Path::ucx_am;
                            else if (self || (same && remote != Remote::ucx)) want_heap = Path::load_store;
                            any_am |= want_heap == Path::ucx_am;
                            EXPECT_EQ(r.heap[pe], want_heap);
                            // Runtime barrier traffic: shared memory on this host, whatever REMOTE says.
                            EXPECT_EQ(r.sync[pe], same ? Path::load_store : Path::ucx);
                            // Global variables: this PE's own, and same-host PEs' unless REMOTE=ucx.
                            EXPECT_EQ(r.statics[pe],
                                      self || (same && remote != Remote::ucx) ? Path::load_store : Path::ucx);
                            EXPECT_EQ(r.p2p[pe], want_heap == Path::load_store);
                            any_ucx |= r.heap[pe] == Path::ucx || r.sync[pe] == Path::ucx;
                        }
                        EXPECT_EQ(r.ucx_heap, any_ucx);
                        EXPECT_EQ(r.ucx_heap, setup.need_ucx);  // step 1 and step 2 agree
                        EXPECT_EQ(r.ucx_am, any_am);
                        EXPECT_EQ(r.ucx_am, f.device_heap && setup.device_heap_off_host);
                        ucx_am_votes += r.ucx_am;
                        // One line per decision, each with its reason.
                        const std::vector<std::string> why = explain(f, cfg, setup, r);
                        ASSERT_EQ(why.size(), f.device_heap ? 3u : 2u);
                        EXPECT_EQ(why[0].rfind(f.device_heap ? "heap: GPU memory on this host group" : "heap: host memory (", 0), 0u)
                            << why[0];
                        if (!f.device_heap && heap == HeapMode::host) EXPECT_NE(why[0].find("KISHMEM_HEAP=host"), std::string::npos);
                        if (!f.device_heap && heap != HeapMode::host && remote == Remote::ucx)
                            EXPECT_NE(why[0].find("KISHMEM_REMOTE=ucx"), std::string::npos) << why[0];
                        EXPECT_EQ(why[0].find("other hosts") != std::string::npos, any_am) << why[0];
                        // The host group by name: this PE's and the others'.
                        std::string here, there;
                        for (int pe = 0; pe < n; ++pe)
                            (job.host[pe] == job.host[me] ? here : there) += (job.host[pe] == job.host[me] ? here : there).empty() ? std::to_string(pe) : "," + std::to_string(pe);
                        EXPECT_EQ(spelled(why[1], "same-host PEs ("), here) << why[1];
                        if (!one_host) EXPECT_EQ(spelled(why[1], "PEs on other hosts ("), there) << why[1];
                        EXPECT_EQ(why[1].find("other hosts") != std::string::npos, !one_host) << why[1];
                        if (f.device_heap)
                            EXPECT_EQ(why[2].find(any_am ? "UCX has no CUDA support" : "other hosts") != std::string::npos,
                                      any_am) << why[2];
                        ucx_heap_votes += r.ucx_heap;
                        ucx_statics_votes += r.ucx_statics;
                        if (!f.device_heap) {
                            EXPECT_TRUE(r.device.empty());
                            EXPECT_EQ(r.backend, DeviceBackendKind::none);
                            continue;
                        }
                        ASSERT_EQ(r.device.size(), static_cast<size_t>(n));
                        // Kernels: load/store on this host unless KISHMEM_REMOTE names a backend for
                        // everyone; PEs on other hosts through the proxy when it is named, else IBGDA.
                        const DevicePath off_host = remote == Remote::proxy ? DevicePath::proxy : DevicePath::ibgda;
                        bool any_backend = false;
                        for (int pe = 0; pe < n; ++pe) {
                            const bool same = job.host[pe] == job.host[me];
                            DevicePath want = DevicePath::load_store;
                            if (pe != me && remote == Remote::ibgda) want = DevicePath::ibgda;
                            if (pe != me && remote == Remote::proxy) want = DevicePath::proxy;
                            if (!same) want = off_host;
                            EXPECT_EQ(r.device[pe], want) << "peer " << pe;
                            any_backend |= want != DevicePath::load_store;
                        }
                        const DeviceBackendKind want_backend = !any_backend                  ? DeviceBackendKind::none
                                                               : off_host == DevicePath::proxy ? DeviceBackendKind::proxy
                                                                                               : DeviceBackendKind::ibgda;
                        EXPECT_EQ(r.backend, want_backend);
                    }
                    // Opening UCX is collective: every PE of the job decides alike.
                    EXPECT_TRUE(ucx_heap_votes == 0 || ucx_heap_votes == n) << job.name;
                    EXPECT_TRUE(ucx_statics_votes == 0 || ucx_statics_votes == n) << job.name;
                    EXPECT_TRUE(ucx_am_votes == 0 || ucx_am_votes == n) << job.name;  // the service is collective too
                }
    }
    EXPECT_GT(cases, 500);
}

// The configuration comes from the env table's typed rows (test_env.cpp parses them); the
// routes take their enums as they are.
TEST(Routes, ConfigFromEnvTable) {
    setenv("KISHMEM_REMOTE", "proxy", 1);
    setenv("KISHMEM_HEAP", "device", 1);
    EXPECT_EQ(kishmem::env::remote(), Remote::proxy);
    EXPECT_EQ(kishmem::env::heap(), HeapMode::device);
    unsetenv("KISHMEM_REMOTE");
    unsetenv("KISHMEM_HEAP");
    EXPECT_EQ(kishmem::env::remote(), Remote::auto_);
    EXPECT_EQ(kishmem::env::heap(), HeapMode::auto_);
}

// Which PEs share a host, from every PE's host name and its launcher's word (find_hosts).
namespace {

struct Layout {
    std::vector<std::string> name;
    std::vector<std::vector<int>> launcher;
    std::vector<std::string> machine = {};  // empty: one machine for every PE
};

// find_hosts on every PE: the local tables, checked to be one partition seen alike by all.
std::vector<kishmem::routes::Hosts> on_every_pe(const Layout& l) {
    const int n = static_cast<int>(l.name.size());
    std::vector<kishmem::routes::Hosts> h;
    const std::vector<std::string> machine = l.machine.empty() ? std::vector<std::string>(n, "m") : l.machine;
    for (int me = 0; me < n; ++me) h.push_back(find_hosts(me, l.name, machine, l.launcher));
    for (int a = 0; a < n; ++a) {
        EXPECT_TRUE(h[a].local[a]) << "PE " << a;
        EXPECT_EQ(h[a].all_one_host, h[0].all_one_host) << "PE " << a;
        EXPECT_EQ(h[a].disagreement, h[0].disagreement) << "PE " << a;
        for (int b = 0; b < n; ++b) {
            EXPECT_EQ(h[a].local[b], h[b].local[a]) << "PEs " << a << ", " << b;  // symmetric
            if (h[a].local[b]) EXPECT_EQ(h[a].local, h[b].local) << "PEs " << a << ", " << b;  // one group
        }
    }
    return h;
}

std::vector<bool> group(int n, std::initializer_list<int> pes) {
    std::vector<bool> g(n, false);
    for (int pe : pes) g[pe] = true;
    return g;
}

}  // namespace

TEST(Routes, HostsFromNamesAndLauncher) {
    // The launcher and the names agree: 2 hosts x 2 PEs.
    auto h = on_every_pe({{"h1", "h1", "h2", "h2"}, {{0, 1}, {0, 1}, {2, 3}, {2, 3}}});
    EXPECT_EQ(h[0].local, group(4, {0, 1}));
    EXPECT_EQ(h[3].local, group(4, {2, 3}));
    EXPECT_FALSE(h[0].all_one_host);
    EXPECT_EQ(h[0].disagreement, "");
    // No word from the launcher (an MPI bootstrap): the names decide.
    h = on_every_pe({{"a", "b", "a"}, {{}, {}, {}}});
    EXPECT_EQ(h[0].local, group(3, {0, 2}));
    EXPECT_EQ(h[0].disagreement, "");
    // One host.
    h = on_every_pe({{"n", "n", "n"}, {{0, 1, 2}, {0, 1, 2}, {0, 1, 2}}});
    EXPECT_TRUE(h[1].all_one_host);
    EXPECT_EQ(h[1].local, group(3, {0, 1, 2}));
}

// Two hosts as hostname namespaces of one machine (tools/gpu/run_hosts.sh): a launcher that puts
// a PE of the other host beside PEs 0 and 1 (PE 0's report read "3 PEs here" on the GPU machine)
// must not make it same-host: its heap would be mapped and loaded and stored from kernels,
// while it reaches PE 0 through the other host's path. The names keep the groups apart, and the
// report says how the launcher differs.
TEST(Routes, LauncherPutsAnotherHostsPeHere) {
    const auto h = on_every_pe({{"h1", "h1", "h2", "h2"}, {{0, 1, 2}, {0, 1, 2}, {2, 3}, {2, 3}}});
    EXPECT_EQ(h[0].local, group(4, {0, 1}));
    EXPECT_EQ(h[2].local, group(4, {2, 3}));
    EXPECT_FALSE(h[0].all_one_host);
    EXPECT_EQ(h[0].disagreement, "the launcher's host groups (0-2 | 2-3) differ from the PEs' host names and machines "
                                 "(0-1 | 2-3): the host names and machines decide");
    Facts f;
    f.me = 0;
    f.local = h[0].local;
    f.device_heap = true;
    const Config cfg{Remote::auto_, HeapMode::device};
    const kishmem::routes::Setup setup = plan_setup(f.local, h[0].all_one_host, cfg);
    const Routes r = build_routes(f, cfg, setup);
    EXPECT_EQ(r.device[2], DevicePath::ibgda);  // never load/store into the other host's heap
    EXPECT_EQ(r.heap[2], Path::ucx_am);
    const auto why = explain(f, cfg, setup, r);
    EXPECT_NE(why[0].find("(PEs 0-1 here, mapped through CUDA IPC)"), std::string::npos) << why[0];
    EXPECT_NE(why[2].find("PEs on other hosts (2-3) through the software NIC"), std::string::npos) << why[2];
}

// The GPU machine's launcher (Open MPI 4.1.6 through an rsh agent into hostname namespaces) puts
// every PE alone, or every PE on one host: the names decide, the same groups as where it agrees,
// and the report gives both views.
TEST(Routes, LauncherDeniesOrJoins) {
    auto h = on_every_pe({{"h1", "h1", "h2", "h2"}, {{0}, {1}, {2}, {3}}});
    EXPECT_EQ(h[0].local, group(4, {0, 1}));
    EXPECT_EQ(h[3].local, group(4, {2, 3}));
    EXPECT_EQ(h[0].disagreement, "the launcher's host groups (0 | 1 | 2 | 3) differ from the PEs' host names and machines "
                                 "(0-1 | 2-3): the host names and machines decide");
    h = on_every_pe({{"h1", "h2"}, {{0, 1}, {0, 1}}});
    EXPECT_EQ(h[0].local, group(2, {0}));
    EXPECT_EQ(h[1].local, group(2, {1}));
    EXPECT_FALSE(h[0].all_one_host);
    EXPECT_EQ(h[0].disagreement, "the launcher's host groups (0-1) differ from the PEs' host names and machines (0 | 1): "
                                 "the host names and machines decide");
    // One host whose launcher splits it: one group.
    h = on_every_pe({{"n", "n", "n"}, {{0, 1}, {0, 1}, {2}}});
    EXPECT_TRUE(h[2].all_one_host);
    EXPECT_EQ(h[2].local, group(3, {0, 1, 2}));
    EXPECT_NE(h[0].disagreement, "");
}

// Two machines with one host name ("localhost"): their machine identities (boot id, /dev/shm)
// keep them apart, whatever the launcher says.
TEST(Routes, SameNameOtherMachines) {
    const Layout two{{"localhost", "localhost", "localhost", "localhost"}, {{0, 1}, {0, 1}, {2, 3}, {2, 3}},
                     {"boot-a/1", "boot-a/1", "boot-b/1", "boot-b/1"}};
    auto h = on_every_pe(two);
    EXPECT_EQ(h[1].local, group(4, {0, 1}));
    EXPECT_FALSE(h[1].all_one_host);
    EXPECT_EQ(h[1].disagreement, "");
    h = on_every_pe({two.name, {{}, {}, {}, {}}, two.machine});  // no launcher word at all
    EXPECT_EQ(h[2].local, group(4, {2, 3}));
    // One machine, one name, but two /dev/shm (containers): apart.
    h = on_every_pe({{"n", "n"}, {{}, {}}, {"boot/1", "boot/2"}});
    EXPECT_EQ(h[0].local, group(2, {0}));
}

TEST(Routes, PeList) {
    EXPECT_EQ(pe_list({true, true, false, false, true}), "0-1, 4");
    EXPECT_EQ(pe_list({false, true}), "1");
    EXPECT_EQ(pe_list({false}), "none");
}
