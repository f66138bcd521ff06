// Teams and contexts.
#include <vector>

#include "check.h"
#include "kishmem/log.h"

using namespace kishmem;
using namespace kishmem::api;

namespace {

// The contexts a split's configuration asks for.  A mask bit no version of the spec defines, a
// mask that asks for a field of a NULL config, or a negative count ends the job (on one PE: the
// others would wait in the split for it).
int config_contexts(const char* call, const char* which, const shmem_team_config_t* config, long mask) {
    if (mask & ~SHMEM_TEAM_NUM_CONTEXTS)
        fatal(call, "%s %#lx has bits no version of the spec defines (SHMEM_TEAM_NUM_CONTEXTS is %#lx)", which, mask,
              static_cast<long>(SHMEM_TEAM_NUM_CONTEXTS));
    if (!(mask & SHMEM_TEAM_NUM_CONTEXTS)) return 0;
    if (!config) fatal(call, "the config for %s %#lx is NULL", which, mask);
    if (config->num_contexts < 0) fatal(call, "num_contexts %d is negative", config->num_contexts);
    return config->num_contexts;
}

// Where a routine writes the team (or context) it makes: a NULL pointer ends the job.
template <class H>
void check_out(const char* call, const char* what, H* out) {
    check_init(call);
    if (!out) fatal(call, "%s is NULL: pass the address of the handle to set", what);
}

}  // namespace

extern "C" {

int shmem_team_my_pe(shmem_team_t team) {
    return team_given("shmem_team_my_pe", team) ? team->my_index : -1;
}

int shmem_team_n_pes(shmem_team_t team) {
    return team_given("shmem_team_n_pes", team) ? team->size() : -1;
}

K_ALIAS(int, team_my_pe, shmem_team_t team)
K_ALIAS(int, team_n_pes, shmem_team_t team)

int shmem_team_get_config(shmem_team_t team, long mask, shmem_team_config_t* config) {
    if (!team_given("shmem_team_get_config", team)) return -1;
    if (mask == 0) return 0;  // the spec: no action, config may be null
    if (mask & ~SHMEM_TEAM_NUM_CONTEXTS) {
        warn("shmem_team_get_config", "config_mask %#lx has bits no version of the spec defines", mask);
        return -1;
    }
    if (!config) {
        warn("shmem_team_get_config", "config is null with config_mask %#lx", mask);
        return -1;
    }
    if (mask & SHMEM_TEAM_NUM_CONTEXTS) config->num_contexts = team->num_contexts;
    return 0;
}

int shmem_team_translate_pe(shmem_team_t src, int src_pe, shmem_team_t dest) {
    const char* call = "shmem_team_translate_pe";
    const bool src_ok = team_given(call, src), dest_ok = team_given(call, dest);
    if (!src_ok || !dest_ok || src_pe < 0 || src_pe >= src->size()) return -1;
    return dest->index_of[src->members[src_pe]];
}

int shmem_team_split_strided(shmem_team_t parent, int start, int stride, int size, const shmem_team_config_t* config,
                             long mask, shmem_team_t* new_team) {
    const char* call = "shmem_team_split_strided";
    check_out(call, "new_team", new_team);
    *new_team = SHMEM_TEAM_INVALID;
    const int contexts = config_contexts(call, "config_mask", config, mask);
    if (!team_given(call, parent)) return -1;  // the spec: SHMEM_TEAM_INVALID as parent gives SHMEM_TEAM_INVALID
    kishmem_team* p = parent;
    // Every index start + i*stride must name a parent PE; stride 0 only with size 1.
    long last = static_cast<long>(start) + static_cast<long>(size - 1) * stride;
    if (size < 1 || start < 0 || start >= p->size() || last < 0 || last >= p->size() || (stride == 0 && size > 1)) {
        warn(call, "start %d, stride %d, size %d do not describe PEs of a parent team of %d PEs", start, stride, size,
             p->size());
        // Still take part in the parent's agreement so that the others do not wait forever.
        rt::team_from_list(p, {}, 0, call);
        return -1;
    }
    bool full = false;  // (no team slot left: nonzero on every PE of the parent, as the spec asks)
    *new_team = rt::team_split_strided(p, start, stride, size, contexts, call, &full);
    return full ? -1 : 0;
}

int shmem_team_split_2d(shmem_team_t parent, int xrange, const shmem_team_config_t* xconf, long xmask,
                        shmem_team_t* xteam, const shmem_team_config_t* yconf, long ymask, shmem_team_t* yteam) {
    const char* call = "shmem_team_split_2d";
    check_out(call, "xaxis_team", xteam);
    check_out(call, "yaxis_team", yteam);
    *xteam = *yteam = SHMEM_TEAM_INVALID;
    const int xcontexts = config_contexts(call, "xaxis_mask", xconf, xmask);
    const int ycontexts = config_contexts(call, "yaxis_mask", yconf, ymask);
    if (!team_given(call, parent)) return -1;
    kishmem_team* p = parent;
    const int n = p->size();
    if (xrange < 1) {
        warn(call, "xrange %d must be at least 1", xrange);
        return -1;
    }
    if (xrange > n) xrange = n;
    const int me = p->my_index, row = me / xrange, col = me % xrange;
    const int rows = (n + xrange - 1) / xrange;
    // Every PE makes every row team and every column team in the same order, so the parent's
    // agreements pair up; each PE keeps the ones it belongs to.
    bool full = false;  // some team could not be made (the same on every PE: each agreement is)
    for (int r = 0; r < rows; ++r) {
        std::vector<int> idx;
        for (int c = 0; c < xrange && r * xrange + c < n; ++c) idx.push_back(r * xrange + c);
        kishmem_team* t = rt::team_from_list(p, idx, xcontexts, call, &full);
        if (r == row) *xteam = t;
    }
    for (int c = 0; c < xrange; ++c) {
        std::vector<int> idx;
        for (int r = 0; r < rows && r * xrange + c < n; ++r) idx.push_back(r * xrange + c);
        kishmem_team* t = rt::team_from_list(p, idx, ycontexts, call, &full);
        if (c == col) *yteam = t;
    }
    if (!full) return 0;
    // The spec: if any team cannot be made, both handles are SHMEM_TEAM_INVALID on every PE;
    // the teams that were made go again (each by all of its members, which all get here).
    for (shmem_team_t* t : {xteam, yteam})
        if (*t != SHMEM_TEAM_INVALID) {
            rt::team_destroy(*t);
            *t = SHMEM_TEAM_INVALID;
        }
    return -1;
}

void shmem_team_destroy(shmem_team_t team) {
    const char* call = "shmem_team_destroy";
    if (!team_given(call, team)) return;
    kishmem_team* t = team;
    if (t->predefined) fatal(call, "SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be destroyed");
    rt::team_destroy(t);
}

// shmem_team_create_ctx and shmem_ctx_create: the checks and the words of the call the program made.
// A failure leaves *ctx as it was (1.6: "the context handle pointed to by ctx is not modified"),
// but for SHMEM_TEAM_INVALID, which sets it to SHMEM_CTX_INVALID (1.5's shmem_team_create_ctx).
static int create_ctx(const char* call, shmem_team_t team, long options, shmem_ctx_t* ctx) {
    check_out(call, "ctx", ctx);
    if (!team_given(call, team)) {
        *ctx = SHMEM_CTX_INVALID;
        return -1;
    }
    if (options & ~(SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE)) {
        warn(call, "unknown context options %#lx", options);
        return -1;
    }
    *ctx = rt::ctx_create(team, options, call);
    return 0;
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t* ctx) {
    return create_ctx("shmem_team_create_ctx", team, options, ctx);
}

int shmem_ctx_create(long options, shmem_ctx_t* ctx) { return create_ctx("shmem_ctx_create", SHMEM_TEAM_WORLD, options, ctx); }

void shmem_ctx_destroy(shmem_ctx_t ctx) {
    const char* call = "shmem_ctx_destroy";
    if (!ctx_given(call, ctx)) return;
    if (ctx == SHMEM_CTX_DEFAULT) fatal(call, "SHMEM_CTX_DEFAULT cannot be destroyed");
    rt::ctx_destroy(ctx);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t* team) {
    const char* call = "shmem_ctx_get_team";
    check_out(call, "team", team);
    if (!ctx_given(call, ctx)) {
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    *team = ctx->team;
    return 0;
}

// Sessions (1.6) are hints; kishmem issues every operation as it comes, so starting and
// stopping one only checks the arguments.
void shmem_ctx_session_start(shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t* config, long mask) {
    const char* call = "shmem_ctx_session_start";
    if (!ctx_given(call, ctx)) return;  // the spec: no action on SHMEM_CTX_INVALID
    if (mask & ~SHMEM_CTX_SESSION_TOTAL_OPS) fail_arg(call, "config_mask", mask);
    if ((mask & SHMEM_CTX_SESSION_TOTAL_OPS) && !config)
        fatal(call, "config is NULL while config_mask %#lx asks for its total_ops", mask);
    (void)options;  // any combination is allowed; none changes what kishmem does
}

void shmem_ctx_session_stop(shmem_ctx_t ctx) {
    const char* call = "shmem_ctx_session_stop";
    (void)ctx_given(call, ctx);  // no action on any valid context, nor on SHMEM_CTX_INVALID
}

void* shmem_team_ptr(shmem_team_t team, const void* dest, int pe) {
    if (!team_given("shmem_team_ptr", team) || pe < 0 || pe >= team->size() || !rt::is_symmetric(dest, 1)) return nullptr;
    return rt::ptr(dest, team->members[pe]);
}

}  // extern "C"
