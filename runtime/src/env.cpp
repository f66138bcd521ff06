#include "kishmem/env.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <strings.h>

#include <iterator>
#include <type_traits>

#include "kishmem/log.h"

namespace kishmem::env {

namespace {
// auto_bool rows' words, in AutoBool's order (any boolean word is read as on or off).
constexpr const char* kAutoBoolWords[] = {"auto", "on", "off"};
std::vector<std::string> auto_bool_words() { return {std::begin(kAutoBoolWords), std::end(kAutoBoolWords)}; }

// "auto_, ucx, ibgda" -> {"auto", "ucx", "ibgda"}: a choice row's enumerators as words.
std::vector<std::string> words_of(const char* list) {
    std::vector<std::string> out;
    std::string w;
    for (const char* p = list;; ++p) {
        if (*p == ',' || *p == '\0') {
            if (!w.empty() && w.back() == '_') w.pop_back();
            out.push_back(w);
            w.clear();
            if (*p == '\0') break;
        } else if (*p != ' ') {
            w += *p;
        }
    }
    return out;
}
}  // namespace

const std::vector<Var>& table() {
    static const std::vector<Var> rows = {
#define KISHMEM_ENV_STR(...) #__VA_ARGS__
#define KISHMEM_ENV(id, name, alias, type, def, cat, doc) \
    Var{name, alias, Type::type##_type_tag, def, cat, doc, type##_type_words},
#define KISHMEM_ENV_CHOICE(id, name, alias, Enum, choices, def, cat, doc) \
    Var{name, alias, Type::choice, def, cat, doc, words_of(KISHMEM_ENV_STR choices)},
#define KISHMEM_ENV_FAULT(id, name, alias, Enum, kinds, def, cat, doc) \
    Var{name, alias, Type::fault, def, cat, doc, words_of(KISHMEM_ENV_STR kinds)},
#define size_type_tag size
#define int_type_tag int_
#define bool_type_tag bool_
#define flag_type_tag flag
#define seconds_type_tag seconds
#define string_type_tag string
#define auto_bool_type_tag auto_bool
#define size_type_words {}
#define int_type_words {}
#define bool_type_words {}
#define flag_type_words {}
#define seconds_type_words {}
#define string_type_words {}
#define auto_bool_type_words auto_bool_words()
#include "env.def"
#undef KISHMEM_ENV_FAULT
#undef KISHMEM_ENV_CHOICE
#undef KISHMEM_ENV
#undef KISHMEM_ENV_STR
    };
    return rows;
}

const Var* find(const char* name) {
    for (const Var& v : table())
        if (!std::strcmp(v.name, name)) return &v;
    return nullptr;
}

std::string text_of(const Var& v, const char** source) {
    const char* s = std::getenv(v.name);
    const char* from = v.name;
    if (!s && v.alias[0]) {
        s = std::getenv(v.alias);
        from = v.alias;
    }
    // The spec: the SMA_* names of the SHMEM_* variables are deprecated but still honoured (the
    // SHMEM_ name wins when both are set).
    static thread_local std::string sma;
    if (!s && !std::strncmp(v.name, "SHMEM_", 6)) {
        sma = std::string("SMA_") + (v.name + 6);
        s = std::getenv(sma.c_str());
        from = sma.c_str();
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
    const double bytes = std::ceil(v * scale);  // the spec: at least the integer ceiling ("3.1m" = 3250586)
    if (bytes > 9.0e18) return false;
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

// The spec's "Any" value: set at all is on, except a boolean word for off.
bool parse_flag(const char* text, bool* out) {
    if (!text || !parse_bool(text, out)) *out = true;
    return true;
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

bool parse_auto_bool(const char* text, AutoBool* out) {
    bool b = false;
    if (text && !strcasecmp(text, "auto")) *out = AutoBool::auto_;
    else if (text && parse_bool(text, &b)) *out = b ? AutoBool::on : AutoBool::off;
    else return false;
    return true;
}

bool parse_choice(const Var& v, const char* text, int* index) {
    if (!text) return false;
    for (std::size_t i = 0; i < v.choices.size(); ++i)
        if (!strcasecmp(text, v.choices[i].c_str())) return *index = static_cast<int>(i), true;
    return false;
}

bool parse_fault(const Var& v, const char* text, Fault<int>* out) {
    if (!text) return false;
    Fault<int> f;
    if (*text) {
        const char* c1 = std::strchr(text, ':');
        if (!c1) return false;
        f.on = parse_choice(v, std::string(text, c1).c_str(), &f.kind);
        // Decimal digits only (no sign, no base prefix): "put:1:0".
        auto number = [](const char* p, const char* end, uint64_t limit, uint64_t* n) {
            if (p == end || end - p > 18) return false;
            uint64_t x = 0;
            for (; p != end; ++p) {
                if (*p < '0' || *p > '9') return false;
                x = x * 10 + static_cast<uint64_t>(*p - '0');
            }
            return x <= limit ? (*n = x, true) : false;
        };
        const char* c2 = std::strchr(c1 + 1, ':');
        const char* end = text + std::strlen(text);
        uint64_t pe = 0;
        if (!f.on || !number(c1 + 1, c2 ? c2 : end, ~uint64_t{0}, &f.nth) || f.nth == 0) return false;
        if (c2 && !number(c2 + 1, end, (1u << 24) - 1, &pe)) return false;
        f.pe = c2 ? static_cast<int>(pe) : -1;
    }
    *out = f;
    return true;
}

namespace {
std::string join(const std::vector<std::string>& words) {
    std::string s;
    for (const std::string& w : words) s += (s.empty() ? "" : ", ") + w;
    return s;
}
bool parse_string(const char*, std::string*) { return true; }
}  // namespace

std::string expected(const Var& v) {
    switch (v.type) {
        case Type::size: return "size (a number with an optional K, M, G or T suffix)";
        case Type::int_: return "integer";
        case Type::bool_: return "boolean (1/0, yes/no, on/off, true/false)";
        case Type::flag: return "any value (on; 0/no/off/false: off)";
        case Type::seconds: return "number of seconds";
        case Type::string: return "string";
        case Type::auto_bool: return "one of " + join(v.choices) + " (or 1/0, yes/no, true/false)";
        case Type::choice: return "one of " + join(v.choices);
        case Type::fault: return "<kind>:<nth>[:<pe>] with kind one of " + join(v.choices) + ", nth >= 1 (or empty)";
    }
    return "?";
}

bool check_text(const Var& v, const std::string& text, const char* from, std::string* why) {
    const char* t = text.c_str();
    bool ok = true;
    union {
        std::size_t z;
        long i;
        bool b;
        double d;
        AutoBool ab;
        int c;
    } out;
    Fault<int> fault;
    switch (v.type) {
        case Type::size: ok = parse_size(t, &out.z); break;
        case Type::int_: ok = parse_int(t, &out.i); break;
        case Type::bool_: ok = parse_bool(t, &out.b); break;
        case Type::flag: ok = parse_flag(t, &out.b); break;
        case Type::seconds: ok = parse_seconds(t, &out.d); break;
        case Type::string: break;
        case Type::auto_bool: ok = parse_auto_bool(t, &out.ab); break;
        case Type::choice: ok = parse_choice(v, t, &out.c); break;
        case Type::fault: ok = parse_fault(v, t, &fault); break;
    }
    if (ok) return true;
    // Words from a fixed list: "NAME='text': expected one of a, b, c"; numbers and the like keep
    // the longer form.
    if (v.type == Type::choice || v.type == Type::auto_bool || v.type == Type::fault)
        *why = std::string(from) + "='" + text + "': expected " + expected(v);
    else
        *why = "environment variable " + std::string(from) + "='" + text + "' is not a valid " + expected(v);
    return false;
}

bool check(const Var& v, std::string* why) {
    const char* from = nullptr;
    const std::string text = text_of(v, &from);
    return check_text(v, text, from, why);
}

bool check_all(std::string* why) {
    for (const Var& v : table())
        if (!check(v, why)) return false;
    return true;
}

bool valid(const char* name) {
    std::string why;
    const Var* v = find(name);
    return v && check(*v, &why);
}

namespace {
const Var& row(const char* name) {
    const Var* v = find(name);
    if (!v) fatal("env", "no variable %s in the table", name);
    return *v;
}

// The text a row's accessor reads, checked: a malformed value is a fatal error naming it.
std::string checked_text(const Var& v) {
    const char* from = nullptr;
    std::string text = text_of(v, &from);
    std::string why;
    if (!check_text(v, text, from, &why)) fatal("shmem_init", "%s", why.c_str());
    return text;
}

template <class T, class Parse>
T get(const char* name, Parse parse) {
    const std::string text = checked_text(row(name));
    T value{};
    parse(text.c_str(), &value);
    if constexpr (std::is_same_v<T, std::string>) value = text;
    return value;
}

int get_choice(const char* name) {
    const Var& v = row(name);
    int index = 0;
    parse_choice(v, checked_text(v).c_str(), &index);
    return index;
}

Fault<int> get_fault(const char* name) {
    const Var& v = row(name);
    Fault<int> f;
    parse_fault(v, checked_text(v).c_str(), &f);
    return f;
}

const char* word_of(const char* name, int index) {
    const Var& v = row(name);
    return index >= 0 && static_cast<std::size_t>(index) < v.choices.size() ? v.choices[index].c_str() : "?";
}
}  // namespace

#define KISHMEM_ENV(id, name, alias, type, def, cat, doc) \
    KISHMEM_ENV_##type id() { return get<KISHMEM_ENV_##type>(name, KISHMEM_ENV_PARSE_##type); }
#define KISHMEM_ENV_CHOICE(id, name, alias, Enum, choices, def, cat, doc) \
    Enum id() { return static_cast<Enum>(get_choice(name)); }             \
    const char* word(Enum v) { return word_of(name, static_cast<int>(v)); }
#define KISHMEM_ENV_FAULT(id, name, alias, Enum, kinds, def, cat, doc)                     \
    Fault<Enum> id() {                                                                     \
        const Fault<int> f = get_fault(name);                                              \
        return Fault<Enum>{f.on, static_cast<Enum>(f.kind), f.nth, f.pe};                  \
    }                                                                                      \
    const char* word(Enum v) { return word_of(name, static_cast<int>(v)); }
#define KISHMEM_ENV_PARSE_size parse_size
#define KISHMEM_ENV_PARSE_int parse_int
#define KISHMEM_ENV_PARSE_bool parse_bool
#define KISHMEM_ENV_PARSE_flag parse_flag
#define KISHMEM_ENV_PARSE_seconds parse_seconds
#define KISHMEM_ENV_PARSE_string parse_string
#define KISHMEM_ENV_PARSE_auto_bool parse_auto_bool
#include "env.def"
#undef KISHMEM_ENV_FAULT
#undef KISHMEM_ENV_CHOICE
#undef KISHMEM_ENV

const char* word(AutoBool v) {
    const auto i = static_cast<std::size_t>(v);
    return i < std::size(kAutoBoolWords) ? kAutoBoolWords[i] : "?";
}

}  // namespace kishmem::env
