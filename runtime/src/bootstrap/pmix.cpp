// PMIx bootstrap: allgather = put + commit + fence(collect data) + get from every rank.  The
// fence always collects data, so it is a real barrier also under Slurm's tree fence.  It runs
// non-blocking so that the caller's progress function keeps software transports alive.
#include <pmix.h>
#include <sched.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "bootstrap.h"

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
        return true;
    }
    ~Pmix() override { finalize(); }

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
        if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
        if (rc == PMIX_SUCCESS) rc = fence(progress);
        if (rc != PMIX_SUCCESS) {
            warn("bootstrap", "PMIx exchange %s failed: %s", key, PMIx_Error_string(rc));
            return Status::unreachable;
        }
        all->assign(size_, Blob{});
        for (int r = 0; r < size_; ++r) {
            pmix_proc_t p;
            PMIX_LOAD_PROCID(&p, me_.nspace, r);
            pmix_value_t* got = nullptr;
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
        if (initialized_) PMIx_Abort(status, message, nullptr, 0);
        std::_Exit(status);
    }

    void finalize() override {
        if (!initialized_) return;
        initialized_ = false;
        PMIx_Finalize(nullptr, 0);
    }

private:
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
        while (!done.flag.load(std::memory_order_acquire)) {
            if (progress) progress();
            else sched_yield();
        }
        PMIX_INFO_DESTRUCT(&info);
        return done.status;
    }

    pmix_proc_t me_{};
    bool initialized_ = false;
    unsigned seq_ = 0;
};

}  // namespace

std::unique_ptr<Bootstrap> bootstrap_pmix(std::string* why_not) {
    auto b = std::make_unique<Pmix>();
    if (!b->open(why_not)) return nullptr;
    return b;
}

}  // namespace kishmem
