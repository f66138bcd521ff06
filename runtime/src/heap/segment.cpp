#include "segment.h"

#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kishmem {

Segment::~Segment() {
    if (owner_) unlink();
    if (base_) munmap(base_, size_);
}

Status Segment::create(std::size_t bytes) {
    unsigned char rnd[12];
    if (getrandom(rnd, sizeof rnd, 0) != static_cast<ssize_t>(sizeof rnd)) {
        warn("shmem_init", "getrandom failed: %s", std::strerror(errno));
        return Status::unsupported;
    }
    char name[64];
    int n = std::snprintf(name, sizeof name, "/kishmem-%d-", static_cast<int>(getpid()));
    for (unsigned char c : rnd) n += std::snprintf(name + n, sizeof name - n, "%02x", c);
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) {
        warn("shmem_init", "shm_open(%s) failed: %s", name, std::strerror(errno));
        return Status::no_memory;
    }
    name_ = name;
    owner_ = true;
    if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
        warn("shmem_init", "cannot size the symmetric heap segment to %zu bytes: %s", bytes, std::strerror(errno));
        close(fd);
        return Status::no_memory;
    }
    // Reserve bytes + kSegmentAlign of address space, map the segment at the first
    // kSegmentAlign-aligned address in it and give the rest back: every PE's heap then starts at
    // a multiple of kSegmentAlign, so an offset aligned to A <= kSegmentAlign is an address
    // aligned to A on every PE (what shmem_align promises).
    void* span = mmap(nullptr, bytes + kSegmentAlign, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (span == MAP_FAILED) {
        close(fd);
        warn("shmem_init", "cannot reserve %zu bytes of address space for the symmetric heap: %s", bytes + kSegmentAlign,
             std::strerror(errno));
        return Status::no_memory;
    }
    char* lo = static_cast<char*>(span);
    char* at = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(lo) + kSegmentAlign - 1) & ~(kSegmentAlign - 1));
    base_ = mmap(at, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE | MAP_FIXED, fd, 0);
    close(fd);
    if (base_ == MAP_FAILED) {
        base_ = nullptr;
        munmap(span, bytes + kSegmentAlign);
        warn("shmem_init", "mmap of a %zu-byte symmetric heap failed: %s", bytes, std::strerror(errno));
        return Status::no_memory;
    }
    if (at > lo) munmap(lo, at - lo);
    if (lo + kSegmentAlign > at) munmap(at + bytes, lo + kSegmentAlign - at);
    size_ = bytes;
    return Status::ok;
}

Status Segment::attach(const std::string& name, std::size_t bytes) {
    int fd = shm_open(name.c_str(), O_RDWR, 0);
    if (fd < 0) {
        warn("shmem_init", "cannot open a peer's heap segment %s: %s", name.c_str(), std::strerror(errno));
        return Status::unreachable;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || static_cast<std::size_t>(st.st_size) != bytes) {
        warn("shmem_init", "peer heap segment %s has %lld bytes, expected %zu (is SHMEM_SYMMETRIC_SIZE the same on every PE?)",
             name.c_str(), static_cast<long long>(st.st_size), bytes);
        close(fd);
        return Status::invalid;
    }
    base_ = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    close(fd);
    if (base_ == MAP_FAILED) {
        base_ = nullptr;
        warn("shmem_init", "mmap of peer heap %s failed: %s", name.c_str(), std::strerror(errno));
        return Status::no_memory;
    }
    size_ = bytes;
    name_ = name;
    return Status::ok;
}

void Segment::unlink() {
    if (owner_ && !name_.empty()) shm_unlink(name_.c_str());
    owner_ = false;
}

}  // namespace kishmem
