// Shared-memory segments that hold symmetric heaps, so that PEs on one host can map each
// other's heap.  A segment is an anonymous memfd that peers open as /proc/PID/fd/N (only this
// user can) while its owner holds it open: it has no name in /dev/shm, so a job that fails
// at any point, even by SIGKILL, leaves nothing behind.  Where memfd_create is missing, a POSIX
// shared-memory object with a random name (0600), unlinked as soon as every local peer has
// mapped it and on every error path (fatal() unlinks it before the job ends).
#pragma once
#include <cstddef>
#include <string>

#include "kishmem/log.h"

namespace kishmem {

// Where create() maps a segment: a multiple of this (address space is reserved around it).
constexpr std::size_t kSegmentAlign = std::size_t(1) << 30;

// Reserves `bytes` of address space (PROT_NONE) at a multiple of kSegmentAlign, for a mapping
// someone else puts there with MAP_FIXED (and later removes); nullptr when it cannot (said).
void* reserve_aligned(std::size_t bytes);

class Segment {
public:
    Segment() = default;
    Segment(const Segment&) = delete;
    Segment& operator=(const Segment&) = delete;
    ~Segment();

    // Creates and maps a new segment of `bytes` at a multiple of kSegmentAlign.
    Status create(std::size_t bytes);
    // Turns the private pages [at, at + bytes) of this process (page-aligned) into a new shared
    // segment with the same contents at the same address, so that peers can map them.  The
    // mapping outlives this object (the program keeps using that memory); writes that other
    // threads make to the range while it is being moved may be lost.
    Status create_over(void* at, std::size_t bytes);
    // Maps a peer's segment by name; its size must be `bytes`.
    Status attach(const std::string& name, std::size_t bytes);
    // Removes the name, or closes the descriptor peers open the memfd through (the mappings
    // stay): call once every peer has attached.  Idempotent.
    void unlink();

    void* base() const { return base_; }
    std::size_t size() const { return size_; }
    const std::string& name() const { return name_; }

private:
    void* base_ = nullptr;
    std::size_t size_ = 0;
    std::string name_;
    bool owner_ = false;
    int fd_ = -1;  // the object, kept open until unlink() (peers open a memfd through it)
    bool keep_mapping_ = false;  // create_over: the memory belongs to the program
};

}  // namespace kishmem
