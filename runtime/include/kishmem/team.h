// Teams and contexts as the runtime keeps them.  shmem_team_t / shmem_ctx_t of the C API point
// at these structs.
#pragma once
#include <cstdint>
#include <vector>

// SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED and SHMEM_CTX_DEFAULT point at these: libkishmem exports
// them (shmem_api/kishmem.map).
extern "C" {
struct kishmem_team;
struct kishmem_ctx;
extern __attribute__((visibility("default"))) kishmem_team kishmem_team_world_obj;
extern __attribute__((visibility("default"))) kishmem_team kishmem_team_shared_obj;
extern __attribute__((visibility("default"))) kishmem_ctx kishmem_ctx_default_obj;
}

struct kishmem_team {
    std::vector<int> members;        // world PE of each team PE, ascending team index
    std::vector<int> index_of;       // team index of each world PE, -1 when not a member
    int my_index = -1;
    int slot = -1;                   // runtime-reserved heap region of this team (sync, scratch)
    uint64_t epoch = 0;              // collective calls made on this team so far
    int num_contexts = 0;            // shmem_team_config_t.num_contexts
    int contexts_live = 0;
    bool predefined = false;         // WORLD and SHARED cannot be destroyed
    long* psync = nullptr;           // active sets (slot -1): the caller's pSync holds barrier flags
    bool live = false;
    int size() const { return static_cast<int>(members.size()); }
};

struct kishmem_ctx {
    int chan = 0;                    // the transport channel (independent completion stream)
    long options = 0;                // SHMEM_CTX_PRIVATE / SERIALIZED / NOSTORE
    kishmem_team* team = nullptr;    // PE numbers of this context's operations are team-relative
    bool live = false;
    uint64_t counts[5] = {};         // this PE's operations on the context (rt::OpCount, shmemx_pcntr_*)
};

namespace kishmem::rt {

kishmem_team* team_world();
kishmem_team* team_shared();

// Collective over `parent`: the new team, or nullptr for PEs not in it (and on exhaustion, when
// every PE of the parent gets nullptr, a warning and *full = true).  start/stride/size are
// parent-relative.
kishmem_team* team_split_strided(kishmem_team* parent, int start, int stride, int size, int num_contexts,
                                 const char* call, bool* full = nullptr);
// Collective over `parent`: a team of the given parent indices (in team order, the same on every caller).
kishmem_team* team_from_list(kishmem_team* parent, const std::vector<int>& parent_indices, int num_contexts,
                             const char* call, bool* full = nullptr);
void team_destroy(kishmem_team* t);
void team_sync(kishmem_team* t, const char* call);
// A handle is known when it is one the runtime handed out (a predefined team, or one made and
// perhaps destroyed since); valid when it is known and live.  Neither reads through an unknown
// handle, so any pointer may be asked about.
bool team_known(const kishmem_team* t);
bool team_valid(const kishmem_team* t);

// Contexts: a channel of its own where the transports have one to spare; `call` (the program's
// routine) names a failure.
kishmem_ctx* ctx_create(kishmem_team* team, long options, const char* call);
void ctx_destroy(kishmem_ctx* c);
bool ctx_known(const kishmem_ctx* c);
bool ctx_valid(const kishmem_ctx* c);  // known, live, and its team live

}  // namespace kishmem::rt
