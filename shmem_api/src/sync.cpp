// Ordering, barriers, point-to-point synchronization, signals and locks.
#include <cstdint>

#include "check.h"
#include "kishmem/log.h"
#include "kishmem/vocab.h"

// The spec's comparison constants are kishmem::Cmp, the one numbering host and device waits use.
static_assert(SHMEM_CMP_EQ == static_cast<int>(kishmem::Cmp::eq) && SHMEM_CMP_NE == static_cast<int>(kishmem::Cmp::ne) &&
                  SHMEM_CMP_GT == static_cast<int>(kishmem::Cmp::gt) && SHMEM_CMP_GE == static_cast<int>(kishmem::Cmp::ge) &&
                  SHMEM_CMP_LT == static_cast<int>(kishmem::Cmp::lt) && SHMEM_CMP_LE == static_cast<int>(kishmem::Cmp::le),
              "shmem.h's SHMEM_CMP_* and kishmem/vocab.h's Cmp agree");

namespace kishmem::api {

template <class T>
inline T load(const T* p) {
    if (__builtin_expect(rt::heap_on_device(), 0)) {
        T v;
        rt::load_local(&v, p, sizeof v);
        return v;
    }
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

inline void check_cmp(const char* call, int cmp) {
    if (!cmp_valid(cmp))
        fatal(call, "comparison operator %d is not one of SHMEM_CMP_EQ/NE/GT/GE/LT/LE", cmp);
}

// The arrays forms: element i takes part unless status[i] is nonzero; `ref` is one value or,
// for the _vector forms, one per element.
template <class T>
struct Cond {
    const T* ivars;
    std::size_t n;
    const int* status;
    int cmp;
    const T* refs;  // nullptr: every element compares with `ref`
    T ref;
    bool active(std::size_t i) const { return !status || !status[i]; }
    bool met(std::size_t i) const { return compare(load(ivars + i), static_cast<Cmp>(cmp), refs ? refs[i] : ref); }
};

// What every wait and test does first: check its arguments (`bytes` of variables named `what`,
// each `width` bytes and so aligned), and serve peers, even when it returns at once.
inline void wait_entry(const char* call, const char* what, const void* ivars, std::size_t bytes, std::size_t width,
                       int cmp) {
    if (bytes) {
        check_sym(call, what, ivars, bytes);
        if (g_check && reinterpret_cast<uintptr_t>(ivars) % width != 0) fail_align(call, what, ivars, width);
    } else {
        check_init(call);
    }
    check_cmp(call, cmp);
    rt::progress_if_needed();
}

// The arrays of the _all / _any / _some forms besides ivars (ivars_bytes): the _vector forms'
// cmp_values and the _some forms' indices must be there, and no two of ivars, indices and status
// may overlap (the spec's words).
enum ArrayForm : unsigned { kOneValue = 0, kVector = 1, kSome = 2 };
void check_arrays(const char* call, const void* ivars, std::size_t ivars_bytes, std::size_t n, const int* status,
                  const void* refs, unsigned form, const std::size_t* idx) {
    if ((form & kVector) && !refs)
        fatal(call, "cmp_values is NULL: a _vector form compares ivars[i] with cmp_values[i] (nelems %zu)", n);
    if ((form & kSome) && !idx) fatal(call, "indices is NULL: it receives up to nelems (%zu) indices", n);
    struct Range {
        const char* name;
        uintptr_t lo, hi;
    };
    const auto at = [](const void* p) { return reinterpret_cast<uintptr_t>(p); };
    const Range r[3] = {{"ivars", at(ivars), at(ivars) + ivars_bytes},
                        {"indices", at(idx), idx ? at(idx) + n * sizeof *idx : at(idx)},
                        {"status", at(status), status ? at(status) + n * sizeof *status : at(status)}};
    for (int a = 0; a < 3; ++a)
        for (int b = a + 1; b < 3; ++b)
            if (r[a].lo < r[a].hi && r[b].lo < r[b].hi && r[a].lo < r[b].hi && r[b].lo < r[a].hi)
                fatal(call, "%s %p and %s %p overlap (nelems %zu): the spec asks that they do not", r[a].name,
                      reinterpret_cast<void*>(r[a].lo), r[b].name, reinterpret_cast<void*>(r[b].lo), n);
}

template <class T>
inline Cond<T> cond(const char* call, T* ivars, std::size_t n, const int* status, int cmp, const T* refs, T ref,
                    unsigned form = kOneValue, const std::size_t* idx = nullptr) {
    const std::size_t bytes = bytes_of(call, n, sizeof(T));  // (a count whose size wraps is refused, not looped over)
    wait_entry(call, "ivars", ivars, bytes, sizeof(T), cmp);
    if (g_check && n && (form != kOneValue || status)) check_arrays(call, ivars, bytes, n, status, refs, form, idx);
    return Cond<T>{ivars, n, status, cmp, refs, ref};
}

template <class T>
inline std::size_t count_active(const Cond<T>& c) {
    std::size_t k = 0;
    for (std::size_t i = 0; i < c.n; ++i) k += c.active(i);
    return k;
}

// test_all: 1 when every active element meets the condition (also when none is active).
template <class T>
inline int test_all(const Cond<T>& c) {
    for (std::size_t i = 0; i < c.n; ++i)
        if (c.active(i) && !c.met(i)) return 0;
    return 1;
}

// test_any: an index of an active element that meets it, SIZE_MAX when none does.  The search
// starts after the index this thread last found in the same array, so that calling again and
// again reaches every element that meets the condition, not only the first one (the spec: a
// series of calls must eventually return each), whatever other arrays are tested in between.
// Each thread keeps the position of its last kAnyArrays arrays, the oldest replaced first.
struct AnyNext {
    const void* ivars = nullptr;
    std::size_t next = 0;
};
constexpr int kAnyArrays = 16;
inline thread_local AnyNext g_any_next[kAnyArrays];
inline thread_local unsigned g_any_oldest = 0;
inline std::size_t& any_next(const void* ivars) {
    for (AnyNext& a : g_any_next)
        if (a.ivars == ivars) return a.next;
    AnyNext& a = g_any_next[g_any_oldest++ % kAnyArrays];
    a = AnyNext{ivars, 0};
    return a.next;
}
template <class T>
inline std::size_t test_any(const Cond<T>& c) {
    if (c.n == 0) return SIZE_MAX;
    std::size_t& next = any_next(c.ivars);
    const std::size_t start = next % c.n;
    for (std::size_t k = 0; k < c.n; ++k) {
        std::size_t i = start + k < c.n ? start + k : start + k - c.n;
        if (c.active(i) && c.met(i)) {
            next = i + 1;
            return i;
        }
    }
    return SIZE_MAX;
}

// test_some: how many active elements meet it; their indices go to `idx`.
template <class T>
inline std::size_t test_some(const Cond<T>& c, std::size_t* idx) {
    std::size_t k = 0;
    for (std::size_t i = 0; i < c.n; ++i)
        if (c.active(i) && c.met(i)) idx[k++] = i;
    return k;
}

template <class Pred>
inline void wait_for(const char* call, const void* where, Pred done) {
    // A short spin of plain loads first (a PAUSE between two, about 25 ns here: some 1.6 us in
    // all): the value often arrives within a few hundred ns, and this loop notices it sooner than
    // one that also progresses and counts.
    for (int i = 0; i < 64; ++i) {
        if (done()) return;
        cpu_relax();
    }
    rt::Waiter w(call, "the value(s) at %#llx to satisfy the comparison",
                 static_cast<long long>(reinterpret_cast<uintptr_t>(where)));
    do w.spin();
    while (!done());
}

// One variable in host memory: the comparison is chosen once, outside the loop, so that each
// poll is one load, one compare and one branch (the sooner a poll sees the new value, the sooner
// the wait returns); the load is an acquire, as `load` does.  Returns the value that met the
// condition, not a later one.
template <Cmp C, class T>
inline T wait_host(const char* call, const T* ivar, T ref) {
    T seen;
    wait_for(call, ivar, [&] { return compare(seen = __atomic_load_n(ivar, __ATOMIC_ACQUIRE), C, ref); });
    return seen;
}

template <class T>
inline T wait_until(const char* call, T* ivar, int cmp, T ref, const char* what = "ivar") {
    wait_entry(call, what, ivar, sizeof(T), sizeof(T), cmp);
    switch (rt::heap_on_device() ? -1 : cmp) {
        case static_cast<int>(Cmp::eq): return wait_host<Cmp::eq>(call, ivar, ref);
        case static_cast<int>(Cmp::ne): return wait_host<Cmp::ne>(call, ivar, ref);
        case static_cast<int>(Cmp::gt): return wait_host<Cmp::gt>(call, ivar, ref);
        case static_cast<int>(Cmp::ge): return wait_host<Cmp::ge>(call, ivar, ref);
        case static_cast<int>(Cmp::lt): return wait_host<Cmp::lt>(call, ivar, ref);
        case static_cast<int>(Cmp::le): return wait_host<Cmp::le>(call, ivar, ref);
    }
    T seen;  // a GPU heap: `load` copies each value to the host
    wait_for(call, ivar, [&] { return compare(seen = load(ivar), static_cast<Cmp>(cmp), ref); });
    return seen;
}

template <class T>
inline int test(const char* call, T* ivar, int cmp, T ref) {
    auto c = cond<T>(call, ivar, 1, nullptr, cmp, nullptr, ref);
    return c.met(0) ? 1 : 0;
}

}  // namespace kishmem::api

using namespace kishmem;
using namespace kishmem::api;

extern "C" {

// A transport's failure at completion names the routine (ApiCallScope).
void shmem_fence(void) {
    ApiCallScope scope("shmem_fence", ApiArgs::none);
    rt::fence(chan_of("shmem_fence", SHMEM_CTX_DEFAULT));
}
// A quiet of ctx's channel; what ctx issued before it is then complete (shmemx_pcntr_*).
static void quiet_ctx(const char* call, shmem_ctx_t ctx) {
    const int chan = chan_of(call, ctx);
    const rt::Issued before = rt::issued(ctx);
    rt::quiet(chan);
    rt::completed(ctx, before);
}
void shmem_quiet(void) {
    ApiCallScope scope("shmem_quiet", ApiArgs::none);
    quiet_ctx("shmem_quiet", SHMEM_CTX_DEFAULT);
}
K_ALIAS(void, fence, void)
K_ALIAS(void, quiet, void)
// On SHMEM_CTX_INVALID the memory-ordering routines have nothing to order or complete: no-ops.
void shmem_ctx_fence(shmem_ctx_t ctx) {
    if (ctx == SHMEM_CTX_INVALID) return check_init("shmem_ctx_fence");
    ApiCallScope scope("shmem_ctx_fence", ApiArgs::none);
    rt::fence(chan_of("shmem_ctx_fence", ctx));
}
void shmem_ctx_quiet(shmem_ctx_t ctx) {
    if (ctx == SHMEM_CTX_INVALID) return check_init("shmem_ctx_quiet");
    ApiCallScope scope("shmem_ctx_quiet", ApiArgs::none);
    quiet_ctx("shmem_ctx_quiet", ctx);
}
K_ALIAS(void, ctx_fence, shmem_ctx_t ctx)
K_ALIAS(void, ctx_quiet, shmem_ctx_t ctx)

static void pe_quiet(const char* call, shmem_ctx_t ctx, const int* pes, size_t npes) {
    if (ctx == SHMEM_CTX_INVALID) return check_init(call);
    chan_of(call, ctx);
    if (npes > PTRDIFF_MAX) fail_arg(call, "npes", static_cast<long long>(npes));
    if (npes && !pes) fatal(call, "pe_list is NULL with npes %zu", npes);
    for (size_t i = 0; i < npes; ++i) target(call, ctx, pes[i]);  // checks every PE named
    quiet_ctx(call, ctx);  // completes the named PEs' operations (and, here, the others' too)
}
void shmem_pe_quiet(const int* pes, size_t npes) { pe_quiet("shmem_pe_quiet", SHMEM_CTX_DEFAULT, pes, npes); }
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int* pes, size_t npes) { pe_quiet("shmem_ctx_pe_quiet", ctx, pes, npes); }

void shmem_barrier_all(void) {
    check_init("shmem_barrier_all");
    const rt::Issued before = rt::issued(SHMEM_CTX_DEFAULT);
    rt::barrier_all();  // quiets every channel first
    rt::completed(SHMEM_CTX_DEFAULT, before);
}

void shmem_sync_all(void) {
    check_init("shmem_sync_all");
    rt::sync_all();
}

K_ALIAS(void, barrier_all, void)
K_ALIAS(void, sync_all, void)

int shmem_team_sync(shmem_team_t team) {
    rt::team_sync(team_of("shmem_team_sync", team), "shmem_team_sync");
    return 0;
}
K_ALIAS(int, team_sync, shmem_team_t team)

#define DEFINE_SYNC(T, N)                                                                                         \
    void shmem_##N##_wait_until(T* v, int cmp, T x) { wait_until<T>("shmem_" #N "_wait_until", v, cmp, x); }       \
    K_ALIAS(void, N##_wait_until, T* v, int cmp, T x)                                                             \
    int shmem_##N##_test(T* v, int cmp, T x) { return test<T>("shmem_" #N "_test", v, cmp, x); }                   \
    K_ALIAS(int, N##_test, T* v, int cmp, T x)                                                                    \
    void shmem_##N##_wait_until_all(T* v, size_t n, const int* st, int cmp, T x) {                                \
        auto c = cond<T>("shmem_" #N "_wait_until_all", v, n, st, cmp, nullptr, x);                               \
        wait_for("shmem_" #N "_wait_until_all", v, [&] { return test_all(c) == 1; });                            \
    }                                                                                                             \
    size_t shmem_##N##_wait_until_any(T* v, size_t n, const int* st, int cmp, T x) {                              \
        auto c = cond<T>("shmem_" #N "_wait_until_any", v, n, st, cmp, nullptr, x);                               \
        if (count_active(c) == 0) return SIZE_MAX;                                                                \
        size_t r = SIZE_MAX;                                                                                      \
        wait_for("shmem_" #N "_wait_until_any", v, [&] { return (r = test_any(c)) != SIZE_MAX; });               \
        return r;                                                                                                 \
    }                                                                                                             \
    size_t shmem_##N##_wait_until_some(T* v, size_t n, size_t* ix, const int* st, int cmp, T x) {                 \
        auto c = cond<T>("shmem_" #N "_wait_until_some", v, n, st, cmp, nullptr, x, kSome, ix);                              \
        if (count_active(c) == 0) return 0;                                                                       \
        size_t r = 0;                                                                                             \
        wait_for("shmem_" #N "_wait_until_some", v, [&] { return (r = test_some(c, ix)) != 0; });                \
        return r;                                                                                                 \
    }                                                                                                             \
    void shmem_##N##_wait_until_all_vector(T* v, size_t n, const int* st, int cmp, T* xs) {                       \
        auto c = cond<T>("shmem_" #N "_wait_until_all_vector", v, n, st, cmp, xs, static_cast<T>(0), kVector);             \
        wait_for("shmem_" #N "_wait_until_all_vector", v, [&] { return test_all(c) == 1; });                     \
    }                                                                                                             \
    size_t shmem_##N##_wait_until_any_vector(T* v, size_t n, const int* st, int cmp, T* xs) {                     \
        auto c = cond<T>("shmem_" #N "_wait_until_any_vector", v, n, st, cmp, xs, static_cast<T>(0), kVector);             \
        if (count_active(c) == 0) return SIZE_MAX;                                                                \
        size_t r = SIZE_MAX;                                                                                      \
        wait_for("shmem_" #N "_wait_until_any_vector", v, [&] { return (r = test_any(c)) != SIZE_MAX; });        \
        return r;                                                                                                 \
    }                                                                                                             \
    size_t shmem_##N##_wait_until_some_vector(T* v, size_t n, size_t* ix, const int* st, int cmp, T* xs) {        \
        auto c = cond<T>("shmem_" #N "_wait_until_some_vector", v, n, st, cmp, xs, static_cast<T>(0), kVector | kSome, ix);            \
        if (count_active(c) == 0) return 0;                                                                       \
        size_t r = 0;                                                                                             \
        wait_for("shmem_" #N "_wait_until_some_vector", v, [&] { return (r = test_some(c, ix)) != 0; });         \
        return r;                                                                                                 \
    }                                                                                                             \
    int shmem_##N##_test_all(T* v, size_t n, const int* st, int cmp, T x) {                                       \
        return test_all(cond<T>("shmem_" #N "_test_all", v, n, st, cmp, nullptr, x));                             \
    }                                                                                                             \
    size_t shmem_##N##_test_any(T* v, size_t n, const int* st, int cmp, T x) {                                    \
        return test_any(cond<T>("shmem_" #N "_test_any", v, n, st, cmp, nullptr, x));                             \
    }                                                                                                             \
    size_t shmem_##N##_test_some(T* v, size_t n, size_t* ix, const int* st, int cmp, T x) {                       \
        return test_some(cond<T>("shmem_" #N "_test_some", v, n, st, cmp, nullptr, x, kSome, ix), ix);                      \
    }                                                                                                             \
    int shmem_##N##_test_all_vector(T* v, size_t n, const int* st, int cmp, T* xs) {                             \
        return test_all(cond<T>("shmem_" #N "_test_all_vector", v, n, st, cmp, xs, static_cast<T>(0), kVector));          \
    }                                                                                                             \
    size_t shmem_##N##_test_any_vector(T* v, size_t n, const int* st, int cmp, T* xs) {                          \
        return test_any(cond<T>("shmem_" #N "_test_any_vector", v, n, st, cmp, xs, static_cast<T>(0), kVector));          \
    }                                                                                                             \
    size_t shmem_##N##_test_some_vector(T* v, size_t n, size_t* ix, const int* st, int cmp, T* xs) {             \
        return test_some(cond<T>("shmem_" #N "_test_some_vector", v, n, st, cmp, xs, static_cast<T>(0), kVector | kSome, ix), ix);     \
    }
#define DEFINE_SYNC_ALIASES(T, N) \
    K_ALIAS(void, N##_wait_until_all, T* v, size_t n, const int* st, int cmp, T x) \
    K_ALIAS(size_t, N##_wait_until_any, T* v, size_t n, const int* st, int cmp, T x) \
    K_ALIAS(size_t, N##_wait_until_some, T* v, size_t n, size_t* ix, const int* st, int cmp, T x) \
    K_ALIAS(void, N##_wait_until_all_vector, T* v, size_t n, const int* st, int cmp, T* xs) \
    K_ALIAS(size_t, N##_wait_until_any_vector, T* v, size_t n, const int* st, int cmp, T* xs) \
    K_ALIAS(size_t, N##_wait_until_some_vector, T* v, size_t n, size_t* ix, const int* st, int cmp, T* xs) \
    K_ALIAS(int, N##_test_all, T* v, size_t n, const int* st, int cmp, T x) \
    K_ALIAS(size_t, N##_test_any, T* v, size_t n, const int* st, int cmp, T x) \
    K_ALIAS(size_t, N##_test_some, T* v, size_t n, size_t* ix, const int* st, int cmp, T x) \
    K_ALIAS(int, N##_test_all_vector, T* v, size_t n, const int* st, int cmp, T* xs) \
    K_ALIAS(size_t, N##_test_any_vector, T* v, size_t n, const int* st, int cmp, T* xs) \
    K_ALIAS(size_t, N##_test_some_vector, T* v, size_t n, size_t* ix, const int* st, int cmp, T* xs) \

KISHMEM_SYNC_TYPES(DEFINE_SYNC)
KISHMEM_SYNC_TYPES(DEFINE_SYNC_ALIASES)

#define DEFINE_DEPR_WAIT(T, N) \
    void shmem_##N##_wait(T* v, T x) { wait_until<T>("shmem_" #N "_wait", v, SHMEM_CMP_NE, x); }
KISHMEM_DEPR_WAIT_TYPES(DEFINE_DEPR_WAIT)

// The untyped (long) shmem_wait and shmem_wait_until of C programs without C11 generics.  Their
// names are C++ overloads here (kishmem/shmem_generic.h), hence other names with the C symbols,
// exported explicitly (no declaration of shmem.h marks them visible in C++).
__attribute__((visibility("default"))) void kishmem_depr_wait(long* v, long x) __asm__("shmem_wait");
__attribute__((visibility("default"))) void kishmem_depr_wait_until(long* v, int cmp, long x) __asm__("shmem_wait_until");
void kishmem_depr_wait(long* v, long x) { wait_until<long>("shmem_wait", v, SHMEM_CMP_NE, x); }
void kishmem_depr_wait_until(long* v, int cmp, long x) { wait_until<long>("shmem_wait_until", v, cmp, x); }

uint64_t shmem_signal_fetch(const uint64_t* sig) {
    check_word("shmem_signal_fetch", "sig_addr", sig, sizeof *sig);
    rt::progress();
    return load(sig);
}

uint64_t shmem_signal_wait_until(uint64_t* sig, int cmp, uint64_t x) {
    const char* call = "shmem_signal_wait_until";
    return wait_until<uint64_t>(call, sig, cmp, x, "sig_addr");  // the value that met the condition, not a later one
}
K_ALIAS(uint64_t, signal_fetch, const uint64_t* sig)
K_ALIAS(uint64_t, signal_wait_until, uint64_t* sig, int cmp, uint64_t x)

// shmem_signal_add / _set, and the shmemx_ names Sandia OpenSHMEM gave them before 1.6.
static void signal_update(const char* call, shmem_ctx_t ctx, rt::AmoOp op, uint64_t* sig, uint64_t v, int pe) {
    Target t = target_amo(call, ctx, pe, "sig_addr", sig, 8);
    rt::amo(t.chan, op, sig, 8, v, 0, t.pe);
    t.count(rt::OpKind::write);
}
#define DEFINE_SIGNAL_UPDATE(K)                                                                                   \
    K(void, signal_add, (signal_update(call_, ctx_, rt::AmoOp::add, sig, v, pe)), uint64_t* sig, uint64_t v, int pe) \
    K(void, signal_set, (signal_update(call_, ctx_, rt::AmoOp::set, sig, v, pe)), uint64_t* sig, uint64_t v, int pe)
DEFINE_SIGNAL_UPDATE(K_BOTH)
DEFINE_SIGNAL_UPDATE(K_X)

// Sandia OpenSHMEM's counters (kishmem/shmemx_sos.h): this PE's word, read, set and waited on as
// a signal; a long to the program.
long shmemx_ct_get(shmemx_ct_t ct) {
    const uint64_t* word = check_ct("shmemx_ct_get", ct);
    rt::progress();
    return static_cast<long>(load(word));
}
void shmemx_ct_set(shmemx_ct_t ct, long value) {
    signal_update("shmemx_ct_set", SHMEM_CTX_DEFAULT, rt::AmoOp::set, check_ct("shmemx_ct_set", ct),
                  static_cast<uint64_t>(value), rt::my_pe());
}
void shmemx_ct_wait(shmemx_ct_t ct, long wait_for) {
    const char* call = "shmemx_ct_wait";
    wait_until<long>(call, reinterpret_cast<long*>(check_ct(call, ct)), SHMEM_CMP_GE, wait_for);
}

void shmem_set_lock(long* lock) {
    check_word("shmem_set_lock", "lock", lock, sizeof *lock);
    rt::lock_set(lock);
}

int shmem_test_lock(long* lock) {
    check_word("shmem_test_lock", "lock", lock, sizeof *lock);
    return rt::lock_test(lock);
}

void shmem_clear_lock(long* lock) {
    check_word("shmem_clear_lock", "lock", lock, sizeof *lock);
    rt::lock_clear(lock);
}

}  // extern "C"
