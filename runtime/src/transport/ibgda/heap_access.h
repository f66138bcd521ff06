// How the software NIC reaches a target PE's symmetric heap: by (pe, offset), never by
// address. The NIC has already checked keys and bounds when it calls these; an
// implementation only moves the bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kishmem/log.h"
#include "kishmem/vocab.h"

namespace kishmem::ibgda {

class HeapAccess {
public:
    virtual ~HeapAccess() = default;
    // May return before the bytes are visible at the target; flush() makes them visible.
    virtual Status write(int pe, std::size_t off, const void* src, std::size_t n) = 0;
    // Returns with the bytes in dst.
    virtual Status read(int pe, std::size_t off, void* dst, std::size_t n) = 0;
    // 64-bit atomics on the target word in host byte order; the old value in *old.
    virtual Status fetch_add(int pe, std::size_t off, uint64_t add, uint64_t* old) = 0;
    virtual Status compare_swap(int pe, std::size_t off, uint64_t compare, uint64_t swap, uint64_t* old) = 0;
    // An 8-byte store the target sees whole (signal SET): a compare-swap loop unless the
    // route has an atomic set of its own.
    virtual Status atomic_set(int pe, std::size_t off, uint64_t value) {
        uint64_t old = 0;
        Status s = fetch_add(pe, off, 0, &old);
        while (s == Status::ok) {
            uint64_t seen = 0;
            s = compare_swap(pe, off, old, value, &seen);
            if (seen == old) break;
            old = seen;
        }
        return s;
    }
    // Every earlier write is visible at its target (called before a completion is reported).
    virtual Status flush() { return Status::ok; }
    // Why the last operation failed, in words ("" when the status says it all).
    virtual std::string last_error() const { return {}; }
};

// The width-byte (4 or 8) atomic `op` at off (width-aligned) through h: its 64-bit fetch-add
// and compare-swap where they fit, a compare-swap loop on the enclosing 8-byte word otherwise.
// *old receives the value before.
Status amo_through(HeapAccess& h, int pe, std::size_t off, AmoOp op, unsigned width, uint64_t v, uint64_t cmp,
                   uint64_t* old);

// Copies n bytes between this process's memory of any kind (a GPU heap, host memory) and a
// host buffer.
using LocalCopy = std::function<Status(void* dst, const void* src, std::size_t n)>;

// One HeapAccess per PE out of several: PE pe goes to parts[part_of[pe]] (flush flushes every
// part).  The same-host GPU heaps through CUDA IPC and the others over UCX, for instance.
std::unique_ptr<HeapAccess> make_split_heap_access(std::vector<std::unique_ptr<HeapAccess>> parts,
                                                   std::vector<int> part_of);

// The runtime's own routes (kishmem::rt::put/get/amo on rt::heap_base() + off, on channel
// `chan`: 0 is the default context's; a context of its own keeps the NIC's flushes apart from
// the application's quiet): shared memory for mapped peers, UCX for the others. The NIC runs
// on its own thread, so when any peer is reached other than by load/store the runtime must
// have been started with SHMEM_THREAD_MULTIPLE; without it, nullptr and *why says so.
std::unique_ptr<HeapAccess> make_runtime_heap_access(int chan, std::string* why);

}  // namespace kishmem::ibgda
