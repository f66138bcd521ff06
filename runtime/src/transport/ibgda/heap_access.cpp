// See heap_access.h.
#include "heap_access.h"

#include "kishmem/device/amo_code.h"

namespace kishmem::ibgda {

Status amo_through(HeapAccess& h, int pe, std::size_t off, AmoOp op, unsigned width, uint64_t v, uint64_t cmp,
                   uint64_t* old) {
    if (width == 8 && (op == AmoOp::fetch || op == AmoOp::add || op == AmoOp::fetch_add))
        return h.fetch_add(pe, off, op == AmoOp::fetch ? 0 : v, old);
    if (width == 8 && op == AmoOp::cswap) return h.compare_swap(pe, off, cmp, v, old);
    const std::size_t word = off & ~std::size_t{7};
    uint64_t first = 0;
    Status s = h.fetch_add(pe, word, 0, &first);
    if (s != Status::ok) return s;
    *old = device::amo_by_cas(op, width, static_cast<unsigned>(off - word) * 8, first, v, cmp,
                              [&](uint64_t expect, uint64_t want) {
                                  uint64_t seen = expect;
                                  if (s == Status::ok) s = h.compare_swap(pe, word, expect, want, &seen);
                                  return s == Status::ok ? seen : expect;
                              });
    return s;
}

namespace {

class SplitHeapAccess final : public HeapAccess {
public:
    SplitHeapAccess(std::vector<std::unique_ptr<HeapAccess>> parts, std::vector<int> part_of)
        : parts_(std::move(parts)), part_of_(std::move(part_of)) {}
    Status write(int pe, std::size_t off, const void* src, std::size_t n) override {
        HeapAccess* h = at(pe);
        return h ? said(h, h->write(pe, off, src, n)) : Status::unreachable;
    }
    Status read(int pe, std::size_t off, void* dst, std::size_t n) override {
        HeapAccess* h = at(pe);
        return h ? said(h, h->read(pe, off, dst, n)) : Status::unreachable;
    }
    Status fetch_add(int pe, std::size_t off, uint64_t add, uint64_t* old) override {
        HeapAccess* h = at(pe);
        return h ? said(h, h->fetch_add(pe, off, add, old)) : Status::unreachable;
    }
    Status compare_swap(int pe, std::size_t off, uint64_t compare, uint64_t swap, uint64_t* old) override {
        HeapAccess* h = at(pe);
        return h ? said(h, h->compare_swap(pe, off, compare, swap, old)) : Status::unreachable;
    }
    Status atomic_set(int pe, std::size_t off, uint64_t value) override {
        HeapAccess* h = at(pe);
        return h ? said(h, h->atomic_set(pe, off, value)) : Status::unreachable;
    }
    Status flush() override {
        Status first = Status::ok;
        for (auto& p : parts_) {
            const Status s = said(p.get(), p->flush());
            if (first == Status::ok) first = s;
        }
        return first;
    }
    std::string last_error() const override { return failed_ ? failed_->last_error() : std::string(); }

private:
    HeapAccess* at(int pe) const {
        if (pe < 0 || static_cast<std::size_t>(pe) >= part_of_.size()) return nullptr;
        const int i = part_of_[pe];
        return i >= 0 && static_cast<std::size_t>(i) < parts_.size() ? parts_[i].get() : nullptr;
    }
    Status said(HeapAccess* h, Status s) {
        if (s != Status::ok) failed_ = h;
        return s;
    }
    std::vector<std::unique_ptr<HeapAccess>> parts_;
    std::vector<int> part_of_;
    HeapAccess* failed_ = nullptr;  // the part that failed last
};

}  // namespace

std::unique_ptr<HeapAccess> make_split_heap_access(std::vector<std::unique_ptr<HeapAccess>> parts,
                                                   std::vector<int> part_of) {
    return std::make_unique<SplitHeapAccess>(std::move(parts), std::move(part_of));
}

}  // namespace kishmem::ibgda
