// The environment table (runtime/src/env.def): typed accessors and a listing for kishmem-info.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kishmem::env {

enum class Type { size, int_, bool_, seconds, string };

struct Var {
    const char* name;
    const char* alias;
    Type type;
    const char* default_text;
    const char* category;
    const char* doc;
};

// Every row of the table, in table order.
const std::vector<Var>& table();

// The text the process sees for a row (NAME, else ALIAS, else default) and where it came from.
std::string text_of(const Var& v, const char** source = nullptr);

// Parsers (pure; unit-tested).  Return false on malformed text, leaving *out untouched.
bool parse_size(const char* text, std::size_t* out);
bool parse_bool(const char* text, bool* out);
bool parse_int(const char* text, long* out);
bool parse_seconds(const char* text, double* out);

// Typed accessors, one per row; a malformed value is a fatal error naming the variable.
#define KISHMEM_ENV_size std::size_t
#define KISHMEM_ENV_int long
#define KISHMEM_ENV_bool bool
#define KISHMEM_ENV_seconds double
#define KISHMEM_ENV_string std::string
#define KISHMEM_ENV(id, name, alias, type, def, cat, doc) KISHMEM_ENV_##type id();
#include "../../src/env.def"
#undef KISHMEM_ENV

}  // namespace kishmem::env
