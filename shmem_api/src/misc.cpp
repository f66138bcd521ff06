// Deprecated setup and allocation names, allocation hints, and the cache-management routines
// (no effect: every machine kishmem runs on keeps its caches coherent).
#include <cstdlib>

#include "check.h"
#include "kishmem/log.h"

using namespace kishmem;

extern "C" {

// start_pes programs never call shmem_finalize: they are finalized at exit.
static void finalize_at_exit() { shmem_finalize(); }
void start_pes(int) {
    static bool registered = false;
    shmem_init();
    if (!registered) registered = std::atexit(finalize_at_exit) == 0;
}

// Profiling control: kishmem has no profiling layer to switch, so every level is accepted.
void shmem_pcontrol(const int, ...) {}
int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }

void* shmem_malloc_with_hints(size_t size, long hints) {
    api::check_init("shmem_malloc_with_hints");
    if (hints & ~(SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE | SHMEMX_MALLOC_NO_BARRIER))
        warn("shmem_malloc_with_hints", "unknown hints %#lx ignored", hints);
    if (hints & SHMEMX_MALLOC_NO_BARRIER) return rt::malloc_no_barrier(size, "shmem_malloc_with_hints");
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
