// Argument checks of the C API: cheap, on by default, off with KISHMEM_CHECK=0.  Each failure is
// one message naming the call, this PE and the bad value, then the job ends.
#pragma once
#include <cstddef>

#include "kishmem/runtime.h"

namespace kishmem::api {

extern bool g_check;  // KISHMEM_CHECK, read at init

[[noreturn]] void fail_not_initialized(const char* call);
[[noreturn]] void fail_pe(const char* call, int pe);
[[noreturn]] void fail_sym(const char* call, const char* what, const void* p, std::size_t bytes);

inline void check_init(const char* call) {
    if (__builtin_expect(!rt::initialized(), 0)) fail_not_initialized(call);
}

// A call that names a PE and a symmetric address of `bytes` bytes.
inline void check_pe_sym(const char* call, int pe, const char* what, const void* sym, std::size_t bytes) {
    check_init(call);
    if (!g_check) return;
    if (__builtin_expect(pe < 0 || pe >= rt::n_pes(), 0)) fail_pe(call, pe);
    if (__builtin_expect(!rt::in_heap(sym, bytes), 0)) fail_sym(call, what, sym, bytes);
}

// A local symmetric address (wait_until's ivar).
inline void check_sym(const char* call, const char* what, const void* sym, std::size_t bytes) {
    check_init(call);
    if (g_check && __builtin_expect(!rt::in_heap(sym, bytes), 0)) fail_sym(call, what, sym, bytes);
}

}  // namespace kishmem::api
