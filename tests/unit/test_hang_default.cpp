// The bound that keeps a job from hanging forever: KISHMEM_HANG_ABORT has a non-zero default in
// the env table, the accessor returns it when the variable is unset, and the READMEs state the
// same number (tests/mp checks that a wait past the bound ends the job with its message).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "kishmem/env.h"

using namespace kishmem::env;

namespace {
const Var* row(const char* name) {
    for (const Var& v : table())
        if (!std::strcmp(v.name, name)) return &v;
    return nullptr;
}

std::string read(const std::string& path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}
}  // namespace

TEST(HangDefault, AbortHasAFiniteDefault) {
    const Var* v = row("KISHMEM_HANG_ABORT");
    ASSERT_NE(v, nullptr);
    double table_default = 0;
    ASSERT_TRUE(parse_seconds(v->default_text, &table_default));
    EXPECT_EQ(table_default, 600.0);
    unsetenv("KISHMEM_HANG_ABORT");
    EXPECT_EQ(hang_abort(), 600.0);
    // Warned well before it ends.
    const Var* w = row("KISHMEM_HANG_WARN");
    ASSERT_NE(w, nullptr);
    double warn_default = 0;
    ASSERT_TRUE(parse_seconds(w->default_text, &warn_default));
    EXPECT_GT(warn_default, 0.0);
    EXPECT_LT(warn_default, table_default);
}

TEST(HangDefault, ReadmesStateTheTableDefault) {
    const Var* v = row("KISHMEM_HANG_ABORT");
    ASSERT_NE(v, nullptr);
    const std::string said = std::string("`KISHMEM_HANG_ABORT=") + v->default_text + "`";
    for (const char* doc : {"/README.md", "/runtime/README.md"}) {
        const std::string text = read(std::string(KISHMEM_SOURCE_DIR) + doc);
        ASSERT_FALSE(text.empty()) << doc;
        EXPECT_NE(text.find(said), std::string::npos) << doc << " does not say " << said;
    }
}
