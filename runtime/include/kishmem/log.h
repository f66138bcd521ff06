// Status codes and messages.  Internals return Status; the first function that sees an error
// says it once (PE, call, values).  fatal() ends the whole job, not only this process.
#pragma once
#include <cstdarg>
#include <cstddef>
#include <cstdint>

namespace kishmem {

enum class Status { ok = 0, no_memory, invalid, unreachable, transport_error, unsupported };

const char* status_name(Status s);

// PE used in messages; -1 before the bootstrap knows it.
void log_set_pe(int pe);
int log_pe();
// The program's own numbering of its threads (shmemx_register_gettid): when set, every message
// names the thread that says it, "kishmem: PE n (thread t): ..."; nullptr turns it off.
void log_set_thread_id(uint64_t (*thread_id)(void));

// What fatal() calls to take the job down (the bootstrap's abort); exits when unset.
void log_set_abort(void (*abort_job)(int status, const char* message));

[[noreturn]] void fatal(const char* call, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void warn(const char* call, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void debug(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void log_enable_debug(bool on);

// The API routine this thread is in, with its arguments, for the words of an error found below
// it: a transport that fails names the routine the program called ("shmem_putmem_nbi(dest=0x...,
// 64 bytes, pe=3)"), not its own step ("put").  The C API fills it on entry and clears it on
// return (ApiCallScope): a few stores into thread-local memory, nothing formatted unless an
// error is said.
enum class ApiArgs : uint8_t {
    none,    // the name only (shmem_quiet)
    dest,    // addr: dest, size: bytes
    source,  // addr: source, size: bytes
    amo,     // addr: dest, size: width, value: the operand
    signal,  // addr: dest, size: bytes, value: the signal value
};
struct ApiCall {
    const char* name;  // nullptr outside the API
    const void* addr;
    uint64_t size;
    uint64_t value;
    int pe;  // as the program passed it (relative to the context's team)
    ApiArgs args;
};
extern __thread ApiCall kishmem_api_call;

class ApiCallScope {
public:
    ApiCallScope(const char* name, ApiArgs args, const void* addr = nullptr, uint64_t size = 0, int pe = -1,
                 uint64_t value = 0) {
        kishmem_api_call = ApiCall{name, addr, size, value, pe, args};
    }
    ~ApiCallScope() { kishmem_api_call.name = nullptr; }
    ApiCallScope(const ApiCallScope&) = delete;
    ApiCallScope& operator=(const ApiCallScope&) = delete;
};

// This thread's routine in words, "shmem_long_atomic_fetch_add(dest=0x7f.., 8 bytes, value=5,
// pe=1)", written into out; `fallback` (the caller's own name for its step) when the thread is
// in no recorded routine.  Returns out.
const char* api_call_text(char* out, std::size_t n, const char* fallback);

}  // namespace kishmem
