#include "allocator.h"

namespace kishmem {

HeapAllocator::HeapAllocator(std::size_t begin, std::size_t end) : begin_(begin), end_(end), freed_(end) {
    if (end > begin) free_[begin] = end - begin;
    // The runtime's own part below begin is no block of the program's: the checks refuse it as
    // they refuse a freed block (its whole granules; begin is a multiple of them).
    if (freed_.bits() && begin >= FreedMap::kGranuleBytes) freed_.mark(0, (begin >> FreedMap::kGranuleShift) - 1, true);
}

std::optional<std::size_t> HeapAllocator::alloc(std::size_t bytes, std::size_t align) {
    if (bytes == 0 || align == 0 || (align & (align - 1))) return std::nullopt;
    for (auto it = free_.begin(); it != free_.end(); ++it) {
        std::size_t off = it->first, len = it->second;
        std::size_t start = (off + align - 1) & ~(align - 1);
        if (start < off || start - off > len || len - (start - off) < bytes) continue;
        free_.erase(it);
        if (start > off) free_[off] = start - off;
        std::size_t tail = off + len - (start + bytes);
        if (tail) free_[start + bytes] = tail;
        used_[start] = bytes;
        note(start, bytes, false);
        refresh_bounds(start, bytes);
        return start;
    }
    return std::nullopt;
}

void HeapAllocator::insert_free(std::size_t off, std::size_t len) {
    auto next = free_.lower_bound(off);
    if (next != free_.end() && off + len == next->first) {
        len += next->second;
        next = free_.erase(next);
    }
    if (next != free_.begin()) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == off) {
            prev->second += len;
            return;
        }
    }
    free_[off] = len;
}

bool HeapAllocator::free(std::size_t offset) {
    auto it = used_.find(offset);
    if (it == used_.end()) return false;
    std::size_t len = it->second;
    used_.erase(it);
    insert_free(offset, len);
    note(offset, len, true);
    refresh_bounds(offset, len);
    return true;
}

std::optional<std::size_t> HeapAllocator::realloc(std::size_t offset, std::size_t bytes) {
    auto it = used_.find(offset);
    if (it == used_.end() || bytes == 0) return std::nullopt;
    std::size_t old = it->second;
    if (bytes <= old) {
        it->second = bytes;
        if (old > bytes) {
            insert_free(offset + bytes, old - bytes);
            note(offset + bytes, old - bytes, true);
            refresh_bounds(offset, old);
            refresh_bounds(offset, bytes);
        }
        return offset;
    }
    auto next = free_.find(offset + old);
    if (next != free_.end() && next->second >= bytes - old) {
        std::size_t rest = next->second - (bytes - old);
        free_.erase(next);
        if (rest) free_[offset + bytes] = rest;
        it->second = bytes;
        note(offset + old, bytes - old, false);
        refresh_bounds(offset, old);
        refresh_bounds(offset, bytes);
        return offset;
    }
    return alloc(bytes, 64);  // caller copies and frees the old block
}

std::size_t HeapAllocator::size_of(std::size_t offset) const {
    auto it = used_.find(offset);
    return it == used_.end() ? 0 : it->second;
}

std::size_t HeapAllocator::room_at(std::size_t offset) const {
    auto it = used_.upper_bound(offset);  // the first block starting after offset
    if (it == used_.begin()) return 0;
    --it;
    return offset < it->first + it->second ? it->first + it->second - offset : 0;
}

bool HeapAllocator::granule_live(std::size_t g) const {
    // Blocks are disjoint and sorted: only the last one starting before the granule's end can
    // reach into it.
    const std::size_t lo = g << FreedMap::kGranuleShift;
    auto it = used_.lower_bound(lo + FreedMap::kGranuleBytes);
    if (it == used_.begin()) return false;
    --it;
    return it->first + it->second > lo;
}

void HeapAllocator::refresh_bound(std::size_t g) {
    if (!freed_.bounds()) return;
    const std::size_t lo = g << FreedMap::kGranuleShift;
    bool on = used_.count(lo) != 0;
    auto it = used_.lower_bound(lo);  // the last block starting before the granule ...
    if (!on && it != used_.begin()) {
        --it;  // ... ends in the granule before it
        on = ((it->first + it->second + FreedMap::kGranuleBytes - 1) >> FreedMap::kGranuleShift) == g;
    }
    freed_.set_bound(g, on);
}

void HeapAllocator::note(std::size_t off, std::size_t len, bool freed) {
    if (!len || !freed_.bits()) return;
    std::size_t first = off >> FreedMap::kGranuleShift, last = (off + len - 1) >> FreedMap::kGranuleShift;
    if (freed) {  // the end granules may still hold bytes of a neighbour
        if (granule_live(first)) ++first;
        if (last >= first && granule_live(last)) --last;
        if (last < first || last == static_cast<std::size_t>(-1)) return;
    }
    freed_.mark(first, last, freed);
}

std::size_t HeapAllocator::bytes_free() const {
    std::size_t n = 0;
    for (auto& f : free_) n += f.second;
    return n;
}

std::size_t HeapAllocator::largest_free() const {
    std::size_t n = 0;
    for (auto& f : free_) n = f.second > n ? f.second : n;
    return n;
}

}  // namespace kishmem
