// The environment table (runtime/src/env.def): typed accessors and a listing for kishmem-info.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kishmem::env {

enum class Type { size, int_, bool_, flag, seconds, string, auto_bool, choice, fault };

// auto_bool rows: "auto" or a boolean (UCX's on/off/auto).
enum class AutoBool : uint8_t { auto_, on, off };

// A fault row's value (tests of the error paths): "<kind>:<nth>[:<pe>]" makes the nth
// operation of that kind fail on purpose (nth from 1), on PE pe only when given; "" is none.
template <class Kind>
struct Fault {
    bool on = false;
    Kind kind{};
    uint64_t nth = 0;
    int pe = -1;  // -1: every PE
    // Whether this PE is the one to fail.
    bool here(int my_pe) const { return on && (pe < 0 || pe == my_pe); }
};

// The enum of each choice and fault row (env.def): its enumerators are the row's words, in order.
#define KISHMEM_ENV_UNPAREN(...) __VA_ARGS__
#define KISHMEM_ENV(id, name, alias, type, def, cat, doc)
#define KISHMEM_ENV_CHOICE(id, name, alias, Enum, choices, def, cat, doc) \
    enum class Enum : uint8_t { KISHMEM_ENV_UNPAREN choices };
#define KISHMEM_ENV_FAULT(id, name, alias, Enum, kinds, def, cat, doc) \
    enum class Enum : uint8_t { KISHMEM_ENV_UNPAREN kinds };
#include "../../src/env.def"
#undef KISHMEM_ENV_FAULT
#undef KISHMEM_ENV_CHOICE
#undef KISHMEM_ENV
#undef KISHMEM_ENV_UNPAREN

struct Var {
    const char* name;
    const char* alias;
    Type type;
    const char* default_text;
    const char* category;
    const char* doc;
    std::vector<std::string> choices;  // choice and auto_bool rows: the words allowed, in order; fault rows: the kinds
};

// Every row of the table, in table order.
const std::vector<Var>& table();
// The row named `name` (NAME, not ALIAS); nullptr when there is none.
const Var* find(const char* name);

// The text the process sees for a row (NAME, else ALIAS, else default) and where it came from.
std::string text_of(const Var& v, const char** source = nullptr);

// Parsers (pure; unit-tested).  Return false on malformed text, leaving *out untouched.
bool parse_size(const char* text, std::size_t* out);
bool parse_bool(const char* text, bool* out);
bool parse_flag(const char* text, bool* out);  // the spec's "Any": set is on, except a boolean word for off
bool parse_int(const char* text, long* out);
bool parse_seconds(const char* text, double* out);
bool parse_auto_bool(const char* text, AutoBool* out);
// A choice row's word (case-insensitive) as its index in v.choices.
bool parse_choice(const Var& v, const char* text, int* index);
// A fault row's "<kind>:<nth>[:<pe>]" (kind one of v.choices, nth >= 1); "" is none (on false).
bool parse_fault(const Var& v, const char* text, Fault<int>* out);

// What a row accepts, for messages: "one of auto, ucx, ibgda, proxy", "size (a number ...)".
std::string expected(const Var& v);
// Whether `text` is a valid value of row v; if not, *why says so, naming the variable (as
// `from`, the name it was read under) and what it accepts, e.g.
// "KISHMEM_REMOTE='bogus': expected one of auto, ucx, ibgda, proxy".
bool check_text(const Var& v, const std::string& text, const char* from, std::string* why);
// The same for the value this process sees.
bool check(const Var& v, std::string* why);
// Every row, in table order; false with *why for the first bad one.  shmem_init calls it first.
bool check_all(std::string* why);
// Whether the variable `name` of the table holds a value its type accepts (or none), without
// ending the process: for what reads one before shmem_init (which reports it, check_all).
bool valid(const char* name);

// Typed accessors, one per row; a malformed value is a fatal error naming the variable.
#define KISHMEM_ENV_size std::size_t
#define KISHMEM_ENV_int long
#define KISHMEM_ENV_bool bool
#define KISHMEM_ENV_flag bool
#define KISHMEM_ENV_seconds double
#define KISHMEM_ENV_string std::string
#define KISHMEM_ENV_auto_bool AutoBool
#define KISHMEM_ENV(id, name, alias, type, def, cat, doc) KISHMEM_ENV_##type id();
#define KISHMEM_ENV_CHOICE(id, name, alias, Enum, choices, def, cat, doc) \
    Enum id();                                                            \
    const char* word(Enum v);
#define KISHMEM_ENV_FAULT(id, name, alias, Enum, kinds, def, cat, doc) \
    Fault<Enum> id();                                                  \
    const char* word(Enum v);
#include "../../src/env.def"
#undef KISHMEM_ENV_FAULT
#undef KISHMEM_ENV_CHOICE
#undef KISHMEM_ENV
const char* word(AutoBool v);

}  // namespace kishmem::env
