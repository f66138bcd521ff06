#include "coll_check.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "check.h"
#include "kishmem/log.h"

namespace kishmem::api {

std::size_t coll_bytes(const char* call, const char* what, std::size_t nelems, std::size_t elem, std::size_t blocks) {
    const long long as_signed = static_cast<long long>(nelems);
    if (as_signed < 0)
        fatal(call, "%s %zu is %lld as a signed number: a negative count (converted to size_t) is not a count", what,
              nelems, as_signed);
    std::size_t bytes, total;
    if (__builtin_mul_overflow(nelems, elem, &bytes) || __builtin_mul_overflow(bytes, blocks, &total))
        fatal(call, "%s %zu of %zu-byte elements%s overflows the address range (more than 2^64 bytes)", what, nelems,
              elem, blocks > 1 ? ", once per PE," : "");
    const std::size_t room = std::max(rt::heap_size(), rt::g_hot.static_size);
    if (bytes > room)
        fatal(call, "%s %zu of %zu-byte elements is %zu bytes, more than the symmetric heap holds (%zu bytes): "
              "a negative or uninitialized count?", what, nelems, elem, bytes, rt::heap_size());
    return total;
}

std::size_t span_bytes(const char* call, std::size_t count, std::ptrdiff_t stride, std::size_t elem) {
    if (count == 0) return 0;
    std::size_t span;
    if (__builtin_mul_overflow(count - 1, static_cast<std::size_t>(stride), &span) ||
        __builtin_add_overflow(span, 1, &span) || __builtin_mul_overflow(span, elem, &span))
        fatal(call, "%zu elements of %zu bytes at a stride of %td span more than 2^64 bytes", count, elem, stride);
    return span;
}

void check_in_place(const char* call, const void* dest, const void* source, std::size_t bytes) {
    if (g_check && dest != source && overlap(dest, bytes, source, bytes))
        fatal(call, "dest %p and source %p (%zu bytes each) overlap without being the same array: a reduction is "
              "either in place (dest == source) or over disjoint arrays", dest, source, bytes);
}

void warn_overlap(const char* call, const void* dest, std::size_t dbytes, const void* source, std::size_t sbytes,
                  const char* effect) {
    if (!g_check || !overlap(dest, dbytes, source, sbytes)) return;
    static std::mutex m;
    static std::vector<const char*> said;  // routine names (string literals): each warned once
    {
        std::lock_guard<std::mutex> lock(m);
        if (std::find(said.begin(), said.end(), call) != said.end()) return;
        said.push_back(call);
    }
    warn(call, "dest %p (%zu bytes) and source %p (%zu bytes) overlap: the OpenSHMEM specification does not say "
         "what this gives; %s (said once per routine)", dest, dbytes, source, sbytes, effect);
}

void check_pwrk(const char* call, const void* pwrk, int nreduce, std::size_t elem) {
    if (!g_check) return;
    const std::size_t need = std::max<std::size_t>(static_cast<std::size_t>(nreduce) / 2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE);
    if (!rt::is_live(pwrk, need * elem)) fail_sym(call, "pWrk", pwrk, need * elem);
    // A global or static array: is_live held it to its variable (where the symbol table names it).
    if (!rt::in_heap(pwrk, 1)) return;
    const std::size_t room = rt::allocation_room(pwrk);
    if (room < need * elem)
        fatal(call, "pWrk %p has room for %zu elements of %zu bytes in its symmetric allocation%s; the specification "
              "asks for max(nreduce/2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE) = %zu elements (nreduce %d)", pwrk,
              room / elem, elem, room ? "" : " (it is in none)", need, nreduce);
}

}  // namespace kishmem::api
