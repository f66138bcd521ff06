// Argument checks of the C API: cheap, on by default, off with KISHMEM_CHECK=0 (the checks of
// handles stay on).  Each failure is one message naming the call, this PE and the bad value,
// then the job ends.  Also: resolving a context and a context-relative PE to a channel and a
// world PE, and the macro that defines a routine with and without a context.
#pragma once
#include <cstddef>

#include "kishmem/log.h"  // ApiCallScope
#include "kishmem/runtime.h"
#include "kishmem/team.h"
#include "shmem.h"
#include "shmemx.h"

namespace kishmem::api {

extern bool g_check;  // KISHMEM_CHECK, read at init

[[noreturn]] void fail_not_initialized(const char* call);
[[noreturn]] void fail_pe(const char* call, int pe, int npes);
[[noreturn]] void fail_null(const char* call, const char* what);
[[noreturn]] void fail_sym(const char* call, const char* what, const void* p, std::size_t bytes);
[[noreturn]] void fail_ctx(const char* call, const void* ctx);
[[noreturn]] void fail_team(const char* call, const void* team);
[[noreturn]] void fail_arg(const char* call, const char* what, long long value);
[[noreturn]] void fail_overflow(const char* call, std::size_t nelems, std::size_t elem);
[[noreturn]] void fail_align(const char* call, const char* what, const void* p, std::size_t align);
[[noreturn]] void fail_null_word(const char* call, const char* what);

// Bytes of nelems elements of elem bytes; a count whose size overflows the address range (it
// would wrap to a small transfer) is an error.
inline std::size_t bytes_of(const char* call, std::size_t nelems, std::size_t elem) {
    std::size_t bytes;
    if (__builtin_expect(__builtin_mul_overflow(nelems, elem, &bytes), 0)) fail_overflow(call, nelems, elem);
    return bytes;
}

inline void check_init(const char* call) {
    if (__builtin_expect(!rt::initialized(), 0)) fail_not_initialized(call);
}

// A symmetric buffer of `bytes` bytes (rt::is_live: within the heap or the static data, and not
// in a block that was freed; fail_sym says which).
inline void check_sym(const char* call, const char* what, const void* sym, std::size_t bytes) {
    check_init(call);
    if (g_check && bytes && __builtin_expect(!rt::is_live(sym, bytes), 0)) fail_sym(call, what, sym, bytes);
}

// A local buffer (the side of a transfer that need not be symmetric): NULL only when nothing moves.
inline void check_local(const char* call, const char* what, const void* p, std::size_t bytes) {
    if (g_check && bytes && __builtin_expect(p == nullptr, 0)) fail_null(call, what);
}

// Team and context handles are checked whatever KISHMEM_CHECK says: the runtime recognises any
// pointer without reading through it (rt::team_valid), so a bad handle ends the job with its
// value instead of a crash.
inline kishmem_team* team_of(const char* call, shmem_team_t team) {
    check_init(call);
    if (__builtin_expect(!rt::team_valid(team), 0)) fail_team(call, team);
    return team;
}

// For the calls whose spec defines what SHMEM_TEAM_INVALID does: false for it (the caller does
// that), true for a live team; any other handle ends the job (the spec leaves it undefined).
inline bool team_given(const char* call, shmem_team_t team) {
    check_init(call);
    if (team == SHMEM_TEAM_INVALID) return false;
    if (__builtin_expect(!rt::team_valid(team), 0)) fail_team(call, team);
    return true;
}

// The same for contexts: false for SHMEM_CTX_INVALID, true for SHMEM_CTX_DEFAULT or a live context.
inline bool ctx_given(const char* call, shmem_ctx_t ctx) {
    check_init(call);
    if (ctx == SHMEM_CTX_INVALID) return false;
    if (ctx != SHMEM_CTX_DEFAULT && __builtin_expect(!rt::ctx_valid(ctx), 0)) fail_ctx(call, ctx);
    return true;
}

// Where an operation on `ctx` towards `pe` (relative to the context's team) goes.
struct Target {
    int chan;
    int pe;  // world PE
    kishmem_ctx* ctx;
    // n operations of `kind` issued through this target (shmemx_pcntr_*).
    void count(rt::OpKind kind, uint64_t n = 1) const { rt::count_ops(ctx, chan, pe, kind, n); }
};

inline Target target(const char* call, shmem_ctx_t ctx, int pe) {
    check_init(call);
    if (__builtin_expect(ctx == SHMEM_CTX_DEFAULT, 1)) {
        if (g_check && __builtin_expect(pe < 0 || pe >= rt::n_pes(), 0)) fail_pe(call, pe, rt::n_pes());
        return {0, pe, SHMEM_CTX_DEFAULT};
    }
    if (__builtin_expect(!rt::ctx_valid(ctx), 0)) fail_ctx(call, ctx);
    const kishmem_team* t = ctx->team;
    if (__builtin_expect(pe < 0 || pe >= t->size(), 0)) fail_pe(call, pe, t->size());
    return {ctx->chan, t->members[pe], ctx};
}

// A call that names a PE and a symmetric address of `bytes` bytes (any address when bytes is 0:
// zero-length operations may pass NULL, as the spec allows).
inline Target target_sym(const char* call, shmem_ctx_t ctx, int pe, const char* what, const void* sym,
                         std::size_t bytes) {
    Target t = target(call, ctx, pe);
    if (g_check && bytes && __builtin_expect(!rt::is_live(sym, bytes), 0)) fail_sym(call, what, sym, bytes);
    return t;
}

// A transfer of `bytes` bytes between the symmetric `sym` on `pe` and this PE's `local` buffer,
// both checked in one branch when data moves (zero-length transfers may pass NULL for either).
inline Target target_xfer(const char* call, shmem_ctx_t ctx, int pe, const char* sym_what, const void* sym,
                          const char* local_what, const void* local, std::size_t bytes) {
    Target t = target(call, ctx, pe);
    if (g_check && bytes) {
        if (__builtin_expect(!rt::is_live(sym, bytes), 0)) fail_sym(call, sym_what, sym, bytes);
        if (__builtin_expect(local == nullptr, 0)) fail_null(call, local_what);
    }
    return t;
}

// One word the call updates, reads or waits on in place (a signal, a lock): symmetric and
// naturally aligned (a load/store peer would tear it).
inline void check_word(const char* call, const char* what, const void* p, std::size_t width) {
    check_init(call);
    if (!g_check) return;
    if (__builtin_expect(!p, 0)) fail_null_word(call, what);
    if (__builtin_expect(!rt::is_live(p, width), 0)) fail_sym(call, what, p, width);
    if (__builtin_expect(reinterpret_cast<uintptr_t>(p) % width != 0, 0)) fail_align(call, what, p, width);
}

// An atomic on `width` bytes at `sym`: also naturally aligned.
inline Target target_amo(const char* call, shmem_ctx_t ctx, int pe, const char* what, const void* sym,
                         std::size_t width) {
    Target t = target(call, ctx, pe);
    check_word(call, what, sym, width);
    return t;
}

// A counter of Sandia OpenSHMEM's counting operations (shmemx_ct_t): a live, aligned 64-bit word
// of the symmetric heap, as shmemx_ct_create made it.
bool ct_made(const void* ct);  // shmemx_ct_create returned it and shmemx_ct_free did not take it
inline uint64_t* check_ct(const char* call, shmemx_ct_t ct) {
    check_init(call);
    if (__builtin_expect(!ct || !rt::is_live(ct, 8) || !ct_made(ct), 0))
        fatal(call, "ct %p is not a counter made by shmemx_ct_create (or it was freed)", static_cast<void*>(ct));
    return reinterpret_cast<uint64_t*>(ct);
}

inline int chan_of(const char* call, shmem_ctx_t ctx) {
    check_init(call);
    if (ctx == SHMEM_CTX_DEFAULT) return 0;
    if (!rt::ctx_valid(ctx)) fail_ctx(call, ctx);
    return ctx->chan;
}

}  // namespace kishmem::api

// Defines shmem_NAME(PARAMS) and shmem_ctx_NAME(shmem_ctx_t, PARAMS) with one body, in which
// `call_` is the routine's name (for messages) and `ctx_` the context.  BODY is parenthesised.
// Each shmem_NAME and shmem_ctx_NAME is also exported as kishmem_h_shmem_NAME /
// kishmem_h_shmem_ctx_NAME: the host half of the __host__ __device__ routines that shmem.h
// defines under nvcc calls it (see shmem_device.h).
#define K_STRIP(...) __VA_ARGS__
#define K_ALIAS(RET, NAME, ...) \
    __attribute__((visibility("default"))) RET kishmem_h_shmem_##NAME(__VA_ARGS__) __attribute__((alias("shmem_" #NAME)));
// K_PAIR(PFX, ...) defines PFX##NAME and PFX##ctx_##NAME (PFX: shmem_ or shmemx_, the latter for
// the names other implementations export as extensions of the same routines).
#define K_PAIR(PFX, RET, NAME, BODY, ...)                                                         \
    RET PFX##NAME(__VA_ARGS__) {                                                                  \
        const char* call_ = #PFX #NAME;                                                           \
        shmem_ctx_t ctx_ = SHMEM_CTX_DEFAULT;                                                     \
        K_STRIP BODY;                                                                             \
    }                                                                                             \
    RET PFX##ctx_##NAME(shmem_ctx_t ctx_, __VA_ARGS__) {                                          \
        const char* call_ = #PFX "ctx_" #NAME;                                                    \
        K_STRIP BODY;                                                                             \
    }
#define K_BOTH(RET, NAME, BODY, ...)                                                              \
    K_PAIR(shmem_, RET, NAME, BODY, __VA_ARGS__)                                                  \
    K_ALIAS(RET, NAME, __VA_ARGS__)                                                               \
    K_ALIAS(RET, ctx_##NAME, shmem_ctx_t, __VA_ARGS__)
#define K_X(RET, NAME, BODY, ...) K_PAIR(shmemx_, RET, NAME, BODY, __VA_ARGS__)
