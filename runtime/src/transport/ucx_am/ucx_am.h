// Symmetric heaps of PEs on other hosts, reached over UCX active messages: the initiator sends
// each operation (write, read, 64-bit fetch-add, compare-swap, atomic set) with its bytes to the
// target, whose service thread applies it to its own heap through a HeapAccess of its own (the
// GPU heap's copies and atomics on a stream of their own, or plain memory) and answers.  This
// is how the software NIC, the CPU proxy and host calls reach a GPU heap on another host with a
// UCX that cannot register GPU memory (Debian's has no CUDA support); UCX moves host bytes only.
//
// Wire format (one AM per operation, eager, at most kChunk payload bytes each):
//   request  header: Req (op, source PE, client, sequence number, offset, length, operands)
//            data:   the bytes of a write
//   reply    header: Rep (client, sequence number, status, old value)
//            data:   the bytes of a read
// Every request is answered; a write counts as landed once its reply is back (flush waits for
// them).  The target applies each (source PE, client)'s requests in sequence order, so two
// writes of one initiator never land out of order, and flushes its heap before it answers.
//
// Threads: one UCX worker per PE, touched under one mutex; a progress thread of the service
// serves requests (so a target serves while its application computes, waits or runs kernels);
// an initiator's call progresses the worker itself while it waits for its own replies.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../../blob.h"
#include "../ibgda/heap_access.h"
#include "kishmem/log.h"

namespace kishmem {

using ibgda::LocalCopy;  // heap_access.h

class UcxAm {
public:
    // Bytes per message; larger transfers go as several.
    static constexpr std::size_t kChunk = 256 * 1024;

    // me of npes; `local` applies requests peers send to this PE's heap of heap_bytes (called
    // with pe = me, under the service's lock; not owned).  *mine receives what peers need to
    // connect.
    static Status open(int me, int npes, std::size_t heap_bytes, ibgda::HeapAccess* local, std::unique_ptr<UcxAm>* out,
                       Blob* mine, std::string* why);
    ~UcxAm();
    // Endpoints to every pe with want[pe] (blobs: every PE's *mine, in PE order); endpoints to
    // the others are made when a client first sends there or a request from there is answered.
    Status connect(const std::vector<Blob>& blobs, const std::vector<bool>& want, std::string* why,
                   const std::function<void()>& barrier = {});
    // The service's one step (what its thread does), for a caller waiting before start().
    void progress();
    // The service thread: starts serving peers' requests / stops (before the heap goes).
    void start();
    void stop();

    // A HeapAccess to the connected peers (each client keeps its own order and flushes; one
    // thread at a time per client).  `copy` reads sources and fills destinations (nullptr:
    // memcpy, for host memory).  The service must outlive its clients.
    std::unique_ptr<ibgda::HeapAccess> client(LocalCopy copy);

    struct Stats {
        uint64_t requests_sent = 0;    // by this PE's clients
        uint64_t requests_served = 0;  // for peers
        uint64_t bytes_sent = 0;       // payload of writes sent and reads answered
        uint64_t resent = 0;           // requests sent again (no answer in time: a message went missing)
        uint64_t repeated = 0;         // requests that came again, and answers that did (ignored, never applied twice)
        uint64_t reconnects = 0;       // endpoints made anew after messages through them went missing
    };
    Stats stats() const;

    struct Impl;

private:
    explicit UcxAm(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace kishmem
