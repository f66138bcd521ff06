// HeapAccess over the runtime's route table: whatever reaches a PE for shmem_put reaches it
// for the software NIC too.  Runtime core (it reads the route table), not a transport: the
// software NIC it serves sits below the runtime and only sees the HeapAccess interface.
#include "transport/ibgda/heap_access.h"

#include "kishmem/runtime.h"
#include "state.h"

namespace kishmem::ibgda {

namespace {

class RuntimeHeapAccess final : public HeapAccess {
public:
    explicit RuntimeHeapAccess(int chan) : chan_(chan) {}
    Status write(int pe, std::size_t off, const void* src, std::size_t n) override {
        // Blocking: src may be the NIC's copy of an inline WQE, reused for the next WQE. The
        // bytes may still be in flight to the target; flush() waits for them.
        rt::put(chan_, rt::heap_base() + off, src, n, pe, false);
        return Status::ok;
    }
    Status read(int pe, std::size_t off, void* dst, std::size_t n) override {
        rt::get(chan_, dst, rt::heap_base() + off, n, pe, false);
        return Status::ok;
    }
    Status fetch_add(int pe, std::size_t off, uint64_t add, uint64_t* old) override {
        *old = rt::amo(chan_, rt::AmoOp::fetch_add, rt::heap_base() + off, 8, add, 0, pe);
        return Status::ok;
    }
    Status compare_swap(int pe, std::size_t off, uint64_t compare, uint64_t swap, uint64_t* old) override {
        *old = rt::amo(chan_, rt::AmoOp::cswap, rt::heap_base() + off, 8, swap, compare, pe);
        return Status::ok;
    }
    Status atomic_set(int pe, std::size_t off, uint64_t value) override {
        rt::amo(chan_, rt::AmoOp::set, rt::heap_base() + off, 8, value, 0, pe);
        return Status::ok;
    }
    Status flush() override {
        rt::quiet(chan_);
        return Status::ok;
    }

private:
    int chan_;
};

}  // namespace

std::unique_ptr<HeapAccess> make_runtime_heap_access(int chan, std::string* why) {
    if (!rt::initialized()) {
        if (why) *why = "the runtime is not initialized (call shmem_init first)";
        return nullptr;
    }
    constexpr int kThreadMultiple = 3;
    if (rt::thread_level() < kThreadMultiple) {
        const State& s = state();
        for (int pe = 0; pe < s.npes; ++pe) {
            // Load/store routes are safe from any thread; the others need the runtime's
            // thread-multiple mode.
            if (s.route[pe]->caps() & cap_load_store) continue;
            if (why)
                *why = "PE " + std::to_string(pe) +
                       " is reached through " + s.route[pe]->name() + " and the software NIC thread issues operations "
                       "concurrently with the application: initialize with SHMEM_THREAD_MULTIPLE";
            return nullptr;
        }
    }
    return std::make_unique<RuntimeHeapAccess>(chan);
}

}  // namespace kishmem::ibgda
