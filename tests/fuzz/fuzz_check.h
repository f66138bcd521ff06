// The fuzz targets' check: a broken invariant aborts with its text (libFuzzer then keeps the
// input that broke it). TARGET names the target in the message.
#pragma once

#include <cstdio>
#include <cstdlib>

#define KISHMEM_FUZZ_CHECK_IN(target, c)                                       \
    do {                                                                       \
        if (!(c)) {                                                            \
            std::fprintf(stderr, "%s: check failed: %s\n", target, #c);        \
            std::abort();                                                      \
        }                                                                      \
    } while (0)
