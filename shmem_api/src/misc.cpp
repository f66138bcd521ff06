// Deprecated setup and allocation names, allocation hints, and the cache-management routines
// (no effect: every machine kishmem runs on keeps its caches coherent).
#include "check.h"
#include "kishmem/log.h"

using namespace kishmem;

extern "C" {

void start_pes(int) { shmem_init(); }
int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }

void* shmem_malloc_with_hints(size_t size, long hints) {
    api::check_init("shmem_malloc_with_hints");
    if (hints & ~(SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE))
        warn("shmem_malloc_with_hints", "unknown hints %#lx ignored", hints);
    return rt::malloc(size, 0, "shmem_malloc_with_hints");
}

void* shmalloc(size_t size) { return shmem_malloc(size); }
void* shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }
void* shrealloc(void* ptr, size_t size) { return shmem_realloc(ptr, size); }
void shfree(void* ptr) { shmem_free(ptr); }

void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void*) {}
void shmem_set_cache_line_inv(void*) {}
void shmem_udcflush(void) {}
void shmem_udcflush_line(void*) {}

}  // extern "C"
