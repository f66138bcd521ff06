// kishmem.init(store=...): PEs that find each other through a key-value store instead of PMIx or
// MPI, as torchrun starts them (torch.distributed's TCPStore). A kishmem_ext_bootstrap whose
// allgather is: every rank sets its blob under "ag/<round>/<rank>" and adds 1 to "ag/<round>/n";
// each polls that count (Store.add(key, 0): torch's stores have no non-blocking test of a key in
// every version) until every rank is in, calling the runtime's progress in between, then reads
// the blobs. A rank deletes its blob of the round before once the next round completes (every
// rank has read it by then), rank 0 that round's count.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "kishmem_ext.h"

namespace py = pybind11;

namespace kishmem::py {
namespace {

class StoreBootstrap {
public:
    StoreBootstrap(::py::object store, int rank, int size) : store_(std::move(store)), rank_(rank), size_(size) {}

    int allgather(const void* mine, std::size_t bytes, std::size_t* sizes, void** all, kishmem_ext_progress_fn progress,
                  void* arg) {
        const std::string round = "ag/" + std::to_string(++round_) + "/";
        std::vector<std::string> blobs(static_cast<std::size_t>(size_));
        try {
            {
                ::py::gil_scoped_acquire gil;
                store_.attr("set")(round + std::to_string(rank_), ::py::bytes(static_cast<const char*>(mine), bytes));
                store_.attr("add")(round + "n", 1);
            }
            wait_all(round + "n", progress, arg);
            ::py::gil_scoped_acquire gil;
            for (int r = 0; r < size_; ++r)
                blobs[r] = store_.attr("get")(round + std::to_string(r)).cast<std::string>();
            if (round_ > 1) {  // the round before: every rank has read it
                const std::string before = "ag/" + std::to_string(round_ - 1) + "/";
                store_.attr("delete_key")(before + std::to_string(rank_));
                if (rank_ == 0) store_.attr("delete_key")(before + "n");
            }
        } catch (const std::exception& e) {  // (error_already_set included: the store's words)
            const std::string why = std::string("the store of torch.distributed failed: ") + e.what();
            kishmem_ext_warn("shmem_init (store bootstrap)", why.c_str());
            return -1;
        }
        std::size_t total = 0;
        for (int r = 0; r < size_; ++r) total += sizes[r] = blobs[r].size();
        char* flat = static_cast<char*>(std::malloc(total ? total : 1));
        if (!flat) return kishmem_ext_warn("shmem_init (store bootstrap)", "no memory for the allgather"), -1;
        *all = flat;
        for (const std::string& b : blobs) flat = static_cast<char*>(std::memcpy(flat, b.data(), b.size())) + b.size();
        return 0;
    }

private:
    // Until `count` reaches the number of ranks: the runtime's own wait (kishmem_ext_wait: its
    // progress, its backoff where PEs share cores, the KISHMEM_HANG_WARN / _ABORT messages), the
    // GIL held only around each poll, and the caller's progress between polls. A store that
    // fails ends the wait; its words come back in *error.
    struct Poll {
        StoreBootstrap* self;
        const std::string* count;
        kishmem_ext_progress_fn progress;
        void* arg;
        std::string error;
    };
    static int counted(void* p) {
        Poll& q = *static_cast<Poll*>(p);
        if (q.progress) q.progress(q.arg);
        try {
            ::py::gil_scoped_acquire gil;
            return q.self->store_.attr("add")(*q.count, 0).cast<long>() >= q.self->size_;
        } catch (const std::exception& e) {
            q.error = e.what();
            return 1;
        }
    }
    void wait_all(const std::string& count, kishmem_ext_progress_fn progress, void* arg) {
        Poll q{this, &count, progress, arg, {}};
        kishmem_ext_wait(counted, &q, "shmem_init (store bootstrap)",
                         "every rank's part of the allgather in torch.distributed's store");
        if (!q.error.empty()) throw std::runtime_error(q.error);
    }

    ::py::object store_;
    int rank_;
    int size_;
    long round_ = 0;
};

}  // namespace

void bind_store(::py::module_& m) {
    m.def(
        "init_store",
        [](::py::object store, int rank, int size) {
            if (size < 1 || rank < 0 || rank >= size)
                throw std::invalid_argument("init_store: rank " + std::to_string(rank) + " of " + std::to_string(size));
            auto* b = new StoreBootstrap(std::move(store), rank, size);
            kishmem_ext_bootstrap ops{};
            ops.name = "store";
            ops.rank = rank;
            ops.size = size;
            ops.self = b;
            ops.allgather = [](void* s, const void* mine, std::size_t bytes, std::size_t* sizes, void** all,
                               kishmem_ext_progress_fn progress, void* arg) {
                return static_cast<StoreBootstrap*>(s)->allgather(mine, bytes, sizes, all, progress, arg);
            };
            // The message is printed; the launcher (torchrun's agent) ends the other ranks when
            // one exits with an error.
            ops.abort = [](void*, int status, const char*) { std::_Exit(status); };
            // No destroy: b is kept to the end of the process (its Python objects cannot be
            // released once the interpreter is finalizing, where the runtime may drop it).
            ::py::gil_scoped_release nogil;
            kishmem_ext_init(&ops, SHMEM_THREAD_SINGLE);
        },
        ::py::arg("store"), ::py::arg("rank"), ::py::arg("size"));
}

}  // namespace kishmem::py
