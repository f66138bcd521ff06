// PMIx bootstrap: allgather = put + commit + fence(collect data) + get from every rank.  The
// fence always collects data, so it is a real barrier also under Slurm's tree fence.  It runs
// non-blocking so that the caller's progress function keeps software transports alive, and
// is watched like every other wait: KISHMEM_HANG_WARN / KISHMEM_HANG_ABORT and the liveness
// checks (liveness.h) apply to it.  The launcher's events about terminated processes and a lost
// server connection are passed to the liveness checks.
#include <pmix.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <thread>

#include "blocked.h"
#include "bootstrap.h"
#include "kishmem/env.h"
#include "kishmem/waiter.h"
#include "liveness.h"

namespace kishmem {
namespace {

class Pmix final : public Bootstrap {
public:
    bool open(std::string* why) {
        pmix_status_t rc = PMIx_Init(&me_, nullptr, 0);
        if (rc != PMIX_SUCCESS) {
            *why = std::string("PMIx_Init failed: ") + PMIx_Error_string(rc);
            return false;
        }
        initialized_ = true;
        pmix_proc_t wild;
        PMIX_LOAD_PROCID(&wild, me_.nspace, PMIX_RANK_WILDCARD);
        pmix_value_t* val = nullptr;
        rc = PMIx_Get(&wild, PMIX_JOB_SIZE, nullptr, 0, &val);
        if (rc != PMIX_SUCCESS || !val) {
            *why = std::string("PMIx_Get(PMIX_JOB_SIZE) failed: ") + PMIx_Error_string(rc);
            return false;
        }
        size_ = static_cast<int>(val->data.uint32);
        PMIX_VALUE_RELEASE(val);
        rank_ = static_cast<int>(me_.rank);
        val = nullptr;
        if (PMIx_Get(&wild, PMIX_LOCAL_PEERS, nullptr, 0, &val) == PMIX_SUCCESS && val && val->type == PMIX_STRING) {
            std::stringstream ss(val->data.string);
            std::string item;
            while (std::getline(ss, item, ',')) local_ranks_.push_back(std::stoi(item));
        }
        if (val) PMIX_VALUE_RELEASE(val);
        liveness::start(rank_, size_, me_.nspace, local_ranks_);
        watch_events();
        return true;
    }
    // Not finalized: the program ends (exit, return from main) without shmem_finalize.  PMIx is
    // left as it is, so that the launcher sees an abnormal end and ends the job (Slurm's and
    // Open MPI's servers both do within a few seconds), instead of the peers waiting forever.
    ~Pmix() override {
        if (initialized_ && !aborting_)
            std::fprintf(stderr, "kishmem: PE %d: warning: the program ends without shmem_finalize; the other PEs "
                         "and the launcher will take this PE as gone\n", rank_);
    }

    const char* name() const override { return "pmix"; }

    Status allgather(const Blob& mine, std::vector<Blob>* all, const std::function<void()>& progress) override {
        char key[PMIX_MAX_KEYLEN + 1];
        std::snprintf(key, sizeof key, "kishmem.ag.%u", seq_++);
        pmix_value_t v;
        PMIX_VALUE_CONSTRUCT(&v);
        v.type = PMIX_BYTE_OBJECT;
        v.data.bo.bytes = const_cast<char*>(reinterpret_cast<const char*>(mine.data()));
        v.data.bo.size = mine.size();
        pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
        if (rc == PMIX_SUCCESS) {
            blocked::Scope watched(call(), "PMIx_Commit");
            stall_on_purpose(env::PmixStall::commit);
            rc = PMIx_Commit();
        }
        if (rc == PMIX_SUCCESS) rc = fence(progress);
        if (rc != PMIX_SUCCESS) {
            warn("bootstrap", "PMIx exchange %s failed: %s", key, PMIx_Error_string(rc));
            return Status::unreachable;
        }
        all->assign(size_, Blob{});
        blocked::Scope watched(call(), "PMIx_Get of a PE's bootstrap data");  // (one watch for every PE's)
        for (int r = 0; r < size_; ++r) {
            pmix_proc_t p;
            PMIX_LOAD_PROCID(&p, me_.nspace, r);
            pmix_value_t* got = nullptr;
            stall_on_purpose(env::PmixStall::get);
            rc = PMIx_Get(&p, key, nullptr, 0, &got);
            if (rc != PMIX_SUCCESS || !got || got->type != PMIX_BYTE_OBJECT) {
                warn("bootstrap", "PMIx_Get(%s) from PE %d failed: %s", key, r, PMIx_Error_string(rc));
                if (got) PMIX_VALUE_RELEASE(got);
                return Status::unreachable;
            }
            const uint8_t* b = reinterpret_cast<const uint8_t*>(got->data.bo.bytes);
            (*all)[r].assign(b, b + got->data.bo.size);
            PMIX_VALUE_RELEASE(got);
        }
        return Status::ok;
    }

    void abort(int status, const char* message) override {
        aborting_ = true;
        liveness::stop();
        if (initialized_) PMIx_Abort(status, message, nullptr, 0);
        std::_Exit(status);
    }

    void finalize() override {
        if (!initialized_) return;
        initialized_ = false;
        liveness::stop();
        blocked::Scope watched(call(), "PMIx_Finalize");
        if (handler_ >= 0) PMIx_Deregister_event_handler(static_cast<size_t>(handler_), nullptr, nullptr);
        stall_on_purpose(env::PmixStall::finalize);
        PMIx_Finalize(nullptr, 0);
    }

private:
    // KISHMEM_SIM_PMIX_STALL (tests): the nth call of this kind never returns, as when the server
    // stops answering.
    void stall_on_purpose(env::PmixStall kind) {
        const auto& f = stall_;
        if (!f.here(rank_) || f.kind != kind || ++stall_count_[static_cast<int>(kind)] != f.nth) return;
        for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    }

    // What the launcher says about processes of this job that ended, and about its own end.
    static void on_event(size_t, pmix_status_t status, const pmix_proc_t* source, pmix_info_t info[], size_t ninfo,
                         pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
        int pe = source ? static_cast<int>(source->rank) : -1;
        for (size_t i = 0; i < ninfo; ++i)
            if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC)
                pe = static_cast<int>(info[i].value.data.proc->rank);
        char why[160];
        if (status == PMIX_ERR_LOST_CONNECTION) {
            liveness::report(-1, "the connection to the launcher's PMIx server was lost");
        } else if (pe >= 0 && static_cast<uint32_t>(pe) != PMIX_RANK_WILDCARD) {
            std::snprintf(why, sizeof why, "the launcher reports: %s", PMIx_Error_string(status));
            liveness::report(pe, why);
        }
        if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
    }
    void watch_events() {
        pmix_status_t codes[] = {PMIX_ERR_PROC_ABORTED, PMIX_ERR_PROC_ABORTING, PMIX_EVENT_PROC_TERMINATED,
                                 PMIX_ERR_LOST_CONNECTION};
        struct Reg {
            std::atomic<bool> done{false};
            size_t id = 0;
            pmix_status_t status = PMIX_SUCCESS;
        };
        auto* reg = new Reg;  // the callback may come after a timeout here: never freed then
        auto cb = [](pmix_status_t status, size_t id, void* arg) {
            auto* r = static_cast<Reg*>(arg);
            r->status = status;
            r->id = id;
            r->done.store(true, std::memory_order_release);
        };
        PMIx_Register_event_handler(codes, sizeof codes / sizeof codes[0], nullptr, 0, on_event, cb, reg);
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
        Backoff backoff;
        while (!reg->done.load(std::memory_order_acquire) && std::chrono::steady_clock::now() < until) backoff.pause();
        if (!reg->done.load(std::memory_order_acquire)) return;
        if (reg->status == PMIX_SUCCESS) handler_ = static_cast<long>(reg->id);
        delete reg;
    }

    pmix_status_t fence(const std::function<void()>& progress) {
        struct Done {
            std::atomic<bool> flag{false};
            pmix_status_t status = PMIX_SUCCESS;
        } done;
        pmix_info_t info;
        PMIX_INFO_CONSTRUCT(&info);
        bool collect = true;
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
        auto cb = [](pmix_status_t status, void* arg) {
            auto* d = static_cast<Done*>(arg);
            d->status = status;
            d->flag.store(true, std::memory_order_release);
        };
        pmix_status_t rc = PMIx_Fence_nb(nullptr, 0, &info, 1, cb, &done);
        if (rc == PMIX_OPERATION_SUCCEEDED) {
            PMIX_INFO_DESTRUCT(&info);
            return PMIX_SUCCESS;
        }
        if (rc != PMIX_SUCCESS) {
            PMIX_INFO_DESTRUCT(&info);
            return rc;
        }
        // Not a kishmem::Waiter: its progress hook serves the transports, which shmem_finalize
        // has closed before its last fence.  The same bounds and checks, by hand.
        const WaitPolicy& p = wait_policy();
        using clock = std::chrono::steady_clock;
        const auto start = clock::now();
        auto next = start + std::chrono::seconds(1);
        bool warned = false;
        char what[128];
        std::snprintf(what, sizeof what, "every PE's bootstrap data (PMIx fence %u of %d PEs)", seq_ - 1, size_);
        Backoff backoff;  // (the PMIx server and this client's PMIx thread need the cores)
        for (unsigned n = 0; !done.flag.load(std::memory_order_acquire); ++n) {
            if (progress) progress();
            backoff.pause();
            if ((n & 15) != 15) continue;
            const auto t = clock::now();
            if (t < next) continue;
            next = t + std::chrono::seconds(1);
            if (p.watch) p.watch(call(), what);
            hang_bounds(call(), what, std::chrono::duration<double>(t - start).count(), &warned);
        }
        PMIX_INFO_DESTRUCT(&info);
        return done.status;
    }

    pmix_proc_t me_{};
    bool initialized_ = false;
    bool aborting_ = false;
    long handler_ = -1;
    unsigned seq_ = 0;
    env::Fault<env::PmixStall> stall_ = env::sim_pmix_stall();  // KISHMEM_SIM_PMIX_STALL, read once
    uint64_t stall_count_[3] = {};  // calls of each kind so far
};

}  // namespace

std::unique_ptr<Bootstrap> bootstrap_pmix(std::string* why_not) {
    auto b = std::make_unique<Pmix>();
    if (!b->open(why_not)) return nullptr;
    return b;
}

}  // namespace kishmem
