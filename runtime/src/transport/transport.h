// One interface for every way of reaching a peer's heap.  A transport addresses remote memory
// by (pe, offset into the symmetric heap); the runtime's route table picks one per PE at init
// and nobody re-decides later.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "../blob.h"
#include "kishmem/log.h"
#include "kishmem/vocab.h"
#include "kishmem/waiter.h"

namespace kishmem {

// What the runtime asks of a transport beyond the operations every one has (put, get, every
// atomic at 32 and 64 bits, fence, quiet).
enum TransportCaps : unsigned {
    cap_load_store = 1u << 0,      // peer memory is mapped: any thread may use it (the software NIC's check)
    cap_needs_progress = 1u << 1,  // peers' operations need this PE to call progress() (waits do)
};

// A channel is an independent stream of operations: quiet(chan) completes that channel's
// operations and no others' (each context owns one where the transport has enough).  Channel 0
// belongs to the default context.
class Transport {
public:
    virtual ~Transport() = default;
    virtual const char* name() const = 0;
    virtual unsigned caps() const = 0;
    virtual int channels() const = 0;  // independent channels; channel c means c % channels()
    // `nbi`: return once the operation is issued (completed by quiet); otherwise the source
    // buffer is reusable (put) or the data has arrived (get) on return.
    virtual Status put(int chan, int pe, std::size_t off, const void* src, std::size_t n, bool nbi) = 0;
    virtual Status get(int chan, int pe, std::size_t off, void* dst, std::size_t n, bool nbi) = 0;
    virtual Status amo(int chan, int pe, std::size_t off, AmoOp op, unsigned width, uint64_t operand,
                       uint64_t compare, uint64_t* fetched) = 0;
    virtual Status fence(int chan) = 0;
    virtual Status quiet(int chan) = 0;
    virtual void progress() {}
    virtual void close() {}
};

}  // namespace kishmem
