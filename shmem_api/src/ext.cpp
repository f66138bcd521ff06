// The C interface for extension libraries (shmem_api/ext/kishmem_ext.h): thin wrappers over
// the runtime, so that libkishmem_mpi needs none of its C++ internals.
#include "kishmem_ext.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "check.h"
#include "kishmem/env.h"
#include "kishmem/log.h"
#include "kishmem/runtime.h"
#include "kishmem/team.h"

namespace kishmem::api {
namespace {

// A Bootstrap over the extension's C callbacks.
class ExternalBootstrap final : public Bootstrap {
public:
    explicit ExternalBootstrap(const kishmem_ext_bootstrap& ops) : ops_(ops) {
        rank_ = ops.rank;
        size_ = ops.size;
        if (ops.local_ranks && ops.n_local_ranks > 0)
            local_ranks_.assign(ops.local_ranks, ops.local_ranks + ops.n_local_ranks);
        ops_.local_ranks = nullptr;  // the caller's array need not outlive kishmem_ext_init
        ops_.n_local_ranks = 0;
    }
    ~ExternalBootstrap() override {
        finalize();
        if (ops_.destroy) ops_.destroy(ops_.self);
    }

    const char* name() const override { return ops_.name ? ops_.name : "external"; }

    Status allgather(const Blob& mine, std::vector<Blob>* all, const std::function<void()>& progress) override {
        std::vector<std::size_t> sizes(static_cast<std::size_t>(size_));
        void* flat = nullptr;
        const std::function<void()>* p = progress ? &progress : nullptr;
        if (ops_.allgather(ops_.self, mine.data(), mine.size(), sizes.data(), &flat, p ? call_progress : nullptr,
                           const_cast<std::function<void()>*>(p)) != 0)
            return Status::unreachable;
        all->assign(static_cast<std::size_t>(size_), Blob{});
        const uint8_t* at = static_cast<const uint8_t*>(flat);
        for (int r = 0; r < size_; ++r) {
            (*all)[r].assign(at, at + sizes[r]);
            at += sizes[r];
        }
        std::free(flat);
        return Status::ok;
    }

    [[noreturn]] void abort(int status, const char* message) override {
        ops_.abort(ops_.self, status, message);
        std::_Exit(status);  // a callback that returned anyway
    }

    void finalize() override {
        if (finalized_) return;
        finalized_ = true;
        if (ops_.finalize) ops_.finalize(ops_.self);
    }

private:
    static void call_progress(void* arg) { (*static_cast<const std::function<void()>*>(arg))(); }

    kishmem_ext_bootstrap ops_;
    bool finalized_ = false;
};

// `what` printed as is by Waiter, whose text is a format.
std::string escape_format(const char* what) {
    std::string out;
    for (const char* c = what; *c; ++c) {
        out += *c;
        if (*c == '%') out += '%';
    }
    return out;
}

}  // namespace
}  // namespace kishmem::api

using namespace kishmem;

extern "C" {

int kishmem_ext_init(const kishmem_ext_bootstrap* boot, int requested_thread_level) {
    api::g_check = env::check();
    return init_with_bootstrap(std::make_unique<api::ExternalBootstrap>(*boot), requested_thread_level);
}

const char* kishmem_ext_bootstrap_name(void) { return rt::bootstrap_name(); }

int kishmem_ext_log_pe(void) { return log_pe(); }

void kishmem_ext_warn(const char* call, const char* message) { warn(call, "%s", message); }

void kishmem_ext_fatal(const char* call, const char* message) { fatal(call, "%s", message); }

void kishmem_ext_wait(int (*done)(void*), void* arg, const char* call, const char* what) {
    const std::string fmt = api::escape_format(what);
    rt::Waiter w(call, fmt.c_str());
    while (!done(arg)) w.spin();
}

void kishmem_ext_hang_bounds(const char* call, const char* what, double waited, int* warned) {
    bool said = *warned != 0;
    // (the bounds init puts in the wait policy, read here: also before init)
    hang_bounds(call, what, waited, &said, env::hang_warn(), env::hang_abort());
    *warned = said ? 1 : 0;
}

int kishmem_ext_team_valid(shmem_team_t team) { return rt::team_valid(team) ? 1 : 0; }

int kishmem_ext_team_slot(shmem_team_t team) { return team->slot; }

int kishmem_ext_team_members(shmem_team_t team, int* world_pes) {
    if (world_pes)
        for (int i = 0; i < team->size(); ++i) world_pes[i] = team->members[i];
    return team->size();
}

void kishmem_ext_team_quiesce(shmem_team_t team, const char* call) {
    rt::quiet_all();
    rt::team_sync(team, call);
}

shmem_team_t kishmem_ext_team_from_list(shmem_team_t parent, const int* parent_indices, int n, const char* call,
                                        int* full) {
    const std::vector<int> list(parent_indices, parent_indices + n);
    bool none_left = false;
    shmem_team_t t = rt::team_from_list(parent, list, 0, call, &none_left);
    if (full && none_left) *full = 1;
    return t;
}

}  // extern "C"
