// Collectives over teams and over the deprecated active sets.  Data moves by puts into the
// destination where the spec lets every PE's dest be written at any time (broadcast, collect,
// alltoall), and by gets from the sources after a barrier where results combine (reduce, scan).
// Every routine ends with a barrier of its group, so dest is complete and source reusable.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "arrivals.h"
#include "state.h"

namespace kishmem {
namespace {

// The barrier of a group (a team's dissemination, or an active set's flags in its pSync), which
// also checks that every member is in the same routine with the same (a, b).
void group_sync(kishmem_team* t, const char* call, CallArgs args = CallArgs::none, uint64_t a = 0, uint64_t b = 0) {
    if (t->slot < 0) return rt::active_set_barrier(t, t->psync, call, static_cast<int>(args), a, b);
    team_agree(t, CallTag{call, a, b, args});
}

// Whether loads and stores are this PE's only path (no UCX, no GPU heap): its puts are then
// complete once stored, and ordering them before a barrier's flags is all a barrier needs.
inline bool stores_only() { return state().transports.size() == 1; }

// This PE's puts complete before the group's barrier. An active set's barrier quiets every
// channel itself (a second fence cost a few ns). A team's does not: where some transport
// completes puts later, they are quieted here; with stores only, the barrier's release fence
// before its first flag orders this PE's stores before it, and each member's acquire of a flag
// before its own release carries that on to every member (the dissemination's rounds), so the
// full fence (about a fifth of a 2-PE small reduction's time) is left out.
inline void puts_done(const kishmem_team* t) {
    if (t->slot >= 0 && !stores_only()) rt::quiet(0);
}

inline char* at(void* p, std::size_t off) { return static_cast<char*>(p) + off; }
inline const char* at(const void* p, std::size_t off) { return static_cast<const char*>(p) + off; }

// Scratch words for collect's sizes: the team's own region, indexed by team PE; for active sets
// the shared active-set region, indexed by world PE (see the layout in state.h).
uint64_t* size_slot(kishmem_team* t, int writer_team_index, const char* call) {
    State& s = state();
    std::size_t region = t->slot >= 0 ? team_region_offset(t) : kTeamSlotActiveSets * kTeamRegion;
    std::size_t idx = t->slot >= 0 ? writer_team_index : t->members[writer_team_index];
    constexpr std::size_t kSizes = (kScratchBytes - kCallRecordBytes) / sizeof(uint64_t);
    if (idx + 1 > kSizes) fatal(call, "collect supports groups of up to %zu PEs (this one needs index %zu)", kSizes, idx);
    return reinterpret_cast<uint64_t*>(s.sync_base + region + kSyncBytes) + idx;
}

// Active-set barriers this PE has passed together with each world PE (mod 256: their parity is
// what counts), counted alike on both sides: the places below are chosen by it.
std::vector<uint8_t>& set_barriers() {
    static std::vector<uint8_t> together;
    together.resize(static_cast<std::size_t>(state().npes));
    return together;
}

// Small contributions moved before one barrier (reductions, scans, collect): each PE puts its
// copy into its place in every member's scratch, then one barrier, then each reads the copies
// in its own scratch: one barrier instead of two.
// A team's scratch has two areas at fixed places, by the parity of the team's collective count
// at the call, and each member a place of fixed size in them (whatever the call's size: a next
// call of another size must not reach into this one's places): the next call that writes the
// same area comes after another collective of the team, whose barrier every member passes only
// once it has read this one.  Active sets share one region, so there each world PE's copy has
// two places of fixed size, one chosen by the parity of the active-set barriers writer and
// reader have passed together (set_barriers): both count the same barriers, so the copy for the
// next call they share goes to the other place, and the one for the call after that is written
// only once the reader has passed a barrier after its read, whichever sets the calls are over.
// The places come after collect's size words (size_slot).  false where there are none: a GPU
// heap, a group whose size words fill the scratch.
bool push_places(const kishmem_team* t, rt::ScratchPlaces* p) {
    State& s = state();
    const bool set = t->slot < 0;
    const std::size_t n = static_cast<std::size_t>(t->size());
    const std::size_t slots = set ? static_cast<std::size_t>(s.npes) : n;
    const std::size_t first = (slots * sizeof(uint64_t) + 63) & ~std::size_t{63};
    if (s.device_heap || first >= kScratchBytes - kCallRecordBytes) return false;
    const std::size_t room = kScratchBytes - kCallRecordBytes - first, half = (room / 2) & ~std::size_t{15};
    const std::size_t region = set ? kTeamSlotActiveSets * kTeamRegion : team_region_offset(t);
    p->set = set;
    p->place = (set ? room / (2 * slots) : half / n) & ~std::size_t{15};
    p->area = s.sync_base + region + kSyncBytes + first + (set ? 0 : (t->epoch & 1) * half);
    return p->place > 0;
}

// Before the group's barrier: this PE's place in member i's scratch (its address here, the same
// offset there).
char* place_at_member(const kishmem_team* t, const rt::ScratchPlaces& p, int i) {
    if (!p.set) return p.area + static_cast<std::size_t>(t->my_index) * p.place;
    const std::size_t me = static_cast<std::size_t>(state().pe);
    return p.area + (2 * me + (set_barriers()[static_cast<std::size_t>(t->members[i])] & 1)) * p.place;
}

// After the barrier: member k's copy in this PE's scratch.
char* place_of_member(const kishmem_team* t, const rt::ScratchPlaces& p, int k) {
    if (!p.set) return p.area + static_cast<std::size_t>(k) * p.place;
    const std::size_t pe = static_cast<std::size_t>(t->members[k]);
    return p.area + (2 * pe + ((set_barriers()[pe] - 1) & 1)) * p.place;
}

}  // namespace
}  // namespace kishmem

namespace kishmem::rt {

void broadcast(kishmem_team* t, void* dst, const void* src, std::size_t bytes, int root, bool root_gets_copy,
               const char* call) {
    if (t->my_index == root && bytes) {
        for (int i = 0; i < t->size(); ++i) {
            if (i == root) continue;
            put(0, dst, src, bytes, t->members[i], true);
        }
        if (root_gets_copy && dst != src && overlap(dst, bytes, src, bytes)) {
            // Overlapping (the spec does not forbid it): once the puts have read source, dest
            // gets source as it was, through a temporary copy.
            quiet(0);
            std::vector<char> tmp(bytes);
            local_copy(tmp.data(), src, bytes);
            local_copy(dst, tmp.data(), bytes);
        } else if (root_gets_copy && dst != src) {
            local_copy(dst, src, bytes);
        }
        puts_done(t);
    }
    group_sync(t, call, CallArgs::bytes_root, bytes, static_cast<uint64_t>(root));
}

void fcollect(kishmem_team* t, void* dst, const void* src, std::size_t bytes, const char* call) {
    for (int i = 0; i < t->size() && bytes; ++i)
        put(0, at(dst, t->my_index * bytes), src, bytes, t->members[i], true);
    puts_done(t);
    group_sync(t, call, CallArgs::bytes, bytes);
}

constexpr std::size_t kHead = 16;  // a collect place's size word, padded

// Each member's size goes into its place (a header of kHead bytes), and its data after it where
// the place holds them: where every member's does, the data are here after the one barrier and
// collect_data only copies; else those that did not fit are put into every dest after it, then a
// second barrier.  Groups without places tell their sizes in the size words (size_slot).
CollectStep collect_sizes(kishmem_team* t, const void* src, std::size_t bytes, const char* call) {
    const int n = t->size(), me = t->my_index;
    CollectStep step;
    ScratchPlaces& p = step.places;
    const uint64_t mine = bytes;
    if (push_places(t, &p) && p.place >= kHead) {
        for (int i = 0; i < n; ++i) {
            char* mine_there = place_at_member(t, p, i);
            sync_put(t->members[i], mine_there, &mine, sizeof mine, call);
            if (bytes && bytes <= p.place - kHead) sync_put(t->members[i], mine_there + kHead, src, bytes, call);
        }
    } else {
        p.area = nullptr;
        for (int i = 0; i < n; ++i) sync_put(t->members[i], size_slot(t, me, call), &mine, sizeof mine, call);
    }
    puts_done(t);
    group_sync(t, call);
    for (int i = 0; i < n; ++i) {
        if (i == me) step.offset = step.total;
        const uint64_t size = p.area ? *reinterpret_cast<const uint64_t*>(place_of_member(t, p, i))
                                   : *size_slot(t, i, call);
        if (__builtin_add_overflow(step.total, size, &step.total))
            fatal(call, "the members' nelems add up to more than 2^64 bytes");
    }
    return step;
}

void collect_data(kishmem_team* t, void* dst, const void* src, std::size_t bytes, const CollectStep& step,
                  const char* call) {
    const ScratchPlaces& p = step.places;
    if (p.area) {
        bool all_here = true;
        std::size_t off = 0;
        for (int k = 0; k < t->size(); ++k) {
            const char* copy = place_of_member(t, p, k);
            const std::size_t size = *reinterpret_cast<const uint64_t*>(copy);
            if (size <= p.place - kHead) local_copy(at(dst, off), copy + kHead, size);
            else all_here = false;
            off += size;
        }
        if (all_here) return;  // every source was read before the barrier
        if (bytes <= p.place - kHead) bytes = 0;  // this PE's data is in every place already
    }
    for (int i = 0; i < t->size() && bytes; ++i) put(0, at(dst, step.offset), src, bytes, t->members[i], true);
    puts_done(t);
    group_sync(t, call);
}

void alltoall(kishmem_team* t, void* dst, const void* src, std::size_t bytes, const char* call) {
    const int n = t->size(), me = t->my_index;
    for (int k = 1; k <= n && bytes; ++k) {  // start with the right neighbour: spreads the load
        int i = (me + k) % n;
        put(0, at(dst, me * bytes), at(src, i * bytes), bytes, t->members[i], true);
    }
    puts_done(t);
    group_sync(t, call, CallArgs::bytes, bytes);
}

void alltoalls(kishmem_team* t, void* dst, const void* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
               std::size_t nelems, std::size_t elem, const char* call) {
    const int n = t->size(), me = t->my_index;
    for (int k = 1; k <= n && nelems; ++k) {
        int i = (me + k) % n;
        // element j of block i goes to element j of block `me` on PE i
        const void* s = at(src, static_cast<std::size_t>(i) * nelems * src_stride * elem);
        void* d = at(dst, static_cast<std::size_t>(me) * nelems * dst_stride * elem);
        iput(0, d, s, dst_stride, src_stride, 1, nelems, elem, t->members[i]);
    }
    puts_done(t);
    group_sync(t, call, CallArgs::bytes_strides, nelems * elem,
               static_cast<uint64_t>(dst_stride) << 32 | static_cast<uint32_t>(src_stride));
}

// The reductions' scratch, kept by each thread between calls: a fresh buffer of 128 KiB or more
// is fresh pages from the kernel on every call (glibc maps and unmaps it), which made a 1 MiB
// reduction nine times slower.  `which`: 0 the running result, 1 the source being folded in.
// Buffers above kKeepScratch go back after their call (scratch_done): a reduction of a GiB does
// not leave two GiB with every thread that made one.
constexpr std::size_t kKeepScratch = std::size_t{16} << 20;
static thread_local std::vector<char> t_scratch[2];
static char* scratch(int which, std::size_t bytes) {
    if (t_scratch[which].size() < bytes) t_scratch[which].resize(bytes);
    return t_scratch[which].data();
}
static void scratch_done() {
    for (std::vector<char>& b : t_scratch)
        if (b.size() > kKeepScratch) std::vector<char>().swap(b);
}

// Every PE folds the members' sources in team order (0, 1, ...), so floating-point results are
// identical on every PE.  A block of kFoldBlock bytes at a time, so that the block's result
// stays in cache while each source's block is folded into it: read in place where every source
// is mapped here (a host heap, same-host peers), else through gets into a scratch block.  Whole
// sources at once, with a copy each, made a 2-PE 1 MiB sum 1.27x OSHMEM's time.
constexpr std::size_t kFoldBlock = std::size_t{64} << 10;
static void fold_range(kishmem_team* t, char* out, const void* src, std::size_t bytes, int first, int last,
                       std::size_t elem, ReduceFn op) {
    std::vector<const char*> in(static_cast<std::size_t>(last - first + 1));
    bool mapped = !state().device_heap;
    for (int i = first; i <= last && mapped; ++i)
        mapped = (in[static_cast<std::size_t>(i - first)] = static_cast<const char*>(ptr(src, t->members[i])));
    const std::size_t block = std::max(elem, kFoldBlock / elem * elem);
    char* tmp = mapped ? nullptr : scratch(1, std::min(bytes, block));
    for (std::size_t off = 0; off < bytes; off += block) {
        const std::size_t len = std::min(block, bytes - off);
        for (int i = first; i <= last; ++i) {
            const char* from = tmp;
            if (mapped) from = in[static_cast<std::size_t>(i - first)] + off;
            else get(0, tmp, at(src, off), len, t->members[i], false);
            if (i == first) std::memcpy(out + off, from, len);
            else op(out + off, from, len / elem);
        }
    }
}

// Where a large reduction's result is folded: straight into dest where this process stores into
// it and it does not overlap source (the peers read only source until the second barrier), else
// into scratch, copied into dest after that barrier.
static char* fold_target(void* dst, const void* src, std::size_t bytes) {
    if (!state().device_heap && !overlap(dst, bytes, src, bytes)) return static_cast<char*>(dst);
    return scratch(0, bytes);
}

// Reductions and scans of up to a few KiB through the places above; each PE folds the copies in
// group order (members 0..last; none: zeros) straight into dest, its own source read where it is
// (a copy into its own place only where dest overlaps it and an earlier member's fold would write
// over it first: dest may be the source).  false where the places do not hold the source.
static bool fold_pushed(kishmem_team* t, void* dst, const void* src, std::size_t nelems, std::size_t elem,
                        ReduceFn op, int last, const char* call) {
    const std::size_t bytes = nelems * elem;
    ScratchPlaces p;
    if (bytes == 0 || !push_places(t, &p) || bytes > p.place) return false;
    const int me = t->my_index;
    const bool own_in_place = !overlap(dst, bytes, src, bytes) || (me == 0 && dst == src);
    for (int i = 0; i < t->size(); ++i)
        if (i != me || !own_in_place) sync_put(t->members[i], place_at_member(t, p, i), src, bytes, call);
    puts_done(t);
    group_sync(t, call, CallArgs::bytes, bytes);  // every member's source is here
    if (last < 0) {
        std::memset(dst, 0, bytes);  // (exscan on the first PE: zeros)
        return true;
    }
    auto source = [&](int i) -> const char* {
        return i == me && own_in_place ? static_cast<const char*>(src) : place_of_member(t, p, i);
    };
    if (source(0) != dst) std::memcpy(dst, source(0), bytes);
    for (int i = 1; i <= last; ++i) op(dst, source(i), nelems);
    return true;
}

void reduce(kishmem_team* t, void* dst, const void* src, std::size_t nelems, std::size_t elem, ReduceFn op,
            const char* call) {
    const std::size_t bytes = nelems * elem;
    if (fold_pushed(t, dst, src, nelems, elem, op, t->size() - 1, call)) return;
    group_sync(t, call, CallArgs::bytes, bytes);  // every source is ready
    char* acc = fold_target(dst, src, bytes);
    if (bytes) fold_range(t, acc, src, bytes, 0, t->size() - 1, elem, op);
    group_sync(t, call);  // nobody reads a source any more: dest may be the source
    if (bytes && acc != dst) local_copy(dst, acc, bytes);
    scratch_done();
}

void scan(kishmem_team* t, void* dst, const void* src, std::size_t nelems, std::size_t elem, ReduceFn op,
          bool inclusive, const char* call) {
    const std::size_t bytes = nelems * elem;
    const int last = inclusive ? t->my_index : t->my_index - 1;
    if (fold_pushed(t, dst, src, nelems, elem, op, last, call)) return;
    group_sync(t, call, CallArgs::bytes, bytes);
    char* acc = fold_target(dst, src, bytes);
    if (bytes && last >= 0) fold_range(t, acc, src, bytes, 0, last, elem, op);
    else if (bytes) std::memset(acc, 0, bytes);  // (exscan on the first PE: zeros)
    group_sync(t, call);
    if (bytes && acc != dst) local_copy(dst, acc, bytes);
    scratch_done();
}

// ---- active sets --------------------------------------------------------------------------

kishmem_team* active_set(int start, int log_stride, int size, long* psync, const char* call) {
    State& s = state();
    // One team per set (not per pSync: a loop over pSync arrays would grow the cache without
    // bound); the pSync of this call is the one its barrier uses.  Freed at exit.
    static std::map<std::tuple<int, int, int>, std::unique_ptr<kishmem_team>> sets;
    auto key = std::make_tuple(start, log_stride, size);
    auto it = sets.find(key);
    if (it != sets.end()) {
        it->second->psync = psync;
        return it->second.get();
    }
    const long stride = 1L << log_stride;
    if (size < 1 || start < 0 || log_stride < 0 || log_stride > 30 || start + (size - 1) * stride >= s.npes)
        fatal(call, "active set PE_start=%d logPE_stride=%d PE_size=%d does not fit in %d PEs", start, log_stride, size,
              s.npes);
    auto owned = std::make_unique<kishmem_team>();
    kishmem_team* t = owned.get();
    t->index_of.assign(s.npes, -1);
    for (int i = 0; i < size; ++i) {
        t->members.push_back(start + static_cast<int>(i * stride));
        t->index_of[t->members.back()] = i;
    }
    t->my_index = t->index_of[s.pe];
    if (t->my_index < 0)
        fatal(call, "this PE is not in the active set PE_start=%d logPE_stride=%d PE_size=%d", start, log_stride, size);
    t->psync = psync;
    t->live = true;
    sets[key] = std::move(owned);
    return t;
}

// Dissemination over the set with one flag per (parity, round) in pSync: the sender sets it to
// its call's tag (CallTag::flag, never 0), the receiver waits for it, compares it with its own
// and restores SHMEM_SYNC_VALUE (0).  Parity alternates per call.
// Aligned to a cache line, as team_allreduce (sync.cpp).
__attribute__((aligned(64))) void active_set_barrier(kishmem_team* t, long* psync, const char* call, int args,
                                                     uint64_t a, uint64_t b) {
    // The set's puts complete before its flags: with stores only, the flags' atomic sets
    // (sequentially consistent: a full barrier) order them already.
    if (!stores_only()) quiet_all();
    const int n = t->size(), me = t->my_index;
    const std::size_t parity = ++t->epoch & 1;
    std::vector<uint8_t>& together = set_barriers();
    for (int pe : t->members) ++together[static_cast<std::size_t>(pe)];
    const CallTag tag{call, a, b, static_cast<CallArgs>(args)};
    const long mine = static_cast<long>(tag.signal(state().pe));
    if (n > 1) call_record_write(t, tag);
    arrival_mark(t, t->epoch);  // hang messages name the set's PEs not in this call yet (arrivals.h)
    const ArrivalQuery arrivals{t, t->epoch};
    const InCollective inside(t);  // a peer waiting for this PE in another group's call sees it (arrivals.h)
    int round = 0;
    for (int dist = 1; dist < n; dist <<= 1, ++round) {
        long* flag = psync + parity * kMaxRounds + round;
        const int to = t->members[(me + dist) % n], from = t->members[(me - dist + n) % n];
        // An atomic set, not a put: the target clears the flag once it has read it, and a put
        // may store a word twice (a transport's memcpy, kishmem/copy_once.h), bringing it back.
        amo(0, AmoOp::set, flag, sizeof mine, static_cast<uint64_t>(mine), 0, to);
        Waiter w(call, "PE %lld to arrive (active-set barrier round %lld)", from, round);
        w.set_detail(arrival_detail, &arrivals);
        CrossQuery cross{t, &tag, from};
        w.set_check(cross_group_check, &cross);
        long seen = 0;
        while ((load_local(&seen, flag, sizeof seen), seen) == 0) w.spin();
        static const long zero = 0;  // restore SHMEM_SYNC_VALUE
        local_copy(flag, &zero, sizeof zero);
        if (static_cast<uint64_t>(seen) != tag.signal(from)) psync_mismatch(t, tag, from, psync, flag, seen);
    }
}

}  // namespace kishmem::rt
