#include "kishmem/log.h"

#include <cstdio>
#include <cstdlib>

namespace kishmem {
namespace {
int g_pe = -1;
bool g_debug = false;
void (*g_abort)(int, const char*) = nullptr;

void vsay(const char* kind, const char* call, const char* fmt, va_list ap, char* out, size_t n) {
    int k = g_pe >= 0 ? std::snprintf(out, n, "kishmem: PE %d: %s", g_pe, kind)
                      : std::snprintf(out, n, "kishmem: %s", kind);
    if (call && k >= 0 && static_cast<size_t>(k) < n) k += std::snprintf(out + k, n - k, "%s: ", call);
    if (k < 0 || static_cast<size_t>(k) >= n) return;
    std::vsnprintf(out + k, n - k, fmt, ap);
}
}  // namespace

const char* status_name(Status s) {
    switch (s) {
        case Status::ok: return "ok";
        case Status::no_memory: return "out of memory";
        case Status::invalid: return "invalid argument";
        case Status::unreachable: return "unreachable";
        case Status::transport_error: return "transport error";
        case Status::unsupported: return "unsupported";
    }
    return "unknown status";
}

void log_set_pe(int pe) { g_pe = pe; }
int log_pe() { return g_pe; }
void log_set_abort(void (*abort_job)(int, const char*)) { g_abort = abort_job; }
void log_enable_debug(bool on) { g_debug = on; }

void fatal(const char* call, const char* fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsay("", call, fmt, ap, msg, sizeof msg);
    va_end(ap);
    std::fprintf(stderr, "%s\n", msg);
    std::fflush(stderr);
    if (g_abort) g_abort(1, msg);  // does not return when the launcher takes the job down
    std::_Exit(1);
}

void warn(const char* call, const char* fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsay("warning: ", call, fmt, ap, msg, sizeof msg);
    va_end(ap);
    std::fprintf(stderr, "%s\n", msg);
}

void debug(const char* fmt, ...) {
    if (!g_debug) return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsay("debug: ", nullptr, fmt, ap, msg, sizeof msg);
    va_end(ap);
    std::fprintf(stderr, "%s\n", msg);
}

}  // namespace kishmem
