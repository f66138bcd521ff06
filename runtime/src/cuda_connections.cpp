// KISHMEM_CUDA_CONNECTIONS: the hardware work queues the process asks of CUDA, set as
// CUDA_DEVICE_MAX_CONNECTIONS when the library loads (before any CUDA context exists; CUDA reads
// it once, at context creation) unless the application set that variable.
//
// Why: CUDA aliases streams onto a few hardware queues (8 by default). Work of two streams on one
// queue runs in order. kishmem's host threads queue copies and one-thread atomic kernels on
// streams of their own while application kernels wait for exactly that work (a kernel in
// shmem_quiet waits for the software NIC; a kernel waiting for a signal waits for the
// active-message service to apply a put). Queued behind such a kernel, the work never starts.
// Measured on one H200 under MPS, two simulated hosts x 2 PEs: with 8 queues per process
// gpu_rma over the CPU proxy and the MoE examples over the software NIC hung with those threads in
// cudaStreamSynchronize; with 16 they passed.
//
// How many (-1, the default, "auto"): under MPS the clients of a GPU share one pool of queues
// (4 clients of 32 each failed at cudaSetDevice with "out of memory", 4 x 16 and 8 x 8 ran), so
// the 64 queues are split between the PEs the launcher puts on each GPU of this host: 32 for one
// or two PEs per GPU, 16 for up to four, CUDA's own 8 beyond. The launcher's count is all this
// code can know when the library loads; PEs of several launchers' hosts on one GPU (simulated
// hosts) need KISHMEM_CUDA_CONNECTIONS set for the PEs that really share it.
#include "cuda_connections.h"

#include <dirent.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "kishmem/env.h"

namespace kishmem {
namespace {

long g_asked = 0;  // what this library set CUDA_DEVICE_MAX_CONNECTIONS to (0: nothing)

// The PEs the launcher starts on this host: its local size (mpirun, hydra), else the most tasks
// of any node of the Slurm step ("2(x3),1": 2); 1 where no launcher says.
long launcher_local_pes() {
    for (const char* v : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMIX_LOCAL_SIZE"})
        if (const char* s = std::getenv(v); s && std::atol(s) > 0) return std::atol(s);
    long most = 1;
    if (const char* s = std::getenv("SLURM_STEP_TASKS_PER_NODE"))
        for (const char* p = s; *p;) {
            char* end = nullptr;
            const long n = std::strtol(p, &end, 10);
            if (end == p) break;
            if (n > most) most = n;
            p = end + std::strcspn(end, ",");
            if (*p == ',') ++p;
        }
    return most;
}

// The GPUs this process may use: CUDA_VISIBLE_DEVICES's entries where set, else the driver's
// list (/proc/driver/nvidia/gpus); 1 where neither says.
long visible_gpus() {
    if (const char* s = std::getenv("CUDA_VISIBLE_DEVICES")) {
        long n = 0;
        for (const char* p = s; *p; p += std::strcspn(p, ","), p += *p == ',')
            if (*p != ',') ++n;
        return n;
    }
    long n = 0;
    if (DIR* d = opendir("/proc/driver/nvidia/gpus")) {
        while (const dirent* e = readdir(d))
            if (e->d_name[0] != '.') ++n;
        closedir(d);
    }
    return n > 0 ? n : 1;
}

__attribute__((constructor)) void ask_for_connections() {
#if KISHMEM_HAVE_CUDA
    if (std::getenv("CUDA_DEVICE_MAX_CONNECTIONS")) return;
    // (a malformed value asks for nothing here, before main: shmem_init names it)
    if (!env::valid("KISHMEM_CUDA_CONNECTIONS")) return;
    long n = env::cuda_connections();
    if (n < 0) {
        const long gpus = visible_gpus();
        if (gpus == 0) return;
        const long per_gpu = (launcher_local_pes() + gpus - 1) / gpus;
        n = per_gpu <= 2 ? 32 : per_gpu <= 4 ? 16 : 0;
    }
    if (n <= 0) return;
    g_asked = n > 32 ? 32 : n;
    char text[16];
    std::snprintf(text, sizeof text, "%ld", g_asked);
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", text, 0);
#endif
}

}  // namespace

long cuda_connections_asked() { return g_asked; }

}  // namespace kishmem
