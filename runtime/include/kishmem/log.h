// Status codes and messages.  Internals return Status; the first function that sees an error
// says it once (PE, call, values).  fatal() ends the whole job, not only this process.
#pragma once
#include <cstdarg>

namespace kishmem {

enum class Status { ok = 0, no_memory, invalid, unreachable, transport_error, unsupported };

const char* status_name(Status s);

// PE used in messages; -1 before the bootstrap knows it.
void log_set_pe(int pe);
int log_pe();

// What fatal() calls to take the job down (the bootstrap's abort); exits when unset.
void log_set_abort(void (*abort_job)(int status, const char* message));

[[noreturn]] void fatal(const char* call, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void warn(const char* call, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void debug(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void log_enable_debug(bool on);

}  // namespace kishmem
