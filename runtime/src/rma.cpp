// RMA, atomics and ordering: one lookup in the route table, then the transport.
#include "state.h"

namespace kishmem::rt {

char* heap_base() { return state().base; }
std::size_t heap_size() { return state().size; }

void* ptr(const void* sym, int pe) {
    State& s = state();
    char* b = s.shm->base(pe);
    return b ? b + (static_cast<const char*>(sym) - s.base) : nullptr;
}

static inline std::size_t offset_of(const void* sym) { return static_cast<const char*>(sym) - state().base; }

void put(void* dst, const void* src, std::size_t bytes, int pe, bool nbi) {
    if (bytes == 0) return;
    check_status(state().route[pe]->put(pe, offset_of(dst), src, bytes, nbi), "put", pe);
}

void get(void* dst, const void* src, std::size_t bytes, int pe, bool nbi) {
    if (bytes == 0) return;
    check_status(state().route[pe]->get(pe, offset_of(src), dst, bytes, nbi), "get", pe);
}

uint64_t amo(AmoOp op, void* target, unsigned width, uint64_t operand, uint64_t compare, int pe) {
    uint64_t fetched = 0;
    check_status(state().route[pe]->amo(pe, offset_of(target), op, width, operand, compare, &fetched), "atomic", pe);
    return fetched;
}

void fence() {
    for (Transport* t : state().transports) check_status(t->fence(), "shmem_fence", state().pe);
}

void quiet() {
    for (Transport* t : state().transports) check_status(t->quiet(), "shmem_quiet", state().pe);
}

}  // namespace kishmem::rt
