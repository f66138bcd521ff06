#include "static_segment.h"

#include <elf.h>
#include <link.h>

#include <cstdint>

namespace kishmem {

namespace {
struct Found {
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    uintptr_t relro_end = 0;
};

int visit(struct dl_phdr_info* info, size_t, void* arg) {
    auto* f = static_cast<Found*>(arg);
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph.p_vaddr, hi = lo + ph.p_memsz;
        if (ph.p_type == PT_GNU_RELRO) f->relro_end = hi;
        if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_W)) continue;
        if (lo < f->lo) f->lo = lo;
        if (hi > f->hi) f->hi = hi;
    }
    return 1;  // the first object is the main program: stop there
}
}  // namespace

bool find_static_segment(char** base, std::size_t* bytes) {
    Found f;
    dl_iterate_phdr(visit, &f);
    const uintptr_t page = 4096;
    // The start of the writable segment becomes read-only after relocation (RELRO: the GOT,
    // .data.rel.ro): no variable the program may write lives there.
    if (f.relro_end > f.lo && f.relro_end < f.hi) f.lo = (f.relro_end + page - 1) & ~(page - 1);
    if (f.hi <= f.lo) return false;
    uintptr_t lo = f.lo & ~(page - 1), hi = (f.hi + page - 1) & ~(page - 1);
    *base = reinterpret_cast<char*>(lo);
    *bytes = hi - lo;
    return true;
}

}  // namespace kishmem
