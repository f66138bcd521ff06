// Library setup, exit and query routines.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include "check.h"
#include "kishmem/log.h"
#include "kishmem/env.h"
#include "shmem.h"

namespace kishmem::api {

bool g_check = true;

void fail_not_initialized(const char* call) {
    std::fprintf(stderr, "kishmem: %s: called %s shmem_init\n", call, rt::finalized() ? "after shmem_finalize, outside" : "before");
    std::fflush(stderr);
    std::_Exit(1);
}

// The query routines' answer, written to `out` (which must not be NULL).
int query_flag(const char* call, const char* what, int* out, bool yes) {
    if (!out) fatal(call, "%s is NULL: pass the address to write to", what);
    *out = yes ? 1 : 0;
    return 0;
}

}  // namespace kishmem::api

using namespace kishmem;

extern "C" {

int shmem_init_thread(int requested, int* provided) {
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
        std::fprintf(stderr, "kishmem: shmem_init_thread: requested thread level %d is not one of SHMEM_THREAD_*\n", requested);
        return -1;
    }
    api::g_check = env::check();
    // Read (and so checked) in every build, whether or not this PE makes a GPU heap.
    if (const long dev = env::device_id(); dev < -1)
        fatal("shmem_init", "KISHMEM_DEVICE_ID=%ld: expected a GPU index (0, 1, ...) or -1 (the PE's rank among the "
                            "PEs of its host)", dev);
    int level = rt::init(requested);
    if (provided) *provided = level;
    return 0;
}

void shmem_init(void) { shmem_init_thread(SHMEM_THREAD_SINGLE, nullptr); }

void shmem_query_thread(int* provided) {
    api::check_init("shmem_query_thread");
    if (!provided) fatal("shmem_query_thread", "provided is NULL: pass the address to write to");
    *provided = rt::thread_level();
}

int shmem_query_initialized(int* initialized) { return api::query_flag("shmem_query_initialized", "initialized", initialized, rt::initialized()); }
int shmem_query_finalized(int* finalized) { return api::query_flag("shmem_query_finalized", "finalized", finalized, rt::finalized()); }

// Sandia OpenSHMEM's names (kishmem/shmemx_sos.h).
int shmemx_query_initialized(int* initialized) {
    return api::query_flag("shmemx_query_initialized", "initialized", initialized, rt::initialized());
}

double shmemx_wtime(void) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

char* shmemx_nodename(void) {
    static char name[256];
    if (!name[0] && gethostname(name, sizeof name - 1) != 0) std::snprintf(name, sizeof name, "unknown");
    return name;
}

// Before shmem_init: an error (nothing to end). Again after it: nothing more to do (a program
// whose layers each end the library, as with MPI and SHMEM together, is not stopped for it).
void shmem_finalize(void) {
    if (!rt::initialized() && !rt::finalized()) api::fail_not_initialized("shmem_finalize");
    rt::finalize();
}

void shmem_global_exit(int status) { rt::global_exit(status); }

int shmem_my_pe(void) {
    api::check_init("shmem_my_pe");
    return rt::my_pe();
}

int shmem_n_pes(void) {
    api::check_init("shmem_n_pes");
    return rt::n_pes();
}

K_ALIAS(int, my_pe, void)
K_ALIAS(int, n_pes, void)

int shmem_pe_accessible(int pe) {
    api::check_init("shmem_pe_accessible");
    return pe >= 0 && pe < rt::n_pes();
}

int shmem_addr_accessible(const void* addr, int pe) {
    api::check_init("shmem_addr_accessible");
    return pe >= 0 && pe < rt::n_pes() && rt::is_symmetric(addr, 1);
}

void* shmem_ptr(const void* dest, int pe) {
    api::check_init("shmem_ptr");
    if (pe < 0 || pe >= rt::n_pes() || !rt::is_symmetric(dest, 1)) return nullptr;
    return rt::ptr(dest, pe);
}

K_ALIAS(void*, ptr, const void* dest, int pe)

void shmem_info_get_version(int* major, int* minor) {
    if (!major || !minor) fatal("shmem_info_get_version", "%s is NULL: pass the address to write to", major ? "minor" : "major");
    *major = SHMEM_MAJOR_VERSION;
    *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char* name) {
    if (!name) fatal("shmem_info_get_name", "name is NULL: pass SHMEM_MAX_NAME_LEN bytes to write to");
    std::strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
    name[SHMEM_MAX_NAME_LEN - 1] = '\0';
}

}  // extern "C"

namespace kishmem::api {

void fail_pe(const char* call, int pe, int npes) {
    fatal(call, "PE %d is out of range: %s has PEs 0..%d", pe, npes == rt::n_pes() ? "this job" : "the team", npes - 1);
}

void fail_null(const char* call, const char* what) {
    fatal(call, "%s is NULL while the call moves data (NULL is allowed only when nelems is 0)", what);
}

void fail_null_word(const char* call, const char* what) {
    fatal(call, "%s is NULL: it must be a symmetric address", what);
}

void fail_sym(const char* call, const char* what, const void* p, std::size_t bytes) {
    if (!p) fail_null(call, what);
    // (where p itself is symmetric the range is what is wrong, however far it runs)
    if (rt::in_runtime_part(p))
        fatal(call, "%s %p (%zu bytes) is in the part of the symmetric heap that kishmem keeps for itself, not in a block "
              "that shmem_malloc returned", what, p, bytes);
    if (rt::in_heap(p, 1) && rt::in_freed(p))
        fatal(call, "%s %p (%zu bytes) is in a symmetric block that was freed (shmem_free) and not allocated again",
              what, p, bytes);
    if (rt::in_heap(p, 1)) {
        const std::size_t room = rt::allocation_room(p);
        if (room) fatal(call, "%s %p (%zu bytes) runs past the end of its symmetric block, which has %zu bytes from there on", what,
                        p, bytes, room);
        fatal(call, "%s %p (%zu bytes) is in no symmetric block%s", what, p, bytes,
              rt::in_heap(p, bytes) ? " and runs into one" : " and runs past the end of the symmetric heap");
    }
    std::size_t room = 0;
    if (const char* name = rt::in_static(p, 1) ? rt::static_variable(p, &room) : nullptr)
        fatal(call, "%s %p (%zu bytes) runs past the end of the global or static variable '%s', which has %zu bytes from there on",
              what, p, bytes, name, room);
    const char* b = rt::heap_base();
    fatal(call, "%s %p (%zu bytes) is not within the symmetric heap [%p, %p) and is not a global or static variable", what, p, bytes,
          static_cast<const void*>(b), static_cast<const void*>(b + rt::heap_size()));
}

// A bad handle is named by its value and by what is wrong with it; only a handle the runtime
// knows (one it handed out) is read.
void fail_ctx(const char* call, const void* ctx) {
    const auto* c = static_cast<const kishmem_ctx*>(ctx);
    if (!c) fatal(call, "context SHMEM_CTX_INVALID names no context");
    if (!rt::ctx_known(c))
        fatal(call, "context %p is not a context handle: no shmem_ctx_create or shmem_team_create_ctx returned it "
                    "(an uninitialized or overwritten handle?)", ctx);
    if (!c->live) fatal(call, "context %p was destroyed (shmem_ctx_destroy)", ctx);
    fatal(call, "context %p belongs to team %p, which was destroyed (shmem_team_destroy)", ctx,
          static_cast<const void*>(c->team));
}

void fail_team(const char* call, const void* team) {
    const auto* t = static_cast<const kishmem_team*>(team);
    if (!t) fatal(call, "team SHMEM_TEAM_INVALID names no team");
    if (!rt::team_known(t))
        fatal(call, "team %p is not a team handle: no team split or shmemx_team_from_mpi_comm returned it (an "
                    "uninitialized or overwritten handle?)", team);
    fatal(call, "team %p was destroyed (shmem_team_destroy)", team);
}

void fail_arg(const char* call, const char* what, long long value) { fatal(call, "%s %lld is invalid", what, value); }

void fail_overflow(const char* call, std::size_t nelems, std::size_t elem) {
    fatal(call, "%zu elements of %zu bytes overflow the address range (more than 2^64 bytes)", nelems, elem);
}

void fail_align(const char* call, const char* what, const void* p, std::size_t align) {
    fatal(call, "%s %p is not aligned to %zu bytes: an atomic operation needs its natural alignment", what, p, align);
}

}  // namespace kishmem::api
