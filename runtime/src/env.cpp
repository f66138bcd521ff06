#include "kishmem/env.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <strings.h>

#include "kishmem/log.h"

namespace kishmem::env {

const std::vector<Var>& table() {
    static const std::vector<Var> rows = {
#define KISHMEM_ENV(id, name, alias, type, def, cat, doc) \
    Var{name, alias, Type::type##_type_tag, def, cat, doc},
#define size_type_tag size
#define int_type_tag int_
#define bool_type_tag bool_
#define seconds_type_tag seconds
#define string_type_tag string
#include "env.def"
#undef KISHMEM_ENV
    };
    return rows;
}

std::string text_of(const Var& v, const char** source) {
    const char* s = std::getenv(v.name);
    const char* from = v.name;
    if (!s && v.alias[0]) {
        s = std::getenv(v.alias);
        from = v.alias;
    }
    if (!s) {
        s = v.default_text;
        from = "default";
    }
    if (source) *source = from;
    return s;
}

bool parse_size(const char* text, std::size_t* out) {
    if (!text || !*text) return false;
    errno = 0;
    char* end = nullptr;
    double v = std::strtod(text, &end);
    if (errno || end == text || !(v >= 0) || !std::isfinite(v)) return false;
    double scale = 1;
    if (*end) {
        switch (*end) {
            case 'k': case 'K': scale = 1024.0; break;
            case 'm': case 'M': scale = 1024.0 * 1024; break;
            case 'g': case 'G': scale = 1024.0 * 1024 * 1024; break;
            case 't': case 'T': scale = 1024.0 * 1024 * 1024 * 1024; break;
            default: return false;
        }
        ++end;
        if (*end == 'b' || *end == 'B') ++end;  // "512MB"
        if (*end) return false;
    }
    double bytes = v * scale;
    if (bytes > 9.0e18 || bytes != std::floor(bytes)) return false;
    *out = static_cast<std::size_t>(bytes);
    return true;
}

bool parse_bool(const char* text, bool* out) {
    static const char* yes[] = {"1", "y", "yes", "on", "true"};
    static const char* no[] = {"0", "n", "no", "off", "false"};
    for (const char* y : yes)
        if (!strcasecmp(text, y)) return *out = true, true;
    for (const char* n : no)
        if (!strcasecmp(text, n)) return *out = false, true;
    return false;
}

bool parse_int(const char* text, long* out) {
    if (!text || !*text) return false;
    errno = 0;
    char* end = nullptr;
    long v = std::strtol(text, &end, 0);
    if (errno || *end) return false;
    *out = v;
    return true;
}

bool parse_seconds(const char* text, double* out) {
    if (!text || !*text) return false;
    errno = 0;
    char* end = nullptr;
    double v = std::strtod(text, &end);
    if (errno || *end || !(v >= 0) || !std::isfinite(v)) return false;
    *out = v;
    return true;
}

namespace {
template <class T, class Parse>
T get(const char* name, Parse parse, const char* kind) {
    for (const Var& v : table()) {
        if (std::strcmp(v.name, name)) continue;
        const char* from = nullptr;
        std::string text = text_of(v, &from);
        T value{};
        if (!parse(text.c_str(), &value))
            fatal("shmem_init", "environment variable %s='%s' is not a valid %s", from, text.c_str(), kind);
        return value;
    }
    fatal("env", "no variable %s in the table", name);
}
bool parse_string(const char* text, std::string* out) { return *out = text, true; }
}  // namespace

#define KISHMEM_ENV_PARSE_size parse_size, "size (a number with an optional K, M, G or T suffix)"
#define KISHMEM_ENV_PARSE_int parse_int, "integer"
#define KISHMEM_ENV_PARSE_bool parse_bool, "boolean (1/0, yes/no, on/off, true/false)"
#define KISHMEM_ENV_PARSE_seconds parse_seconds, "number of seconds"
#define KISHMEM_ENV_PARSE_string parse_string, "string"
#define KISHMEM_ENV(id, name, alias, type, def, cat, doc) \
    KISHMEM_ENV_##type id() { return get<KISHMEM_ENV_##type>(name, KISHMEM_ENV_PARSE_##type); }
#include "env.def"
#undef KISHMEM_ENV

}  // namespace kishmem::env
