// How PEs find each other before any transport exists: allgather of blobs, barrier, abort.
// Implementations: PMIx (mpirun, srun --mpi=pmix) and singleton (no launcher: one PE).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../blob.h"
#include "kishmem/log.h"

namespace kishmem {

class Bootstrap {
public:
    virtual ~Bootstrap() = default;
    virtual const char* name() const = 0;
    int rank() const { return rank_; }
    int size() const { return size_; }
    // Ranks on this host (sorted, including this one), as the launcher reports them; empty when
    // the launcher does not say (the caller then compares host names).
    const std::vector<int>& local_ranks() const { return local_ranks_; }

    // Every rank contributes one blob (any size); every rank gets all of them, indexed by rank.
    // `progress` is called while waiting so that software transports keep serving peers.
    virtual Status allgather(const Blob& mine, std::vector<Blob>* all, const std::function<void()>& progress) = 0;
    // A real barrier (nobody leaves before everybody arrived), also where the launcher's
    // data-less fence is not one.
    Status barrier(const std::function<void()>& progress);
    // Ends every rank's process; the job's exit status is `status` (0 included: shmem_global_exit(0)
    // is a successful end).  Errors pass a non-zero status.
    [[noreturn]] virtual void abort(int status, const char* message) = 0;
    virtual void finalize() = 0;
    // The API call the bootstrap's waits are part of (named in their messages).
    void set_call(const char* call) { call_ = call; }
    const char* call() const { return call_; }

protected:
    const char* call_ = "shmem_init";
    int rank_ = 0;
    int size_ = 1;
    std::vector<int> local_ranks_;
};

// Picks PMIx or singleton per KISHMEM_BOOTSTRAP and the process environment; a launch that
// looks like several tasks without a reachable PMIx server is a fatal error with advice.
std::unique_ptr<Bootstrap> bootstrap_open();

std::unique_ptr<Bootstrap> bootstrap_singleton();

// shmem_init with a bootstrap the caller made (e.g. over an MPI communicator: mpi_ext/); the
// bootstrap's ranks become the PEs.  Returns the thread level provided.
int init_with_bootstrap(std::unique_ptr<Bootstrap> bootstrap, int requested_thread_level);
#if KISHMEM_HAVE_PMIX
std::unique_ptr<Bootstrap> bootstrap_pmix(std::string* why_not);
#endif

}  // namespace kishmem
