// MPI bootstrap: allgather = MPI_Iallgather of the sizes + MPI_Iallgatherv of the blobs on a
// private duplicate of the communicator, tested in a loop that calls the caller's progress
// function (software transports must keep serving peers while a PE waits here); abort =
// MPI_Abort; the ranks on this host from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED).
#include "mpi_bootstrap.h"

#include <sched.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

namespace kishmem::mpi_ext {

const char* mpi_error_text(int code) {
    static thread_local char text[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "unknown MPI error";
    text[len] = '\0';
    return text;
}

namespace {

class MpiBootstrap final : public Bootstrap {
public:
    explicit MpiBootstrap(MPI_Comm comm) : comm_(comm) {
        MPI_Comm_rank(comm_, &rank_);
        MPI_Comm_size(comm_, &size_);
        // The ranks of `comm` on this host, as ranks of `comm`.
        MPI_Comm node = MPI_COMM_NULL;
        if (MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node) == MPI_SUCCESS &&
            node != MPI_COMM_NULL) {
            int n = 0;
            MPI_Comm_size(node, &n);
            MPI_Group node_group, comm_group;
            MPI_Comm_group(node, &node_group);
            MPI_Comm_group(comm_, &comm_group);
            std::vector<int> in_node(n), in_comm(n, MPI_UNDEFINED);
            for (int i = 0; i < n; ++i) in_node[i] = i;
            MPI_Group_translate_ranks(node_group, n, in_node.data(), comm_group, in_comm.data());
            MPI_Group_free(&node_group);
            MPI_Group_free(&comm_group);
            MPI_Comm_free(&node);
            if (std::none_of(in_comm.begin(), in_comm.end(), [](int r) { return r == MPI_UNDEFINED; })) {
                std::sort(in_comm.begin(), in_comm.end());
                local_ranks_ = in_comm;
            }
        }
        // Else local_ranks_ stays empty and init compares host names.
    }
    ~MpiBootstrap() override { finalize(); }

    const char* name() const override { return "mpi"; }

    Status allgather(const Blob& mine, std::vector<Blob>* all, const std::function<void()>& progress) override {
        if (mine.size() > static_cast<std::size_t>(INT_MAX)) {
            warn("bootstrap", "MPI allgather of %zu bytes is too large", mine.size());
            return Status::invalid;
        }
        int my_size = static_cast<int>(mine.size());
        std::vector<int> sizes(size_), displs(size_);
        MPI_Request req;
        int rc = MPI_Iallgather(&my_size, 1, MPI_INT, sizes.data(), 1, MPI_INT, comm_, &req);
        if (rc == MPI_SUCCESS) rc = wait(&req, progress);
        if (rc != MPI_SUCCESS) return failed("MPI_Iallgather", rc);
        long long total = 0;
        for (int r = 0; r < size_; ++r) {
            displs[r] = static_cast<int>(total);
            total += sizes[r];
            if (total > INT_MAX) {
                warn("bootstrap", "MPI allgather of %lld bytes in all is too large", total);
                return Status::invalid;
            }
        }
        std::vector<uint8_t> flat(static_cast<std::size_t>(std::max(total, 1LL)));
        // MPI does not take a null send buffer, even for 0 bytes.
        static const uint8_t none = 0;
        const void* send = mine.empty() ? &none : static_cast<const void*>(mine.data());
        rc = MPI_Iallgatherv(send, my_size, MPI_BYTE, flat.data(), sizes.data(), displs.data(), MPI_BYTE, comm_,
                             &req);
        if (rc == MPI_SUCCESS) rc = wait(&req, progress);
        if (rc != MPI_SUCCESS) return failed("MPI_Iallgatherv", rc);
        all->assign(size_, Blob{});
        for (int r = 0; r < size_; ++r) (*all)[r].assign(flat.begin() + displs[r], flat.begin() + displs[r] + sizes[r]);
        return Status::ok;
    }

    void abort(int status, const char* message) override {
        int up = 0, down = 0;
        MPI_Initialized(&up);
        MPI_Finalized(&down);
        (void)message;  // fatal() has printed it already
        if (up && !down) MPI_Abort(comm_ != MPI_COMM_NULL ? comm_ : MPI_COMM_WORLD, status);
        std::_Exit(status);
    }

    void finalize() override {
        if (comm_ == MPI_COMM_NULL) return;
        int down = 0;
        MPI_Finalized(&down);
        if (!down) MPI_Comm_free(&comm_);
        comm_ = MPI_COMM_NULL;
    }

private:
    // Completes `req`, calling `progress` (or yielding) between tests.
    static int wait(MPI_Request* req, const std::function<void()>& progress) {
        int done = 0;
        while (true) {
            int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS || done) return rc;
            if (progress) progress();
            sched_yield();
        }
    }

    Status failed(const char* what, int rc) {
        warn("bootstrap", "%s on the MPI communicator of %d ranks failed: %s", what, size_, mpi_error_text(rc));
        return Status::unreachable;
    }

    MPI_Comm comm_;
};

}  // namespace

std::unique_ptr<Bootstrap> bootstrap_mpi(MPI_Comm comm) {
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    return std::make_unique<MpiBootstrap>(comm);
}

}  // namespace kishmem::mpi_ext
