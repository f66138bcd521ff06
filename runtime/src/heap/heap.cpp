// Collective allocation.  Every call starts with an exchange of its tag (routine, arguments in
// full): it is the barrier the spec requires and it catches PEs that pass different arguments
// or call another collective.  Offsets are aligned by the allocator; the heap base is aligned
// too (kSegmentAlign, heap/segment.h), so an aligned offset is an aligned address on every PE.
#include <cstring>

#include "../state.h"
#include "static_segment.h"

namespace kishmem {
namespace {

// Ends the job if the PEs disagree (naming both calls); returns normally (after the barrier)
// if they agree.
void agree(const char* call, CallArgs args, uint64_t a, uint64_t b) {
    // The spec's entry barrier of the allocation routines includes a quiet: nothing in flight
    // may land in memory that is freed or moved below.
    rt::quiet_all();
    team_agree(rt::team_world(), CallTag{call, a, b, args});
}

void* allocate(const char* call, std::size_t bytes, std::size_t align) {
    State& s = state();
    auto off = s.alloc->alloc(bytes, align < kAllocAlign ? kAllocAlign : align);
    if (!off) {
        warn(call, "symmetric heap exhausted: %zu bytes requested, %zu free (largest block %zu) of %zu; "
                   "raise SHMEM_SYMMETRIC_SIZE",
             bytes, s.alloc->bytes_free(), s.alloc->largest_free(), s.alloc->capacity());
        return nullptr;
    }
    return s.base + *off;
}

}  // namespace
}  // namespace kishmem

namespace kishmem::rt {

void* malloc(std::size_t bytes, std::size_t align, const char* call) {
    // The spec: size 0 does nothing and returns NULL, without the barrier (no agreement either).
    if (bytes == 0) return nullptr;
    agree(call, CallArgs::size_align, bytes, align);
    if (align > kAllocAlign) {
        // The allocator aligns offsets; they are aligned addresses on every PE only up to the
        // alignment every PE's heap base has (a host heap's is kSegmentAlign, a GPU heap's what
        // the driver gave).  Agreed by all, so that every PE returns the same answer.
        State& s = state();
        uint64_t mine = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(s.base) & -reinterpret_cast<uintptr_t>(s.base));
        uint64_t v[2] = {mine ? mine : 1ull << 63, 0}, lo[2], hi[2];
        team_minmax(rt::team_world(), CallTag{call}, v, lo, hi);
        if (align > lo[0]) {
            warn(call, "alignment %zu is larger than the alignment of some PE's symmetric heap base (%llu bytes); "
                       "no symmetric block can honour it",
                 align, static_cast<unsigned long long>(lo[0]));
            return nullptr;
        }
    }
    return allocate(call, bytes, align);
}

void* malloc_no_barrier(std::size_t bytes, const char* call) {
    return bytes ? allocate(call, bytes, kAllocAlign) : nullptr;
}

void* calloc(std::size_t count, std::size_t bytes, const char* call) {
    agree(call, CallArgs::count_size, count, bytes);
    if (count == 0 || bytes == 0) return nullptr;
    if (bytes > SIZE_MAX / count) {
        warn(call, "count %zu times size %zu overflows", count, bytes);
        return nullptr;
    }
    void* p = allocate(call, count * bytes, kAllocAlign);
    if (p) local_set(p, 0, count * bytes);
    uint64_t v[2] = {0, 0}, lo[2], hi[2];
    team_minmax(rt::team_world(), CallTag{call}, v, lo, hi);  // zeroed everywhere before anyone writes into it
    return p;
}

void* realloc(void* p, std::size_t bytes, const char* call) {
    State& s = state();
    if (!p) return malloc(bytes, kAllocAlign, call);
    if (bytes == 0) {
        free(p, call);
        return nullptr;
    }
    agree(call, CallArgs::offset_size, static_cast<char*>(p) - s.base, bytes);
    std::size_t off = static_cast<char*>(p) - s.base;
    std::size_t old = s.alloc->size_of(off);
    auto moved = s.alloc->realloc(off, bytes);
    void* out = nullptr;
    if (!moved) {
        warn(call, "symmetric heap exhausted: cannot grow a %zu-byte block to %zu bytes (%zu free); raise "
                   "SHMEM_SYMMETRIC_SIZE",
             old, bytes, s.alloc->bytes_free());
    } else if (*moved != off) {
        local_copy(s.base + *moved, p, old < bytes ? old : bytes);
        s.alloc->free(off);
        out = s.base + *moved;
    } else {
        out = p;
    }
    uint64_t v[2] = {0, 0}, lo[2], hi[2];
    team_minmax(rt::team_world(), CallTag{call}, v, lo, hi);  // data moved everywhere before anyone writes into it
    return out;
}

void free(void* p, const char* call) {
    if (!p) return;  // the spec: a null pointer does nothing, without the barrier
    State& s = state();
    const std::size_t off = static_cast<char*>(p) - s.base;
    agree(call, CallArgs::offset, off, 0);
    if (!s.alloc->free(off))
        fatal(call, "%p is not the start of a live symmetric allocation", p);
}

std::size_t allocation_size(const void* p) {
    State& s = state();
    return s.alloc->size_of(static_cast<const char*>(p) - s.base);
}

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "bit g of the map is bit g % 64 of its 64-bit word");

// Whether any of bits first..last of a bit map is set (bit g is bit g % 64 of the map's 64-bit
// word g / 64; the maps are allocated in whole words).
static bool any_bit(const uint8_t* map, std::size_t first, std::size_t last) {
    for (std::size_t w = first >> 6; w <= last >> 6; ++w) {
        uint64_t word = __atomic_load_n(reinterpret_cast<const uint64_t*>(map) + w, __ATOMIC_RELAXED);
        if (w == first >> 6) word &= ~uint64_t{0} << (first & 63);
        if (w == last >> 6) word &= ~uint64_t{0} >> (63 - (last & 63));
        if (word) return true;
    }
    return false;
}

bool crosses_block(std::size_t g0, std::size_t gl) {
    return g_hot.bounds && any_bit(g_hot.bounds, g0 + 1, gl);
}

bool static_crosses(std::size_t off, std::size_t bytes) {
    if (!any_bit(g_hot.static_ends, off >> 6, (off + bytes - 1) >> 6)) return false;  // no variable ends there
    const StaticObject* o = static_objects().holding(off);
    if (!o) return false;
    if (o->end >> 32 == 0)  // one word, so that no thread reads one variable's start with another's end
        __atomic_store_n(&g_hot.static_last, uint64_t{o->start} << 32 | o->end, __ATOMIC_RELAXED);
    return bytes > o->end - off;
}

const char* static_variable(const void* p, std::size_t* room) {
    if (!in_static(p, 1)) return nullptr;
    const std::size_t off = static_cast<std::size_t>(static_cast<const char*>(p) - g_hot.static_base);
    const StaticObject* o = static_objects().holding(off);
    if (!o) return nullptr;
    *room = o->end - off;
    return o->name.c_str();
}

bool in_runtime_part(const void* p) {
    State& s = state();
    return rt::in_heap(p, 1) && static_cast<std::size_t>(static_cast<const char*>(p) - s.base) < s.alloc->begin();
}

std::size_t allocation_room(const void* p) {
    State& s = state();
    return rt::in_heap(p, 1) ? s.alloc->room_at(static_cast<const char*>(p) - s.base) : 0;
}

}  // namespace kishmem::rt
