#include "bootstrap.h"

#include <cstdlib>
#include <cstring>

#include "kishmem/env.h"

namespace kishmem {

Status Bootstrap::barrier(const std::function<void()>& progress) {
    // An allgather cannot complete before every rank contributed: a barrier whatever the
    // launcher does with data-less fences.
    std::vector<Blob> all;
    return allgather(Blob{1}, &all, progress);
}

namespace {

class Singleton final : public Bootstrap {
public:
    Singleton() { local_ranks_ = {0}; }
    const char* name() const override { return "singleton"; }
    Status allgather(const Blob& mine, std::vector<Blob>* all, const std::function<void()>&) override {
        *all = {mine};
        return Status::ok;
    }
    void abort(int status, const char*) override { std::_Exit(status); }
    void finalize() override {}
};

// Environment variables that a multi-task launcher sets, with the task count they carry.
long launcher_task_count(const char** which) {
    // Not SLURM_NTASKS: an salloc/sbatch shell sets it for the allocation, and a program run there
    // directly is one process.  An srun step always sets SLURM_STEP_NUM_TASKS.
    static const char* vars[] = {"SLURM_STEP_NUM_TASKS", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE",
                                 "MPI_LOCALNRANKS"};
    for (const char* v : vars) {
        const char* s = std::getenv(v);
        if (s && std::atol(s) > 1) {
            *which = v;
            return std::atol(s);
        }
    }
    return 1;
}

// torchrun's worker count (WORLD_SIZE, a name too common to trust without torchrun's run id
// beside it); 0 outside torchrun.
long torchrun_world_size() {
    const char* ws = std::getenv("WORLD_SIZE");
    return std::getenv("TORCHELASTIC_RUN_ID") && ws ? std::atol(ws) : 0;
}

}  // namespace

std::unique_ptr<Bootstrap> bootstrap_singleton() { return std::make_unique<Singleton>(); }

std::unique_ptr<Bootstrap> bootstrap_open() {
    using Mode = env::BootstrapMode;
    const Mode mode = env::bootstrap();  // checked at init (env.def lists the words)
    if (mode == Mode::singleton) return bootstrap_singleton();
    // torchrun's workers have no PMIx of their own: a PMIx server in their environment is that of
    // the task that runs torchrun (one rank for all of its workers).
    if (const long workers = torchrun_world_size(); workers > 1)
        fatal("shmem_init",
              "started by torchrun (WORLD_SIZE=%ld), which gives its workers neither PMIx nor MPI: from Python, call "
              "torch.distributed.init_process_group(), then kishmem.init() (the PEs meet in its store); launch a "
              "program of its own with 'mpirun' or 'srun --mpi=pmix'",
              workers);

    std::string why = "this library was built without PMIx";
    bool pmix_env = std::getenv("PMIX_NAMESPACE") || std::getenv("PMIX_SERVER_URI41") ||
                    std::getenv("PMIX_SERVER_URI4") || std::getenv("PMIX_SERVER_URI3") ||
                    std::getenv("PMIX_SERVER_URI2") || std::getenv("PMIX_SERVER_URI21");
#if KISHMEM_HAVE_PMIX
    if (pmix_env || mode == Mode::pmix) {
        if (auto b = bootstrap_pmix(&why)) return b;
    } else {
        why = "no PMIx server in the environment (PMIX_NAMESPACE is unset)";
    }
#endif
    const char* which = nullptr;
    long tasks = launcher_task_count(&which);
    if (mode == Mode::pmix || tasks > 1) {
        std::string advice;
        if (std::getenv("SLURM_JOB_ID"))
            advice = "under Slurm, launch with 'srun --mpi=pmix' (this task came from srun without PMIx, "
                     "e.g. --mpi=none or --mpi=pmi2)";
        else
            advice = "launch with 'mpirun' from an Open MPI that uses PMIx, or 'srun --mpi=pmix'";
        if (tasks > 1)
            fatal("shmem_init",
                  "the launcher started %ld tasks (%s=%ld) but kishmem cannot reach its PMIx server: %s. "
                  "Running them as %ld separate one-PE jobs would be wrong; %s",
                  tasks, which, tasks, why.c_str(), tasks, advice.c_str());
        fatal("shmem_init", "KISHMEM_BOOTSTRAP=pmix but PMIx is unavailable: %s; %s", why.c_str(), advice.c_str());
    }
    return bootstrap_singleton();
}

}  // namespace kishmem
