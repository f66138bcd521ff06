// The runtime's surface, used by shmem_api/ (the C API) and tools/.  Everything here assumes
// its arguments were checked by the caller (shmem_api checks them); nothing here parses user
// input except the environment.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kishmem/copy_once.h"
#include "kishmem/team.h"
#include "kishmem/vocab.h"
#include "kishmem/waiter.h"

namespace kishmem::rt {

using ::kishmem::AmoOp;  // kishmem/vocab.h: the one numbering of host, device and proxy

// What the hot paths read, filled once at init (derived from the process state and the route
// table; nothing here is decided anew).
struct Hot {
    bool initialized = false;
    int my_pe = 0;
    int n_pes = 1;
    char* base = nullptr;        // this PE's user heap
    std::size_t size = 0;
    char* const* p2p = nullptr;  // p2p[pe]: pe's heap when the route to pe is host load/store, else nullptr
    bool device_heap = false;    // the user heap is GPU memory
    char* static_base = nullptr; // the executable's global and static data, when symmetric
    std::size_t static_size = 0;
    bool needs_progress = false; // some transport needs this PE to progress (peers' software RMA)
    bool threads = false;        // SHMEM_THREAD_MULTIPLE: counters are updated atomically
    bool count_target = false;   // KISHMEM_PCNTR_TARGET: operations are also counted at their target
    // One bit per 64-byte granule of the user heap: freed (shmem_free) and not allocated again
    // (heap/freed_map.h).  Never nullptr while size > 0.
    const uint8_t* freed = nullptr;
    // One bit per granule: where a live block starts or just after one ends (heap/freed_map.h).
    const uint8_t* bounds = nullptr;
    // One bit per granule of the static segment: where a global or static variable ends
    // (heap/static_segment.h); nullptr when the executable names none.
    const uint8_t* static_ends = nullptr;
    // The variable the bounds check found last, as its start << 32 | its end (offsets in the
    // static segment; 0: none): a program's transfers come back to the same variables.
    uint64_t static_last = 0;
};
extern Hot g_hot;

// Whether [a, a + an) and [b, b + bn) share a byte.
inline bool overlap(const void* a, std::size_t an, const void* b, std::size_t bn) {
    const char *x = static_cast<const char*>(a), *y = static_cast<const char*>(b);
    return an && bn && x < y + bn && y < x + an;
}

// ---- lifetime and process state -------------------------------------------------------------
// Returns the thread level provided.  Idempotent: a second call only returns the level.
int init(int requested_thread_level);
void finalize();
inline bool initialized() { return g_hot.initialized; }
bool finalized();
int thread_level();
inline int my_pe() { return g_hot.my_pe; }
inline int n_pes() { return g_hot.n_pes; }
bool same_host(int pe);
// PEs of the job whose kernels run on this PE's GPU, this one included (1 without a device heap).
int gpu_pes();
const char* bootstrap_name();
// The route decision in words, one line per decision with its reason (after init; SHMEM_INFO
// prints it too).
std::vector<std::string> route_report();
[[noreturn]] void global_exit(int status);

// ---- symmetric heap -------------------------------------------------------------------------
inline char* heap_base() { return g_hot.base; }
inline std::size_t heap_size() { return g_hot.size; }
inline bool in_static(const void* p, std::size_t bytes = 0) {
    const std::size_t off = static_cast<std::size_t>(static_cast<const char*>(p) - g_hot.static_base);
    return g_hot.static_base && off < g_hot.static_size && bytes <= g_hot.static_size - off;
}
inline bool in_heap(const void* p, std::size_t bytes = 0) {
    const char* c = static_cast<const char*>(p);
    return c >= heap_base() && c <= heap_base() + heap_size() && bytes <= static_cast<std::size_t>(heap_base() + heap_size() - c);
}
// A symmetric address: in the heap, or a global / static variable of the executable.
inline bool is_symmetric(const void* p, std::size_t bytes = 0) { return in_heap(p, bytes) || in_static(p, bytes); }
// Whether p is in a heap block that was freed and not allocated again (its 64-byte granule).
inline bool in_freed(const void* p) {
    const std::size_t off = static_cast<std::size_t>(static_cast<const char*>(p) - g_hot.base);
    return off < g_hot.size && (g_hot.freed[off >> 9] >> (off >> 6 & 7) & 1);
}
// Whether a block bound lies in granules (g0, gl] of the heap: the range crosses into another
// block or past its own block's end (out of line: only ranges that span granules ask).
bool crosses_block(std::size_t g0, std::size_t gl);
// Whether the range at `off` of the static segment (granules off >> 6 .. (off + bytes - 1) >> 6)
// starts in a global or static variable and runs past its end (out of line: only ranges in a
// granule where some variable ends ask).
bool static_crosses(std::size_t off, std::size_t bytes);
// The global or static variable that holds p: its name, and the bytes from p to its end; nullptr
// when none is known.
const char* static_variable(const void* p, std::size_t* room);
// The argument checks' test, bytes > 0: [p, p + bytes) is symmetric, p is not in a freed block
// and, in the heap, the range stays within one block.  In the heap: two compares and one load of
// the freed map (a freed granule masks the room after p to 0, which no bytes > 0 fits), and for
// a range within one 64-byte granule one compare more; in the static segment, the range stays
// within the variable it starts in.
inline bool is_live(const void* p, std::size_t bytes) {
    const std::size_t off = static_cast<std::size_t>(static_cast<const char*>(p) - g_hot.base);
    if (off < g_hot.size) {
        const std::size_t freed = g_hot.freed[off >> 9] >> (off >> 6 & 7) & 1;
        if (bytes > ((g_hot.size - off) & (freed - 1))) return false;
        const std::size_t g0 = off >> 6, gl = (off + bytes - 1) >> 6;
        return gl <= g0 || !crosses_block(g0, gl);
    }
    if (!in_static(p, bytes)) return false;
    // A global or static variable: the range must not run past the end of the one it starts in.
    const uint8_t* e = g_hot.static_ends;
    const std::size_t so = static_cast<std::size_t>(static_cast<const char*>(p) - g_hot.static_base), g = so >> 6;
    if (!e || (((so + bytes - 1) >> 6) == g && !(e[g >> 3] >> (g & 7) & 1))) return true;
    const uint64_t last = __atomic_load_n(&g_hot.static_last, __ATOMIC_RELAXED), end = last & 0xffffffffu;
    if (so >= last >> 32 && so < end) return bytes <= end - so;
    return !static_crosses(so, bytes);
}
// Whether the user heap is GPU memory (host code must not load or store it directly).
inline bool heap_on_device() { return g_hot.device_heap; }
// Reads n bytes of this PE's symmetric memory (host or device heap) into dst.
void load_local(void* dst, const void* sym, std::size_t n);
// Address of `sym` (an address in this PE's heap) in `pe`'s heap as this process can load and
// store it, or nullptr when `pe`'s heap is not mapped here.
void* ptr(const void* sym, int pe);
// Collective allocation.  `call` names the API call for messages.  nullptr (and a warning) when
// the heap is exhausted; a fatal error when PEs disagree on the arguments.
void* malloc(std::size_t bytes, std::size_t align, const char* call);
void* calloc(std::size_t count, std::size_t bytes, const char* call);
// The same block malloc would give (the allocator is deterministic: same calls, same offsets),
// without the exchange that is malloc's barrier and argument check (SHMEMX_MALLOC_NO_BARRIER):
// the program synchronizes before another PE accesses it.
void* malloc_no_barrier(std::size_t bytes, const char* call);
void* realloc(void* p, std::size_t bytes, const char* call);
void free(void* p, const char* call);
// Size of the live allocation starting at p (0 when p starts none).
std::size_t allocation_size(const void* p);
// Bytes from p to the end of the live allocation that holds it (0 when none does).
std::size_t allocation_room(const void* p);
// Whether p is in the heap's part that the runtime keeps for itself (below the program's blocks).
bool in_runtime_part(const void* p);

// ---- RMA (chan: the context's channel, 0 for the default context; pe: a world PE) -----------
// dst (put) / src (get) is a symmetric address of this PE; the other side is a private buffer.
// Same-host load/store peers are served inline; the rest go through the route table.
void put_routed(int chan, void* dst, const void* src, std::size_t bytes, int pe, bool nbi);
void get_routed(int chan, void* dst, const void* src, std::size_t bytes, int pe, bool nbi);
// The store into `pe`'s heap where this process maps it (the route table's p2p entry): false,
// with nothing done, when the route is another one or dst is not in the heap.  Always inlined, so
// that a constant `bytes` (shmem_long_p) becomes one store instruction, not a call to memcpy.
__attribute__((always_inline)) inline bool put_mapped(void* dst, const void* src, std::size_t bytes, int pe) {
    const std::size_t off = static_cast<std::size_t>(static_cast<char*>(dst) - g_hot.base);
    char* b = g_hot.p2p[pe];
    if (!b || off >= g_hot.size) return false;
    copy_once(b + off, src, bytes);
    return true;
}
inline void put(int chan, void* dst, const void* src, std::size_t bytes, int pe, bool nbi) {
    if (!put_mapped(dst, src, bytes, pe)) put_routed(chan, dst, src, bytes, pe, nbi);
}
inline void get(int chan, void* dst, const void* src, std::size_t bytes, int pe, bool nbi) {
    const std::size_t off = static_cast<std::size_t>(static_cast<const char*>(src) - g_hot.base);
    if (const char* b = g_hot.p2p[pe]; b && off < g_hot.size) {
        __builtin_memcpy(dst, b + off, bytes);
        return;
    }
    get_routed(chan, dst, src, bytes, pe, nbi);
}
// Strided: nelems elements of `elem` bytes; element i goes from src + i*sst*elem to
// dst + i*dst_stride*elem.  Blocked (1.6): blocks of `bsize` elements per stride step.
void iput(int chan, void* dst, const void* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
          std::size_t bsize, std::size_t nblocks, std::size_t elem, int pe);
void iget(int chan, void* dst, const void* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
          std::size_t bsize, std::size_t nblocks, std::size_t elem, int pe);
void fence(int chan);
void quiet(int chan);
void quiet_all();  // every channel

// ---- atomics on 4- and 8-byte words (values travel as their bit patterns) ---------------------
uint64_t amo(int chan, AmoOp op, void* target, unsigned width, uint64_t operand, uint64_t compare, int pe);

// ---- operation counts of a context (shmemx_pcntr_*) ------------------------------------------
// kishmem_ctx::counts[]: writes (puts, non-fetching atomics, signal updates) are complete once a
// quiet of their context returned after them; reads are complete on return when blocking
// (read_now), else at that quiet (read_later).  The *_done entries are watermarks: the issued
// counts read before a quiet that completed them.
enum OpCount { write_issued, read_later_issued, read_now, write_done, read_later_done };
enum class OpKind { write, read_later, read_now };
inline void count_add(uint64_t* c, uint64_t n) {
    if (g_hot.threads) __atomic_fetch_add(c, n, __ATOMIC_RELAXED);
    else __atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}
// n operations towards (world) PE `pe` on channel `chan`; the target counts them too when
// KISHMEM_PCNTR_TARGET is set.
void count_at_target(int chan, int pe, uint64_t n);
inline void count_ops(kishmem_ctx* ctx, int chan, int pe, OpKind kind, uint64_t n) {
    count_add(&ctx->counts[kind == OpKind::write ? write_issued : kind == OpKind::read_later ? read_later_issued : read_now], n);
    if (__builtin_expect(g_hot.count_target, 0)) count_at_target(chan, pe, n);
}
// Completion of a context's deferred operations: read what was issued before its quiet, then
// record it as done after the quiet returned.
struct Issued {
    uint64_t writes, reads;
};
inline Issued issued(const kishmem_ctx* ctx) {
    return {__atomic_load_n(&ctx->counts[write_issued], __ATOMIC_ACQUIRE),
            __atomic_load_n(&ctx->counts[read_later_issued], __ATOMIC_ACQUIRE)};
}
void completed(kishmem_ctx* ctx, Issued before_quiet);
// Operations counted at this PE as their target (KISHMEM_PCNTR_TARGET; 0 without it).
uint64_t target_count();

// ---- signals (OpenSHMEM 1.5 put-with-signal; sig_op 0 = set, 1 = add) -------------------------
void put_signal(int chan, void* dst, const void* src, std::size_t bytes, uint64_t* sig, uint64_t value, int sig_op,
                int pe, bool nbi);

// ---- collectives over a team (members' PE numbers are team-relative here) --------------------
// Element-wise reduction of nelems elements of `elem` bytes; `op` folds src into acc.
using ReduceFn = void (*)(void* acc, const void* src, std::size_t nelems);
void reduce(kishmem_team* t, void* dst, const void* src, std::size_t nelems, std::size_t elem, ReduceFn op,
            const char* call);
// Prefix reduction (1.6 scan): inclusive or exclusive; `zero` fills PE 0's exclusive result.
void scan(kishmem_team* t, void* dst, const void* src, std::size_t nelems, std::size_t elem, ReduceFn op,
          bool inclusive, const char* call);
void broadcast(kishmem_team* t, void* dst, const void* src, std::size_t bytes, int root, bool root_gets_copy,
               const char* call);
void fcollect(kishmem_team* t, void* dst, const void* src, std::size_t bytes, const char* call);
// collect in two steps, so that the caller can check dest against the total: every member
// tells its size (collect_sizes: this PE's offset into dest and the total; small sources travel
// with it), then the data moves (collect_data, given the first step's answer).
// Where each member's copy of a small contribution lies in a group's scratch (coll.cpp's
// places, which reductions, scans and collect share); area null: none.
struct ScratchPlaces {
    char* area = nullptr;
    std::size_t place = 0;  // bytes per copy
    bool set = false;       // an active set's places (two per world PE), else a team's
};
struct CollectStep {
    std::size_t offset = 0, total = 0;
    ScratchPlaces places;  // where the sizes (and the data that fit) came
};
CollectStep collect_sizes(kishmem_team* t, const void* src, std::size_t bytes, const char* call);
void collect_data(kishmem_team* t, void* dst, const void* src, std::size_t bytes, const CollectStep& step,
                  const char* call);
void alltoall(kishmem_team* t, void* dst, const void* src, std::size_t bytes, const char* call);
void alltoalls(kishmem_team* t, void* dst, const void* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
               std::size_t nelems, std::size_t elem, const char* call);
// A team of PE_start + i * 2^logPE_stride for the deprecated active-set routines; `psync` (the
// caller's pSync, SHMEM_SYNC_SIZE longs of SHMEM_SYNC_VALUE) holds its barrier flags.
kishmem_team* active_set(int start, int log_stride, int size, long* psync, const char* call);
// Also checks that every member is in the same routine with the same arguments (a, b; `args`
// says what they mean: a kishmem::CallArgs, 0 for none).
void active_set_barrier(kishmem_team* set, long* psync, const char* call, int args = 0, uint64_t a = 0,
                        uint64_t b = 0);

// ---- locks (OpenSHMEM distributed locks: a ticket lock on PE 0's copy of the variable) ---------
void lock_set(long* lock);
int lock_test(long* lock);  // 0: acquired
void lock_clear(long* lock);

// ---- synchronisation ------------------------------------------------------------------------
void barrier_all();  // quiet + barrier
void sync_all();     // barrier only
// Lets software transports serve peers.  Called by every wait loop.
void progress();
// progress() where some transport needs it, with no call where none does (the entry of a wait).
inline void progress_if_needed() {
    if (g_hot.needs_progress) progress();
}

// ---- what carried this PE's kernels' operations to PEs they cannot load/store ---------------
// Counters of the device backend (the software NIC of KISHMEM_REMOTE=ibgda, the CPU proxy of
// =proxy) since it opened; shmemx_nic_stats reports them.
enum class CounterSource { none, nic, proxy };
struct DeviceCounters {
    CounterSource source = CounterSource::none;
    uint64_t work_requests = 0;  // executed successfully (NIC: WQEs, NOPs included; proxy: descriptors)
    uint64_t bytes = 0;          // payload bytes moved (reads and writes: their length; atomics: 8)
    uint64_t doorbells = 0;      // doorbell changes the NIC saw (proxy: 0)
    uint64_t errors = 0;         // work requests that failed (flushed ones not counted)
};
// False, with every field zero, where no device backend runs for this PE.
bool device_counters(DeviceCounters* out);

// The wait helper (kishmem/waiter.h), under its runtime name.
using kishmem::Waiter;

}  // namespace kishmem::rt
