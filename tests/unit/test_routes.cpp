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
