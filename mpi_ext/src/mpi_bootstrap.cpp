// MPI bootstrap, as the callbacks of a kishmem_ext_bootstrap: allgather = MPI_Iallgather of
// the sizes + MPI_Iallgatherv of the blobs on a private duplicate of the communicator, tested
// in a loop that calls the caller's progress function (software transports must keep serving
// peers while a PE waits here); abort = MPI_Abort; the ranks on this host from
// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED).
#include "mpi_bootstrap.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace kishmem::mpi_ext {

const char* mpi_error_text(int code) {
    static thread_local char text[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "unknown MPI error";
    text[len] = '\0';
    return text;
}

int wait_request(MPI_Request* req, kishmem_ext_progress_fn progress, void* arg, const char* what, int ranks) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    int warned = 0;
    char awaited[192];
    std::snprintf(awaited, sizeof awaited, "%s of the MPI communicator of %d ranks", what, ranks);
    for (unsigned n = 0;; ++n) {
        int done = 0;
        const int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done) return rc;
        if (progress) progress(arg);
        sched_yield();
        if ((n & 1023) == 1023)
            kishmem_ext_hang_bounds("MPI bootstrap", awaited, std::chrono::duration<double>(clock::now() - start).count(),
                                    &warned);
    }
}

namespace {

void say_warn(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void say_warn(const char* fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    kishmem_ext_warn("bootstrap", msg);
}

class MpiBootstrap {
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
    ~MpiBootstrap() { finalize(); }

    int rank() const { return rank_; }
    int size() const { return size_; }
    const std::vector<int>& local_ranks() const { return local_ranks_; }

    int allgather(const void* mine, std::size_t bytes, std::size_t* sizes_out, void** all_out,
                  kishmem_ext_progress_fn progress, void* arg) {
        if (bytes > static_cast<std::size_t>(INT_MAX)) {
            say_warn("MPI allgather of %zu bytes is too large", bytes);
            return -1;
        }
        int my_size = static_cast<int>(bytes);
        std::vector<int> sizes(size_), displs(size_);
        MPI_Request req;
        int rc = MPI_Iallgather(&my_size, 1, MPI_INT, sizes.data(), 1, MPI_INT, comm_, &req);
        if (rc == MPI_SUCCESS) rc = wait(&req, progress, arg, "every rank's bootstrap data size");
        if (rc != MPI_SUCCESS) return failed("MPI_Iallgather", rc);
        long long total = 0;
        for (int r = 0; r < size_; ++r) {
            displs[r] = static_cast<int>(total);
            total += sizes[r];
            if (total > INT_MAX) {
                say_warn("MPI allgather of %lld bytes in all is too large", total);
                return -1;
            }
        }
        uint8_t* flat = static_cast<uint8_t*>(std::malloc(static_cast<std::size_t>(std::max(total, 1LL))));
        if (!flat) {
            say_warn("no memory for an allgather of %lld bytes", total);
            return -1;
        }
        // MPI does not take a null send buffer, even for 0 bytes.
        static const uint8_t none = 0;
        const void* send = bytes == 0 ? &none : mine;
        rc = MPI_Iallgatherv(send, my_size, MPI_BYTE, flat, sizes.data(), displs.data(), MPI_BYTE, comm_, &req);
        if (rc == MPI_SUCCESS) rc = wait(&req, progress, arg, "every rank's bootstrap data");
        if (rc != MPI_SUCCESS) {
            std::free(flat);
            return failed("MPI_Iallgatherv", rc);
        }
        for (int r = 0; r < size_; ++r) sizes_out[r] = static_cast<std::size_t>(sizes[r]);
        *all_out = flat;
        return 0;
    }

    [[noreturn]] void abort(int status) {
        int up = 0, down = 0;
        MPI_Initialized(&up);
        MPI_Finalized(&down);
        if (up && !down) MPI_Abort(comm_ != MPI_COMM_NULL ? comm_ : MPI_COMM_WORLD, status);
        std::_Exit(status);
    }

    void finalize() {
        if (comm_ == MPI_COMM_NULL) return;
        int down = 0;
        MPI_Finalized(&down);
        if (!down) MPI_Comm_free(&comm_);
        comm_ = MPI_COMM_NULL;
    }

private:
    int wait(MPI_Request* req, kishmem_ext_progress_fn progress, void* arg, const char* what) {
        return wait_request(req, progress, arg, what, size_);
    }

    int failed(const char* what, int rc) {
        say_warn("%s on the MPI communicator of %d ranks failed: %s", what, size_, mpi_error_text(rc));
        return -1;
    }

    MPI_Comm comm_;
    int rank_ = 0;
    int size_ = 1;
    std::vector<int> local_ranks_;
};

MpiBootstrap* self_of(void* p) { return static_cast<MpiBootstrap*>(p); }

}  // namespace

void bootstrap_mpi(MPI_Comm comm, kishmem_ext_bootstrap* out) {
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MpiBootstrap* b = new MpiBootstrap(comm);
    *out = kishmem_ext_bootstrap{};
    out->name = "mpi";
    out->rank = b->rank();
    out->size = b->size();
    out->local_ranks = b->local_ranks().empty() ? nullptr : b->local_ranks().data();
    out->n_local_ranks = static_cast<int>(b->local_ranks().size());
    out->self = b;
    out->allgather = [](void* s, const void* mine, std::size_t bytes, std::size_t* sizes, void** all,
                        kishmem_ext_progress_fn progress, void* arg) {
        return self_of(s)->allgather(mine, bytes, sizes, all, progress, arg);
    };
    // fatal() has printed the message already.
    out->abort = [](void* s, int status, const char*) { self_of(s)->abort(status); };
    out->finalize = [](void* s) { self_of(s)->finalize(); };
    out->destroy = [](void* s) { delete self_of(s); };
}

}  // namespace kishmem::mpi_ext
