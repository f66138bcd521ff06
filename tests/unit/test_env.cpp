#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>

#include "kishmem/env.h"

using namespace kishmem::env;

TEST(Env, SizeUnits) {
    size_t v = 0;
    EXPECT_TRUE(parse_size("4096", &v));
    EXPECT_EQ(v, 4096u);
    EXPECT_TRUE(parse_size("64K", &v));
    EXPECT_EQ(v, 64u * 1024);
    EXPECT_TRUE(parse_size("512m", &v));
    EXPECT_EQ(v, 512u * 1024 * 1024);
    EXPECT_TRUE(parse_size("2G", &v));
    EXPECT_EQ(v, 2ull << 30);
    EXPECT_TRUE(parse_size("1T", &v));
    EXPECT_EQ(v, 1ull << 40);
    EXPECT_TRUE(parse_size("1.5K", &v));
    EXPECT_EQ(v, 1536u);
    EXPECT_TRUE(parse_size("256MB", &v));
    EXPECT_EQ(v, 256u << 20);
}

TEST(Env, SizeRejectsMalformed) {
    size_t v = 12345;
    for (const char* bad : {"", "abc", "12Q", "-5", "1.3", "10MiBx", "1e30", "M", "5 M"}) {
        EXPECT_FALSE(parse_size(bad, &v)) << bad;
        EXPECT_EQ(v, 12345u) << "output written on failure for " << bad;
    }
}

TEST(Env, BoolIntSeconds) {
    bool b = false;
    EXPECT_TRUE(parse_bool("yes", &b));
    EXPECT_TRUE(b);
    EXPECT_TRUE(parse_bool("OFF", &b));
    EXPECT_FALSE(b);
    EXPECT_FALSE(parse_bool("maybe", &b));
    long i = 0;
    EXPECT_TRUE(parse_int("0x10", &i));
    EXPECT_EQ(i, 16);
    EXPECT_FALSE(parse_int("12a", &i));
    double s = 0;
    EXPECT_TRUE(parse_seconds("2.5", &s));
    EXPECT_DOUBLE_EQ(s, 2.5);
    EXPECT_FALSE(parse_seconds("-1", &s));
}

TEST(Env, TableRowsAreCompleteAndUnique) {
    std::set<std::string> names;
    for (const Var& v : table()) {
        EXPECT_TRUE(names.insert(v.name).second) << v.name;
        EXPECT_GT(std::string(v.doc).size(), 10u) << v.name;
        EXPECT_TRUE(std::string(v.name).rfind("SHMEM_", 0) == 0 || std::string(v.name).rfind("KISHMEM_", 0) == 0);
    }
    EXPECT_TRUE(names.count("SHMEM_SYMMETRIC_SIZE"));
}

TEST(Env, SpecNameWinsOverAlias) {
    setenv("KISHMEM_SYMMETRIC_SIZE", "1M", 1);
    unsetenv("SHMEM_SYMMETRIC_SIZE");
    EXPECT_EQ(symmetric_size(), 1u << 20);
    setenv("SHMEM_SYMMETRIC_SIZE", "2M", 1);
    EXPECT_EQ(symmetric_size(), 2u << 20);
    unsetenv("SHMEM_SYMMETRIC_SIZE");
    unsetenv("KISHMEM_SYMMETRIC_SIZE");
    EXPECT_EQ(symmetric_size(), 512u << 20);  // the table's default
}
