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
    unlink();
    if (base_ && !keep_mapping_) munmap(base_, size_);
}

namespace {
// A new shared-memory object of `bytes`; -1 on failure (said).  Preferably an anonymous memfd
// that peers open as /proc/PID/fd/N while this process keeps it open: it has no name anywhere,
// so nothing can stay behind, whatever ends the job.  Where memfd_create is missing, a POSIX
// shared-memory object with a random name (0600), which the caller unlinks.
int open_new(std::size_t bytes, std::string* out_name) {
    int mfd = memfd_create("kishmem-heap", MFD_CLOEXEC);
    if (mfd >= 0) {
        char path[64];
        std::snprintf(path, sizeof path, "/proc/%d/fd/%d", static_cast<int>(getpid()), mfd);
        if (fchmod(mfd, 0600) != 0 || ftruncate(mfd, static_cast<off_t>(bytes)) != 0) {
            warn("shmem_init", "cannot size a shared segment to %zu bytes: %s", bytes, std::strerror(errno));
            close(mfd);
            return -1;
        }
        *out_name = path;
        return mfd;
    }
    unsigned char rnd[12];
    if (getrandom(rnd, sizeof rnd, 0) != static_cast<ssize_t>(sizeof rnd)) {
        warn("shmem_init", "getrandom failed: %s", std::strerror(errno));
        return -1;
    }
    char name[64];
    int n = std::snprintf(name, sizeof name, "/kishmem-%d-", static_cast<int>(getpid()));
    for (unsigned char c : rnd) n += std::snprintf(name + n, sizeof name - n, "%02x", c);
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {
        warn("shmem_init", "shm_open(%s) failed: %s", name, std::strerror(errno));
        return -1;
    }
    *out_name = name;
    if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
        warn("shmem_init", "cannot size the shared segment %s to %zu bytes: %s", name, bytes, std::strerror(errno));
        close(fd);
        shm_unlink(name);
        return -1;
    }
    return fd;
}

// Copies the program's pages as they are.  In an ASan build the writable segment holds the
// redzones of the global variables, which an instrumented copy (or pwrite's interceptor) would
// report as an overflow: this copy is not instrumented.
__attribute__((no_sanitize("address"))) void raw_copy(void* dst, const void* src, std::size_t n) {
    auto* d = static_cast<volatile uint64_t*>(dst);
    const auto* s = static_cast<const volatile uint64_t*>(src);
    for (std::size_t i = 0; i < n / 8; ++i) d[i] = s[i];
    auto* db = static_cast<volatile unsigned char*>(dst);
    const auto* sb = static_cast<const volatile unsigned char*>(src);
    for (std::size_t i = n / 8 * 8; i < n; ++i) db[i] = sb[i];
}
}  // namespace

Status Segment::create_over(void* at, std::size_t bytes) {
    std::string name;
    int fd = open_new(bytes, &name);
    if (fd < 0) return Status::no_memory;
    name_ = name;
    owner_ = true;
    fd_ = fd;
    // Copy the current contents into the object, then put the object in place of the pages.
    void* copy = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (copy == MAP_FAILED) {
        warn("shmem_init", "cannot copy %zu bytes of global variables into %s: %s", bytes, name.c_str(),
             std::strerror(errno));
        unlink();
        return Status::no_memory;
    }
    raw_copy(copy, at, bytes);
    munmap(copy, bytes);
    void* m = mmap(at, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (m == MAP_FAILED) {
        warn("shmem_init", "cannot map %s over the global variables at %p: %s", name.c_str(), at, std::strerror(errno));
        unlink();
        return Status::no_memory;
    }
    base_ = m;
    size_ = bytes;
    keep_mapping_ = true;
    return Status::ok;
}

Status Segment::create(std::size_t bytes) {
    std::string name;
    int fd = open_new(bytes, &name);
    if (fd < 0) return Status::no_memory;
    name_ = name;
    owner_ = true;
    fd_ = fd;  // peers open a memfd through this process: kept until unlink()
    char* at = static_cast<char*>(reserve_aligned(bytes));
    if (!at) {
        unlink();
        return Status::no_memory;
    }
    base_ = mmap(at, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE | MAP_FIXED, fd, 0);
    if (base_ == MAP_FAILED) {
        base_ = nullptr;
        munmap(at, bytes);
        warn("shmem_init", "mmap of a %zu-byte symmetric heap failed: %s", bytes, std::strerror(errno));
        return Status::no_memory;
    }
    size_ = bytes;
    return Status::ok;
}

// Reserve bytes + kSegmentAlign of address space, keep the first kSegmentAlign-aligned `bytes`
// of it and give the rest back: every PE's heap then starts at a multiple of kSegmentAlign, so
// an offset aligned to A <= kSegmentAlign is an address aligned to A on every PE (what
// shmem_align promises).
void* reserve_aligned(std::size_t bytes) {
    void* span = mmap(nullptr, bytes + kSegmentAlign, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (span == MAP_FAILED) {
        warn("shmem_init", "cannot reserve %zu bytes of address space for the symmetric heap: %s", bytes + kSegmentAlign,
             std::strerror(errno));
        return nullptr;
    }
    char* lo = static_cast<char*>(span);
    char* at = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(lo) + kSegmentAlign - 1) & ~(kSegmentAlign - 1));
    if (at > lo) munmap(lo, at - lo);
    if (lo + kSegmentAlign > at) munmap(at + bytes, lo + kSegmentAlign - at);
    return at;
}

Status Segment::attach(const std::string& name, std::size_t bytes) {
    const bool proc_link = name.compare(0, 6, "/proc/") == 0;  // a peer's memfd (open_new)
    int fd = proc_link ? open(name.c_str(), O_RDWR | O_CLOEXEC) : shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
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
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    if (owner_ && !name_.empty() && name_.compare(0, 6, "/proc/") != 0) shm_unlink(name_.c_str());
    owner_ = false;
}

}  // namespace kishmem
