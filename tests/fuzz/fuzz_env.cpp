// libFuzzer target: the environment parsers (runtime/src/env.cpp) on any text.  Besides not
// crashing (ASan, UBSan), what they accept must mean what it says: a size or an integer read
// back from its own decimal form is the same number, a size fits the 9e18 bound, a time in
// seconds is finite and not negative, and a boolean is one of the words.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "kishmem/env.h"
#include "fuzz_check.h"

#define KISHMEM_FUZZ_CHECK(c) KISHMEM_FUZZ_CHECK_IN("fuzz_env", c)

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t n) {
    using namespace kishmem::env;
    const std::string text(reinterpret_cast<const char*>(data), n);  // stops at a NUL, as getenv would
    const char* t = text.c_str();

    std::size_t z = 0;
    if (parse_size(t, &z)) {
        KISHMEM_FUZZ_CHECK(z <= static_cast<std::size_t>(9.0e18));
        char back[32];
        std::snprintf(back, sizeof back, "%zu", z);
        std::size_t again = 1;
        KISHMEM_FUZZ_CHECK(parse_size(back, &again) && again == z);
    }
    long i = 0;
    if (parse_int(t, &i)) {
        char back[32];
        std::snprintf(back, sizeof back, "%ld", i);
        long again = 1;
        KISHMEM_FUZZ_CHECK(parse_int(back, &again) && again == i);
    }
    double d = -1;
    if (parse_seconds(t, &d)) KISHMEM_FUZZ_CHECK(std::isfinite(d) && d >= 0);
    bool b = false;
    if (parse_bool(t, &b)) {
        bool again = !b;
        KISHMEM_FUZZ_CHECK(parse_bool(b ? "1" : "0", &again) && again == b);
    }
    return 0;
}
