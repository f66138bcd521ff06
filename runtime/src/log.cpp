#include "kishmem/log.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace kishmem {
namespace {
int g_pe = -1;
bool g_debug = false;
void (*g_abort)(int, const char*) = nullptr;
uint64_t (*g_thread_id)(void) = nullptr;  // read and set atomically: any thread may say something

// Before the PEs are known (a bad variable, a launch kishmem cannot use): the process by the rank
// its launcher gave it, "rank 3 (PMIX_RANK)", or "" where none did.
const char* launcher_rank() {
    static const std::string label = [] {
        for (const char* v : {"PMIX_RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "PMI_RANK", "RANK"})
            if (const char* r = std::getenv(v); r && *r) return ": rank " + std::string(r) + " (" + v + ")";
        return std::string();
    }();
    return label.c_str();
}

void vsay(const char* kind, const char* call, const char* fmt, va_list ap, char* out, size_t n) {
    uint64_t (*tid)(void) = __atomic_load_n(&g_thread_id, __ATOMIC_ACQUIRE);
    char thread[40] = "";
    if (tid) std::snprintf(thread, sizeof thread, " (thread %llu)", static_cast<unsigned long long>(tid()));
    int k = g_pe >= 0 ? std::snprintf(out, n, "kishmem: PE %d%s: %s", g_pe, thread, kind)
                      : std::snprintf(out, n, "kishmem%s%s: %s", launcher_rank(), thread, kind);
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

__thread ApiCall kishmem_api_call = {nullptr, nullptr, 0, 0, -1, ApiArgs::none};

const char* api_call_text(char* out, std::size_t n, const char* fallback) {
    const ApiCall& c = kishmem_api_call;
    using ull = unsigned long long;
    const ull size = c.size, value = c.value;
    const void* a = c.addr;
    switch (c.name ? c.args : ApiArgs::none) {
        case ApiArgs::none: std::snprintf(out, n, "%s", c.name ? c.name : fallback); break;
        case ApiArgs::dest: std::snprintf(out, n, "%s(dest=%p, %llu bytes, pe=%d)", c.name, a, size, c.pe); break;
        case ApiArgs::source: std::snprintf(out, n, "%s(source=%p, %llu bytes, pe=%d)", c.name, a, size, c.pe); break;
        case ApiArgs::amo: {  // the operand as a signed integer of the target's width
            const long long v = size == 4 ? static_cast<int32_t>(value) : static_cast<long long>(value);
            std::snprintf(out, n, "%s(dest=%p, %llu bytes, value=%lld, pe=%d)", c.name, a, size, v, c.pe);
            break;
        }
        case ApiArgs::signal:
            std::snprintf(out, n, "%s(dest=%p, %llu bytes, signal=%llu, pe=%d)", c.name, a, size, value, c.pe);
            break;
    }
    return out;
}

void log_set_pe(int pe) { g_pe = pe; }
void log_set_thread_id(uint64_t (*thread_id)(void)) { __atomic_store_n(&g_thread_id, thread_id, __ATOMIC_RELEASE); }
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
