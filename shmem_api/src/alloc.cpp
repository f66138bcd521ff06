// Symmetric memory management.
#include <mutex>
#include <set>

#include "check.h"
#include "kishmem/log.h"
#include "shmem.h"

using namespace kishmem;

namespace {
std::mutex g_counters_mu;
std::set<const void*> g_counters;  // the live counters of shmemx_ct_create
}  // namespace

bool kishmem::api::ct_made(const void* ct) {
    std::lock_guard<std::mutex> hold(g_counters_mu);
    return g_counters.count(ct) != 0;
}

extern "C" {

void* shmem_malloc(size_t size) {
    api::check_init("shmem_malloc");
    return rt::malloc(size, 0, "shmem_malloc");
}

void* shmem_calloc(size_t count, size_t size) {
    api::check_init("shmem_calloc");
    return rt::calloc(count, size, "shmem_calloc");
}

void* shmem_align(size_t alignment, size_t size) {
    api::check_init("shmem_align");
    if (alignment == 0 || (alignment & (alignment - 1)))
        fatal("shmem_align", "alignment %zu is not a power of two", alignment);
    return rt::malloc(size, alignment, "shmem_align");
}

void* shmem_realloc(void* ptr, size_t size) {
    api::check_init("shmem_realloc");
    if (ptr && api::g_check && (!rt::in_heap(ptr, 1) || rt::allocation_size(ptr) == 0))
        fatal("shmem_realloc", "ptr %p is not a live symmetric allocation", ptr);
    return rt::realloc(ptr, size, "shmem_realloc");
}

void shmem_free(void* ptr) {
    api::check_init("shmem_free");
    if (ptr && api::g_check && (!rt::in_heap(ptr, 1) || rt::allocation_size(ptr) == 0))
        fatal("shmem_free", "ptr %p is not a live symmetric allocation", ptr);
    rt::free(ptr, "shmem_free");
}

// Sandia OpenSHMEM's counters (kishmem/shmemx_sos.h): one zeroed word, collective as shmem_calloc;
// the words made so far are kept, so that any other address is refused as a counter.
void shmemx_ct_create(shmemx_ct_t* ct) {
    api::check_init("shmemx_ct_create");
    if (!ct) fatal("shmemx_ct_create", "ct is NULL: pass the address of the shmemx_ct_t to set");
    void* word = rt::calloc(1, sizeof(uint64_t), "shmemx_ct_create");
    if (!word) fatal("shmemx_ct_create", "no symmetric heap left for a counter: raise SHMEM_SYMMETRIC_SIZE");
    {
        std::lock_guard<std::mutex> hold(g_counters_mu);
        g_counters.insert(word);
    }
    *ct = static_cast<char*>(word);
}

void shmemx_ct_free(shmemx_ct_t* ct) {
    api::check_init("shmemx_ct_free");
    if (!ct) fatal("shmemx_ct_free", "ct is NULL: pass the address of a shmemx_ct_t made by shmemx_ct_create");
    uint64_t* word = api::check_ct("shmemx_ct_free", *ct);
    {
        std::lock_guard<std::mutex> hold(g_counters_mu);
        g_counters.erase(word);
    }
    rt::free(word, "shmemx_ct_free");
    *ct = nullptr;
}

}  // extern "C"
