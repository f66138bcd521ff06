#include "static_segment.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace kishmem {

namespace {
// The main program's writable segments, and its load bias (what its symbols' values are
// relative to).
struct Found {
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    uintptr_t relro_end = 0;
    uintptr_t bias = 0;
};

int visit(struct dl_phdr_info* info, size_t, void* arg) {
    auto* f = static_cast<Found*>(arg);
    f->bias = info->dlpi_addr;
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

namespace {
// The executable's file mapped read-only, for its section headers and symbols.
struct MappedFile {
    const char* p = nullptr;
    std::size_t n = 0;
    explicit MappedFile(const char* path) {
        const int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0) return;
        if (fstat(fd, &st) == 0 && st.st_size > static_cast<off_t>(sizeof(ElfW(Ehdr)))) {
            void* m = mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
            if (m != MAP_FAILED) p = static_cast<const char*>(m), n = static_cast<std::size_t>(st.st_size);
        }
        close(fd);
    }
    ~MappedFile() {
        if (p) munmap(const_cast<char*>(p), n);
    }
    bool holds(std::size_t off, std::size_t bytes) const { return off <= n && bytes <= n - off; }
};
}  // namespace

StaticObjects& static_objects() {
    static StaticObjects objects;
    return objects;
}

void StaticObjects::clear() {
    objects_.clear();
    bits_.clear();
}

void StaticObjects::load(const char* base, std::size_t bytes) {
    clear();
    Found prog;
    dl_iterate_phdr(visit, &prog);
    const uintptr_t bias = prog.bias;
    const MappedFile f("/proc/self/exe");
    if (!f.p || std::memcmp(f.p, ELFMAG, SELFMAG) != 0 || f.p[EI_CLASS] != (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32))
        return;
    const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(f.p);
    if (eh->e_shentsize != sizeof(ElfW(Shdr)) || !f.holds(eh->e_shoff, std::size_t{eh->e_shnum} * sizeof(ElfW(Shdr)))) return;
    const auto* sh = reinterpret_cast<const ElfW(Shdr)*>(f.p + eh->e_shoff);
    // The full symbol table where there is one (it has the static variables too), else the
    // dynamic one.
    const ElfW(Shdr)* table = nullptr;
    for (int want : {SHT_SYMTAB, SHT_DYNSYM}) {
        for (unsigned i = 0; i < eh->e_shnum && !table; ++i)
            if (sh[i].sh_type == static_cast<unsigned>(want) && sh[i].sh_link < eh->e_shnum) table = &sh[i];
        if (table) break;
    }
    if (!table || !f.holds(table->sh_offset, table->sh_size)) return;
    const ElfW(Shdr)& names = sh[table->sh_link];
    if (!f.holds(names.sh_offset, names.sh_size)) return;
    const auto* sym = reinterpret_cast<const ElfW(Sym)*>(f.p + table->sh_offset);
    const std::size_t count = table->sh_size / sizeof(ElfW(Sym));
    const uintptr_t lo = reinterpret_cast<uintptr_t>(base);
    for (std::size_t i = 0; i < count; ++i) {
        const ElfW(Sym)& y = sym[i];
        if (ELF64_ST_TYPE(y.st_info) != STT_OBJECT || y.st_size == 0 || y.st_shndx == SHN_UNDEF) continue;
        const uintptr_t at = bias + y.st_value;
        if (at < lo || at - lo >= bytes || y.st_size > bytes - (at - lo)) continue;
        const char* name = y.st_name < names.sh_size ? f.p + names.sh_offset + y.st_name : "?";
        objects_.push_back({at - lo, at - lo + y.st_size, std::string(name, strnlen(name, names.sh_size - y.st_name))});
    }
    std::sort(objects_.begin(), objects_.end(), [](const StaticObject& a, const StaticObject& b) {
        return a.start < b.start || (a.start == b.start && a.end > b.end);
    });
    std::size_t kept = 0;  // overlapping variables (aliases, a copy and its alias) become one
    for (StaticObject& o : objects_) {
        if (kept && o.start < objects_[kept - 1].end) {
            objects_[kept - 1].end = std::max(objects_[kept - 1].end, o.end);
            continue;
        }
        if (&objects_[kept] != &o) objects_[kept] = std::move(o);
        ++kept;
    }
    objects_.resize(kept);
    bits_.assign((bytes / 64 + 8) / 8 + 8, 0);  // whole 64-bit words (rt::static_crosses reads words)
    for (const StaticObject& o : objects_)
        if (o.end < bytes) bits_[o.end >> 9] |= static_cast<uint8_t>(1u << (o.end >> 6 & 7));
}

const StaticObject* StaticObjects::holding(std::size_t off) const {
    auto it = std::upper_bound(objects_.begin(), objects_.end(), off,
                               [](std::size_t v, const StaticObject& o) { return v < o.start; });
    if (it == objects_.begin()) return nullptr;
    --it;
    return off < it->end ? &*it : nullptr;
}

}  // namespace kishmem
