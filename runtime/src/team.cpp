// Teams and contexts.  A team is a list of world PEs plus a runtime heap region (barrier slots,
// collective scratch) that its members agree on when the team is made.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <mutex>

#include "state.h"

extern "C" {
kishmem_team kishmem_team_world_obj;
kishmem_team kishmem_team_shared_obj;
kishmem_ctx kishmem_ctx_default_obj;
}

namespace kishmem {

void device_team_set(int slot, const void* key, const std::vector<int>& members, int my_index);
void device_team_clear(int slot);

namespace {
std::mutex g_ctx_mutex;

// Team and context objects.  A handle is only read through once `owns` has found it among the
// objects handed out: chunk k holds kFirst << k objects and never moves, so a garbage handle
// (never created, corrupted) is recognised by its address alone, without a read, and the check
// needs no lock (a chunk is published before the count that makes it visible).  A destroyed
// object stays allocated for a while, marked dead, so that a stale handle is recognised instead of
// reading freed memory; it is reused once more than kKeepDead objects are dead (oldest first), so
// memory stays bounded by the most objects live at once, and shmem_finalize frees them all.
template <class T>
class Pool {
public:
    static constexpr std::size_t kKeepDead = 16;
    T* get(const char* call) {
        std::lock_guard<std::mutex> lock(mu_);
        if (dead_.size() > kKeepDead) {
            T* p = dead_.front();
            dead_.pop_front();
            *p = T{};
            return p;
        }
        int n = n_.load(std::memory_order_relaxed);
        if (n == 0 || used_ == (kFirst << (n - 1))) {
            if (n == kChunks) fatal(call, "more than %zu objects of this kind were made", (kFirst << kChunks) - kFirst);
            chunk_[n].store(new T[kFirst << n], std::memory_order_relaxed);
            n_.store(++n, std::memory_order_release);
            used_ = 0;
        }
        return chunk_[n - 1].load(std::memory_order_relaxed) + used_++;
    }
    void put(T* p) {
        std::lock_guard<std::mutex> lock(mu_);
        dead_.push_back(p);
    }
    // Whether p is the address of one of this pool's objects (live or dead).
    bool owns(const void* p) const {
        const uintptr_t a = reinterpret_cast<uintptr_t>(p);
        const int n = n_.load(std::memory_order_acquire);
        for (int k = 0; k < n; ++k) {
            const uintptr_t b = reinterpret_cast<uintptr_t>(chunk_[k].load(std::memory_order_relaxed));
            if (a >= b && a - b < (kFirst << k) * sizeof(T)) return (a - b) % sizeof(T) == 0;
        }
        return false;
    }
    void clear() {
        std::lock_guard<std::mutex> lock(mu_);
        const int n = n_.exchange(0, std::memory_order_acq_rel);
        for (int k = 0; k < n; ++k) delete[] chunk_[k].exchange(nullptr, std::memory_order_relaxed);
        dead_.clear();
        used_ = 0;
    }

private:
    static constexpr std::size_t kFirst = 16;
    static constexpr int kChunks = 24;
    std::mutex mu_;
    std::atomic<T*> chunk_[kChunks] = {};
    std::atomic<int> n_{0};
    std::size_t used_ = 0;  // objects handed out from the last chunk
    std::deque<T*> dead_;
};
Pool<kishmem_team> g_teams;
Pool<kishmem_ctx> g_ctxs;

void fill_team(kishmem_team* t, std::vector<int> members, int slot, int num_contexts) {
    State& s = state();
    t->members = std::move(members);
    t->index_of.assign(s.npes, -1);
    for (int i = 0; i < t->size(); ++i) t->index_of[t->members[i]] = i;
    t->my_index = t->index_of[s.pe];
    t->slot = slot;
    t->epoch = 0;
    t->num_contexts = num_contexts;
    t->contexts_live = 0;
    t->live = true;
    s.team_slots_used |= 1ull << slot;
    device_team_set(slot, t, t->members, t->my_index);
}
}  // namespace

// Called by init once the route table exists.
void teams_init() {
    State& s = state();
    std::vector<int> all(s.npes), local;
    for (int r = 0; r < s.npes; ++r) {
        all[r] = r;
        if (s.local[r]) local.push_back(r);
    }
    fill_team(&kishmem_team_world_obj, all, kTeamSlotWorld, 0);
    fill_team(&kishmem_team_shared_obj, local, kTeamSlotShared, 0);
    kishmem_team_world_obj.predefined = kishmem_team_shared_obj.predefined = true;
    s.team_slots_used |= 1ull << kTeamSlotActiveSets;  // the active-set routines' scratch, never a team's
    kishmem_ctx_default_obj.chan = 0;
    kishmem_ctx_default_obj.team = &kishmem_team_world_obj;
    kishmem_ctx_default_obj.live = true;
    s.chan_refs.assign(s.nchan, 0);
    s.chan_refs[0] = 1;
}

void teams_fini() {
    kishmem_team_world_obj.live = kishmem_team_shared_obj.live = false;
    kishmem_ctx_default_obj.live = false;
    g_ctxs.clear();
    g_teams.clear();
}

}  // namespace kishmem

namespace kishmem::rt {

kishmem_team* team_world() { return &kishmem_team_world_obj; }
kishmem_team* team_shared() { return &kishmem_team_shared_obj; }
// team_valid / ctx_valid are on the path of every call with a team or a context other than the
// default one: the lookups are inline here, not calls to team_known / ctx_known.
static inline bool is_team(const kishmem_team* t) {
    return t == &kishmem_team_world_obj || t == &kishmem_team_shared_obj || g_teams.owns(t);
}
static inline bool is_ctx(const kishmem_ctx* c) { return c == &kishmem_ctx_default_obj || g_ctxs.owns(c); }
bool team_known(const kishmem_team* t) { return is_team(t); }
bool team_valid(const kishmem_team* t) { return is_team(t) && t->live; }

kishmem_team* team_from_list(kishmem_team* parent, const std::vector<int>& idx, int num_contexts, const char* call,
                             bool* full) {
    State& s = state();
    // Agree on a free team region (OR of every member's used set) and on the arguments.
    uint64_t key = 1469598103934665603ull;
    for (int i : idx) key = (key ^ static_cast<uint64_t>(i + 1)) * 1099511628211ull;
    key ^= static_cast<uint64_t>(idx.size()) << 40;
    static const ReduceOp ops[4] = {ReduceOp::bit_or, ReduceOp::min, ReduceOp::max, ReduceOp::min};
    uint64_t w[4] = {s.team_slots_used, key, key, 0};
    team_allreduce(parent, CallTag{call, key, idx.size(), CallArgs::members}, w, ops);
    if (w[1] != w[2])
        fatal(call, "the PEs of the parent team passed different arguments (every PE of the parent must pass the "
                    "same start, stride and size)");
    int slot = -1;
    for (int b = 0; b < kMaxTeams; ++b)
        if (!(w[0] >> b & 1)) {
            slot = b;
            break;
        }
    if (slot < 0) {  // (every PE of the parent finds the same: the set is agreed)
        warn(call, "no team can be made: %d teams are live on some PE of the parent team (the limit); destroy "
                   "teams that are no longer used", kMaxTeams);
        if (full) *full = true;
        return nullptr;
    }
    std::vector<int> members;
    members.reserve(idx.size());
    for (int i : idx) members.push_back(parent->members[i]);
    if (std::find(members.begin(), members.end(), s.pe) == members.end()) return nullptr;
    kishmem_team* t = g_teams.get(call);
    fill_team(t, std::move(members), slot, num_contexts);
    return t;
}

kishmem_team* team_split_strided(kishmem_team* parent, int start, int stride, int size, int num_contexts,
                                 const char* call, bool* full) {
    std::vector<int> idx;
    idx.reserve(size);
    for (int i = 0; i < size; ++i) idx.push_back(start + i * stride);
    return team_from_list(parent, idx, num_contexts, call, full);
}

void team_destroy(kishmem_team* t) {
    State& s = state();
    quiet_all();
    team_sync(t, "shmem_team_destroy");
    // This PE has seen every flag its peers send it in this last call: nothing more arrives in
    // its region until the slot's next team, which needs this PE's next call on the parent.
    std::memset(s.sync_base + team_region_offset(t), 0, kTeamRegion);
    device_team_clear(t->slot);
    s.team_slots_used &= ~(1ull << t->slot);
    // The object stays a while, marked dead (Pool): a stale handle is then recognised as
    // destroyed instead of reading freed memory.  Its member lists go now.
    t->live = false;
    t->members = {};
    t->index_of = {};
    g_teams.put(t);
}

kishmem_ctx* ctx_create(kishmem_team* team, long options, const char* call) {
    State& s = state();
    std::lock_guard<std::mutex> lock(g_ctx_mutex);
    // The least used channel other than the default context's; shared only when all are taken.
    int chan = 0;
    for (int c = 1; c < s.nchan; ++c)
        if (chan == 0 || s.chan_refs[c] < s.chan_refs[chan]) chan = c;
    ++s.chan_refs[chan];
    kishmem_ctx* c = g_ctxs.get(call);
    c->chan = chan;
    c->options = options;
    c->team = team;
    c->live = true;
    ++team->contexts_live;
    return c;
}

void ctx_destroy(kishmem_ctx* c) {
    State& s = state();
    quiet(c->chan);
    std::lock_guard<std::mutex> lock(g_ctx_mutex);
    --s.chan_refs[c->chan];
    --c->team->contexts_live;
    c->live = false;  // kept a while, like destroyed teams, so that a stale handle is recognised
    g_ctxs.put(c);
}

bool ctx_known(const kishmem_ctx* c) { return is_ctx(c); }
// A known context's team is a known team (ctx_create takes only valid ones).
bool ctx_valid(const kishmem_ctx* c) { return is_ctx(c) && c->live && c->team->live; }

}  // namespace kishmem::rt
