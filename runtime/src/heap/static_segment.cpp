#include "static_segment.h"

#include <elf.h>
#include <link.h>

#include <cstdint>

namespace kishmem {

namespace {
struct Found {
    uintptr_t lo = UINTPTR_MAX, hi = 0;
};

int visit(struct dl_phdr_info* info, size_t, void* arg) {
    auto* f = static_cast<Found*>(arg);
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_W)) continue;
        uintptr_t lo = info->dlpi_addr + ph.p_vaddr, hi = lo + ph.p_memsz;
        if (lo < f->lo) f->lo = lo;
        if (hi > f->hi) f->hi = hi;
    }
    return 1;  // the first object is the main program: stop there
}
}  // namespace

bool find_static_segment(char** base, std::size_t* bytes) {
    Found f;
    dl_iterate_phdr(visit, &f);
    if (f.hi <= f.lo) return false;
    const uintptr_t page = 4096;
    uintptr_t lo = f.lo & ~(page - 1), hi = (f.hi + page - 1) & ~(page - 1);
    *base = reinterpret_cast<char*>(lo);
    *bytes = hi - lo;
    return true;
}

}  // namespace kishmem
