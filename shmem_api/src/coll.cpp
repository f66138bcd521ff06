// Collectives: team-based (1.5), scans (1.6), and the deprecated active-set forms.  Every typed
// routine is one line over these templates; reductions fold with the operator types below.
#include "check.h"
#include "coll_check.h"
#include "kishmem/log.h"

namespace kishmem::api {

struct OpAnd { template <class T> T operator()(T a, T b) const { return a & b; } };
struct OpOr { template <class T> T operator()(T a, T b) const { return a | b; } };
struct OpXor { template <class T> T operator()(T a, T b) const { return a ^ b; } };
struct OpMax { template <class T> T operator()(T a, T b) const { return a > b ? a : b; } };
struct OpMin { template <class T> T operator()(T a, T b) const { return a < b ? a : b; } };
struct OpSum { template <class T> T operator()(T a, T b) const { return a + b; } };
struct OpProd { template <class T> T operator()(T a, T b) const { return a * b; } };

template <class T, class Op>
void fold(void* acc, const void* src, std::size_t n) {
    T* a = static_cast<T*>(acc);
    const T* s = static_cast<const T*>(src);
    for (std::size_t i = 0; i < n; ++i) a[i] = Op()(a[i], s[i]);
}

inline void check_buffers(const char* call, const void* dest, std::size_t dbytes, const void* src, std::size_t sbytes) {
    if (!g_check) return;
    if (dbytes && !rt::is_live(dest, dbytes)) fail_sym(call, "dest", dest, dbytes);
    if (sbytes && !rt::is_live(src, sbytes)) fail_sym(call, "source", src, sbytes);
}

template <class T, class Op>
int reduce(const char* call, shmem_team_t team, T* dest, const T* src, std::size_t n) {
    kishmem_team* t = team_of(call, team);
    const std::size_t bytes = coll_bytes(call, "nreduce", n, sizeof(T));
    check_buffers(call, dest, bytes, src, bytes);
    check_in_place(call, dest, src, bytes);
    rt::reduce(t, dest, src, n, sizeof(T), fold<T, Op>, call);
    return 0;
}

template <class T>
int scan(const char* call, shmem_team_t team, T* dest, const T* src, std::size_t n, bool inclusive) {
    kishmem_team* t = team_of(call, team);
    const std::size_t bytes = coll_bytes(call, "nelems", n, sizeof(T));
    check_buffers(call, dest, bytes, src, bytes);
    check_in_place(call, dest, src, bytes);
    rt::scan(t, dest, src, n, sizeof(T), fold<T, OpSum>, inclusive, call);
    return 0;
}

// The data-moving collectives take the group already checked (team_of for a team, set_of for an
// active set) and the count as the caller got it (elements of elem bytes), so that both forms
// check their counts and buffers here, once.
inline int broadcast(const char* call, kishmem_team* t, void* dest, const void* src, std::size_t n, std::size_t elem,
                     int root, bool root_gets_copy = true) {
    const std::size_t bytes = coll_bytes(call, "nelems", n, elem);
    if (root < 0 || root >= t->size()) fail_pe(call, root, t->size());
    const bool is_root = t->my_index == root;
    // dest on every PE, the root's too where the active-set form leaves it alone: it is the
    // symmetric address the root writes the others' copies by.
    check_buffers(call, dest, bytes, src, is_root ? bytes : 0);
    if (root_gets_copy && dest != src)  // (the active-set form leaves the root's dest alone)
        warn_overlap(call, dest, bytes, src, bytes, "here the root's dest receives source as it was before the call");
    rt::broadcast(t, dest, src, bytes, root, root_gets_copy, call);
    return 0;
}

// Where other PEs' blocks land in this PE's dest while it still sends from source.
constexpr const char* kRace = "other PEs' data may land in source before this PE sent it, so results may differ "
                              "from run to run";

inline int fcollect(const char* call, kishmem_team* t, void* dest, const void* src, std::size_t n, std::size_t elem) {
    const std::size_t dbytes = coll_bytes(call, "nelems", n, elem, t->size());
    const std::size_t bytes = n * elem;  // (checked with the PEs' count above)
    check_buffers(call, dest, dbytes, src, bytes);
    warn_overlap(call, dest, dbytes, src, bytes, kRace);
    rt::fcollect(t, dest, src, bytes, call);
    return 0;
}

// dest's size is the sum of every member's nelems, known once the members have told theirs.
inline int collect(const char* call, kishmem_team* t, void* dest, const void* src, std::size_t n, std::size_t elem) {
    const std::size_t bytes = coll_bytes(call, "nelems", n, elem);
    check_buffers(call, dest, 0, src, bytes);
    const rt::CollectStep step = rt::collect_sizes(t, src, bytes, call);
    check_buffers(call, dest, step.total, src, 0);
    warn_overlap(call, dest, step.total, src, bytes, kRace);
    rt::collect_data(t, dest, src, bytes, step, call);
    return 0;
}

inline int alltoall(const char* call, kishmem_team* t, void* dest, const void* src, std::size_t n, std::size_t elem) {
    const std::size_t all = coll_bytes(call, "nelems", n, elem, t->size());
    const std::size_t bytes = n * elem;
    check_buffers(call, dest, all, src, all);
    warn_overlap(call, dest, all, src, all, kRace);
    rt::alltoall(t, dest, src, bytes, call);
    return 0;
}

inline int alltoalls(const char* call, kishmem_team* t, void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst,
                     std::size_t n, std::size_t elem) {
    if (dst < 1 || sst < 1)
        fatal(call, "stride %s %td is invalid: dst and sst must be at least 1 (dst %td, sst %td)", dst < 1 ? "dst" : "sst",
              dst < 1 ? dst : sst, dst, sst);
    coll_bytes(call, "nelems", n, elem, t->size());
    const std::size_t total = n * t->size();  // elements over all PEs (no overflow: checked in bytes above)
    const std::size_t dspan = span_bytes(call, total, dst, elem), sspan = span_bytes(call, total, sst, elem);
    check_buffers(call, dest, dspan, src, sspan);
    warn_overlap(call, dest, dspan, src, sspan, kRace);
    rt::alltoalls(t, dest, src, dst, sst, n, elem, call);
    return 0;
}

// Active sets: the set's members as a team-like group whose barrier lives in pSync.
inline kishmem_team* set_of(const char* call, int start, int log_stride, int size, long* psync) {
    check_sym(call, "pSync", psync, SHMEM_SYNC_SIZE * sizeof(long));
    return rt::active_set(start, log_stride, size, psync, call);
}

template <class T, class Op>
void to_all(const char* call, T* dest, const T* src, int n, int start, int log_stride, int size, const T* pwrk,
            long* psync) {
    kishmem_team* t = set_of(call, start, log_stride, size, psync);
    if (n < 0) fatal(call, "nreduce %d is negative", n);
    const std::size_t bytes = coll_bytes(call, "nreduce", static_cast<std::size_t>(n), sizeof(T));
    check_buffers(call, dest, bytes, src, bytes);
    check_in_place(call, dest, src, bytes);
    check_pwrk(call, pwrk, n, sizeof(T));
    rt::reduce(t, dest, src, static_cast<std::size_t>(n), sizeof(T), fold<T, Op>, call);
}

}  // namespace kishmem::api

using namespace kishmem;
using namespace kishmem::api;

extern "C" {

#define DEFINE_COLL(T, N)                                                                                         \
    int shmem_##N##_broadcast(shmem_team_t t, T* d, const T* s, size_t n, int root) {                            \
        const char* call = "shmem_" #N "_broadcast";                                                              \
        return broadcast(call, team_of(call, t), d, s, n, sizeof(T), root);                       \
    }                                                                                                             \
    int shmem_##N##_collect(shmem_team_t t, T* d, const T* s, size_t n) {                                        \
        const char* call = "shmem_" #N "_collect";                                                                \
        return collect(call, team_of(call, t), d, s, n, sizeof(T));                               \
    }                                                                                                             \
    int shmem_##N##_fcollect(shmem_team_t t, T* d, const T* s, size_t n) {                                       \
        const char* call = "shmem_" #N "_fcollect";                                                               \
        return fcollect(call, team_of(call, t), d, s, n, sizeof(T));                              \
    }                                                                                                             \
    int shmem_##N##_alltoall(shmem_team_t t, T* d, const T* s, size_t n) {                                       \
        const char* call = "shmem_" #N "_alltoall";                                                               \
        return alltoall(call, team_of(call, t), d, s, n, sizeof(T));                              \
    }                                                                                                             \
    K_ALIAS(int, N##_broadcast, shmem_team_t, T*, const T*, size_t, int)                                          \
    K_ALIAS(int, N##_fcollect, shmem_team_t, T*, const T*, size_t)                                                \
    K_ALIAS(int, N##_alltoall, shmem_team_t, T*, const T*, size_t)                                                \
    K_ALIAS(int, N##_alltoalls, shmem_team_t, T*, const T*, ptrdiff_t, ptrdiff_t, size_t)                         \
    int shmem_##N##_alltoalls(shmem_team_t t, T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n) {        \
        const char* call = "shmem_" #N "_alltoalls";                                                              \
        return alltoalls(call, team_of(call, t), d, s, dst, sst, n, sizeof(T));                                   \
    }
KISHMEM_RMA_TYPES(DEFINE_COLL)

int shmem_broadcastmem(shmem_team_t t, void* d, const void* s, size_t n, int root) {
    const char* call = "shmem_broadcastmem";
    return broadcast(call, team_of(call, t), d, s, n, 1, root);
}
int shmem_collectmem(shmem_team_t t, void* d, const void* s, size_t n) {
    const char* call = "shmem_collectmem";
    return collect(call, team_of(call, t), d, s, n, 1);
}
int shmem_fcollectmem(shmem_team_t t, void* d, const void* s, size_t n) {
    const char* call = "shmem_fcollectmem";
    return fcollect(call, team_of(call, t), d, s, n, 1);
}
int shmem_alltoallmem(shmem_team_t t, void* d, const void* s, size_t n) {
    const char* call = "shmem_alltoallmem";
    return alltoall(call, team_of(call, t), d, s, n, 1);
}
K_ALIAS(int, broadcastmem, shmem_team_t, void*, const void*, size_t, int)
K_ALIAS(int, fcollectmem, shmem_team_t, void*, const void*, size_t)
K_ALIAS(int, alltoallmem, shmem_team_t, void*, const void*, size_t)
int shmem_alltoallsmem(shmem_team_t t, void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n) {
    const char* call = "shmem_alltoallsmem";
    return alltoalls(call, team_of(call, t), d, s, dst, sst, n, 1);
}
K_ALIAS(int, alltoallsmem, shmem_team_t, void*, const void*, ptrdiff_t, ptrdiff_t, size_t)

#define DEFINE_REDUCE(T, N, OP, OPT)                                                                              \
    int shmem_##N##_##OP##_reduce(shmem_team_t t, T* d, const T* s, size_t n) {                                  \
        return reduce<T, OPT>("shmem_" #N "_" #OP "_reduce", t, d, s, n);                                         \
    }                                                                                                             \
    K_ALIAS(int, N##_##OP##_reduce, shmem_team_t, T*, const T*, size_t)
// The sum scans under the prefix PFX (shmem_, or shmemx_ for Sandia OpenSHMEM's names).
#define DEFINE_SCAN(PFX, T, N)                                                                                    \
    int PFX##N##_sum_inscan(shmem_team_t t, T* d, const T* s, size_t n) {                                        \
        return scan<T>(#PFX #N "_sum_inscan", t, d, s, n, true);                                                  \
    }                                                                                                             \
    int PFX##N##_sum_exscan(shmem_team_t t, T* d, const T* s, size_t n) {                                        \
        return scan<T>(#PFX #N "_sum_exscan", t, d, s, n, false);                                                 \
    }
#define DEFINE_REDUCE_BIT(T, N) DEFINE_REDUCE(T, N, and, OpAnd) DEFINE_REDUCE(T, N, or, OpOr) DEFINE_REDUCE(T, N, xor, OpXor)
#define DEFINE_REDUCE_MINMAX(T, N) DEFINE_REDUCE(T, N, max, OpMax) DEFINE_REDUCE(T, N, min, OpMin)
#define DEFINE_REDUCE_ARITH(T, N)                                                                                 \
    DEFINE_REDUCE(T, N, sum, OpSum) DEFINE_REDUCE(T, N, prod, OpProd)                                             \
    DEFINE_SCAN(shmem_, T, N)                                                                                     \
    K_ALIAS(int, N##_sum_inscan, shmem_team_t, T*, const T*, size_t)                                              \
    K_ALIAS(int, N##_sum_exscan, shmem_team_t, T*, const T*, size_t)
KISHMEM_REDUCE_BIT_TYPES(DEFINE_REDUCE_BIT)
KISHMEM_REDUCE_MINMAX_TYPES(DEFINE_REDUCE_MINMAX)
KISHMEM_REDUCE_MINMAX_TYPES(DEFINE_REDUCE_ARITH)
KISHMEM_REDUCE_COMPLEX_TYPES(DEFINE_REDUCE_ARITH)

// shmemx_TYPENAME_sum_inscan / _exscan: Sandia OpenSHMEM's names of the 1.6 scans.
#define DEFINE_X_SCAN(T, N) DEFINE_SCAN(shmemx_, T, N)
KISHMEM_REDUCE_MINMAX_TYPES(DEFINE_X_SCAN)
KISHMEM_REDUCE_COMPLEX_TYPES(DEFINE_X_SCAN)

#define DEFINE_TOALL(T, N, OP, OPT)                                                                               \
    void shmem_##N##_##OP##_to_all(T* d, const T* s, int n, int start, int ls, int size, T* w, long* psync) {    \
        to_all<T, OPT>("shmem_" #N "_" #OP "_to_all", d, s, n, start, ls, size, w, psync);                        \
    }
#define DEFINE_TOALL_BIT(T, N) DEFINE_TOALL(T, N, and, OpAnd) DEFINE_TOALL(T, N, or, OpOr) DEFINE_TOALL(T, N, xor, OpXor)
#define DEFINE_TOALL_MINMAX(T, N) DEFINE_TOALL(T, N, max, OpMax) DEFINE_TOALL(T, N, min, OpMin)
#define DEFINE_TOALL_ARITH(T, N) DEFINE_TOALL(T, N, sum, OpSum) DEFINE_TOALL(T, N, prod, OpProd)
KISHMEM_TOALL_BIT_TYPES(DEFINE_TOALL_BIT)
KISHMEM_TOALL_MINMAX_TYPES(DEFINE_TOALL_MINMAX)
KISHMEM_TOALL_MINMAX_TYPES(DEFINE_TOALL_ARITH)
KISHMEM_REDUCE_COMPLEX_TYPES(DEFINE_TOALL_ARITH)

void shmem_barrier(int start, int ls, int size, long* psync) {
    const char* call = "shmem_barrier";
    kishmem_team* t = set_of(call, start, ls, size, psync);
    rt::active_set_barrier(t, psync, call);
}

void shmem_sync(int start, int ls, int size, long* psync) {
    const char* call = "shmem_sync";
    kishmem_team* t = set_of(call, start, ls, size, psync);
    rt::active_set_barrier(t, psync, call);
}

#define DEFINE_COLL_AS(B)                                                                                         \
    void shmem_broadcast##B(void* d, const void* s, size_t n, int root, int start, int ls, int size, long* ps) {  \
        const char* call = "shmem_broadcast" #B;                                                                  \
        broadcast(call, set_of(call, start, ls, size, ps), d, s, n, B / 8, root, false);          \
    }                                                                                                             \
    void shmem_collect##B(void* d, const void* s, size_t n, int start, int ls, int size, long* ps) {              \
        const char* call = "shmem_collect" #B;                                                                    \
        collect(call, set_of(call, start, ls, size, ps), d, s, n, B / 8);                         \
    }                                                                                                             \
    void shmem_fcollect##B(void* d, const void* s, size_t n, int start, int ls, int size, long* ps) {             \
        const char* call = "shmem_fcollect" #B;                                                                   \
        fcollect(call, set_of(call, start, ls, size, ps), d, s, n, B / 8);                        \
    }                                                                                                             \
    void shmem_alltoall##B(void* d, const void* s, size_t n, int start, int ls, int size, long* ps) {             \
        const char* call = "shmem_alltoall" #B;                                                                   \
        alltoall(call, set_of(call, start, ls, size, ps), d, s, n, B / 8);                        \
    }                                                                                                             \
    void shmem_alltoalls##B(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int start, int ls,    \
                            int size, long* ps) {                                                                 \
        const char* call = "shmem_alltoalls" #B;                                                                  \
        alltoalls(call, set_of(call, start, ls, size, ps), d, s, dst, sst, n, B / 8);                             \
    }
DEFINE_COLL_AS(32)
DEFINE_COLL_AS(64)

}  // extern "C"
