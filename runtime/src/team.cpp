// Teams and contexts.  A team is a list of world PEs plus a runtime heap region (barrier slots,
// collective scratch) that its members agree on when the team is made.
#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
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

// Team and context objects.  A destroyed one stays allocated for a while, marked dead, so that a
// stale handle is recognised instead of reading freed memory; it is reused once more than
// kKeepDead objects are dead (oldest first), so memory stays bounded by the most objects live at
// once, and shmem_finalize frees them all.
template <class T>
class Pool {
public:
    static constexpr std::size_t kKeepDead = 16;
    T* get() {
        std::lock_guard<std::mutex> lock(mu_);
        if (dead_.size() > kKeepDead) {
            T* p = dead_.front();
            dead_.pop_front();
            *p = T{};
            return p;
        }
        all_.push_back(std::make_unique<T>());
        return all_.back().get();
    }
    void put(T* p) {
        std::lock_guard<std::mutex> lock(mu_);
        dead_.push_back(p);
    }
    void clear() {
        std::lock_guard<std::mutex> lock(mu_);
        dead_.clear();
        all_.clear();
    }

private:
    std::mutex mu_;
    std::vector<std::unique_ptr<T>> all_;
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
bool team_valid(const kishmem_team* t) { return t && t->live; }

kishmem_team* team_from_list(kishmem_team* parent, const std::vector<int>& idx, int num_contexts, const char* call) {
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
    if (slot < 0) {
        warn(call, "no team can be made: %d teams are live on some PE of the parent team (the limit); destroy "
                   "teams that are no longer used", kMaxTeams);
        return nullptr;
    }
    std::vector<int> members;
    members.reserve(idx.size());
    for (int i : idx) members.push_back(parent->members[i]);
    if (std::find(members.begin(), members.end(), s.pe) == members.end()) return nullptr;
    kishmem_team* t = g_teams.get();
    fill_team(t, std::move(members), slot, num_contexts);
    return t;
}

kishmem_team* team_split_strided(kishmem_team* parent, int start, int stride, int size, int num_contexts,
                                 const char* call) {
    std::vector<int> idx;
    idx.reserve(size);
    for (int i = 0; i < size; ++i) idx.push_back(start + i * stride);
    return team_from_list(parent, idx, num_contexts, call);
}

void team_destroy(kishmem_team* t) {
    State& s = state();
    quiet_all();
    team_sync(t, "shmem_team_destroy");
    // Every member has left the last barrier: no flag is in flight into this region.
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

kishmem_ctx* ctx_create(kishmem_team* team, long options) {
    State& s = state();
    std::lock_guard<std::mutex> lock(g_ctx_mutex);
    // The least used channel other than the default context's; shared only when all are taken.
    int chan = 0;
    for (int c = 1; c < s.nchan; ++c)
        if (chan == 0 || s.chan_refs[c] < s.chan_refs[chan]) chan = c;
    ++s.chan_refs[chan];
    kishmem_ctx* c = g_ctxs.get();
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

bool ctx_valid(const kishmem_ctx* c) { return c && c->live && c->team->live; }

}  // namespace kishmem::rt
