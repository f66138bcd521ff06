#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

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
    EXPECT_TRUE(parse_size("3.1m", &v));  // the spec's own example: the integer ceiling of the product
    EXPECT_EQ(v, 3250586u);
    EXPECT_TRUE(parse_size("1.3", &v));
    EXPECT_EQ(v, 2u);
}

TEST(Env, SizeRejectsMalformed) {
    size_t v = 12345;
    for (const char* bad : {"", "abc", "12Q", "-5", "10MiBx", "1e30", "M", "5 M"}) {
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
    for (const char* on : {"1", "2", "yes", "anything", ""}) {  // the spec's "Any" (SHMEM_DEBUG, SHMEM_INFO, SHMEM_VERSION)
        b = false;
        EXPECT_TRUE(parse_flag(on, &b)) << on;
        EXPECT_TRUE(b) << on;
    }
    EXPECT_TRUE(parse_flag("off", &b));
    EXPECT_FALSE(b);
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
    setenv("SMA_SYMMETRIC_SIZE", "3M", 1);  // the deprecated name, honoured when SHMEM_ is unset
    EXPECT_EQ(symmetric_size(), 3u << 20);
    setenv("SHMEM_SYMMETRIC_SIZE", "2M", 1);
    EXPECT_EQ(symmetric_size(), 2u << 20);
    unsetenv("SHMEM_SYMMETRIC_SIZE");
    unsetenv("SMA_SYMMETRIC_SIZE");
    setenv("SMA_DEBUG", "1", 1);
    EXPECT_TRUE(debug());
    unsetenv("SMA_DEBUG");
}

// ---- typed rows: words from a fixed list (env.def's KISHMEM_ENV_CHOICE) and auto_bool --------

TEST(Env, ChoiceRowsListTheirWords) {
    const Var* remote = find("KISHMEM_REMOTE");
    ASSERT_NE(remote, nullptr);
    EXPECT_EQ(remote->type, Type::choice);
    EXPECT_EQ(remote->choices, (std::vector<std::string>{"auto", "ucx", "ibgda", "proxy"}));
    const Var* nic = find("KISHMEM_IBGDA_NIC");
    ASSERT_NE(nic, nullptr);
    EXPECT_EQ(nic->choices, (std::vector<std::string>{"auto", "hw", "sim"}));
    EXPECT_EQ(find("KISHMEM_HEAP")->choices, (std::vector<std::string>{"auto", "device", "host"}));
    EXPECT_EQ(find("KISHMEM_BOOTSTRAP")->choices, (std::vector<std::string>{"auto", "pmix", "singleton"}));
    EXPECT_EQ(find("KISHMEM_YIELD")->type, Type::auto_bool);
    EXPECT_EQ(find("NO_SUCH_VARIABLE"), nullptr);
}

TEST(Env, ParseChoice) {
    const Var& remote = *find("KISHMEM_REMOTE");
    int i = -1;
    EXPECT_TRUE(parse_choice(remote, "ibgda", &i));
    EXPECT_EQ(i, 2);
    EXPECT_TRUE(parse_choice(remote, "UCX", &i));  // words are case-insensitive
    EXPECT_EQ(i, 1);
    i = 7;
    for (const char* bad : {"", "bogus", "auto_", "ib", "proxy ", "1"}) {
        EXPECT_FALSE(parse_choice(remote, bad, &i)) << bad;
        EXPECT_EQ(i, 7) << "output written on failure for " << bad;
    }
    EXPECT_FALSE(parse_choice(remote, nullptr, &i));
}

// Fault rows (KISHMEM_ENV_FAULT): "<kind>:<nth>[:<pe>]", kind one of the row's words.
TEST(Env, ParseFault) {
    const Var& ucx = *find("KISHMEM_SIM_UCX_FAIL");
    EXPECT_EQ(ucx.type, Type::fault);
    EXPECT_EQ(ucx.choices, (std::vector<std::string>{"put", "get", "atomic", "flush"}));
    Fault<int> f;
    EXPECT_TRUE(parse_fault(ucx, "atomic:3", &f));
    EXPECT_TRUE(f.on);
    EXPECT_EQ(f.kind, 2);
    EXPECT_EQ(f.nth, 3u);
    EXPECT_EQ(f.pe, -1);
    EXPECT_TRUE(f.here(0) && f.here(5));
    EXPECT_TRUE(parse_fault(ucx, "flush:12:1", &f));
    EXPECT_EQ(f.kind, 3);
    EXPECT_EQ(f.nth, 12u);
    EXPECT_EQ(f.pe, 1);
    EXPECT_TRUE(f.here(1) && !f.here(0));
    EXPECT_TRUE(parse_fault(ucx, "", &f));
    EXPECT_FALSE(f.on || f.here(0));
    f.nth = 99;
    for (const char* bad : {"put", "put:", "put:0", "put:-1", "put:+1", "put:0x2", "puts:1", "put:1:", "put:1:x",
                            "put:1:16777216", ":1", "put:1:2:3", "put:99999999999999999999"}) {
        EXPECT_FALSE(parse_fault(ucx, bad, &f)) << bad;
        EXPECT_EQ(f.nth, 99u) << "output written on failure for " << bad;
    }
    std::string why;
    EXPECT_FALSE(check_text(ucx, "put:0", "KISHMEM_SIM_UCX_FAIL", &why));
    EXPECT_EQ(why, "KISHMEM_SIM_UCX_FAIL='put:0': expected <kind>:<nth>[:<pe>] with kind one of put, get, atomic, "
                   "flush, nth >= 1 (or empty)");
}

TEST(Env, ParseAutoBool) {
    AutoBool a = AutoBool::off;
    EXPECT_TRUE(parse_auto_bool("auto", &a));
    EXPECT_EQ(a, AutoBool::auto_);
    EXPECT_TRUE(parse_auto_bool("1", &a));
    EXPECT_EQ(a, AutoBool::on);
    EXPECT_TRUE(parse_auto_bool("off", &a));
    EXPECT_EQ(a, AutoBool::off);
    EXPECT_TRUE(parse_auto_bool("Yes", &a));
    EXPECT_EQ(a, AutoBool::on);
    a = AutoBool::auto_;
    EXPECT_FALSE(parse_auto_bool("sometimes", &a));
    EXPECT_FALSE(parse_auto_bool("", &a));
    EXPECT_EQ(a, AutoBool::auto_);
}

TEST(Env, EveryDefaultIsValid) {
    std::string why;
    for (const Var& v : table()) EXPECT_TRUE(check_text(v, v.default_text, v.name, &why)) << v.name << ": " << why;
}

TEST(Env, CheckNamesTheVariableAndTheWords) {
    std::string why;
    EXPECT_FALSE(check_text(*find("KISHMEM_REMOTE"), "bogus", "KISHMEM_REMOTE", &why));
    EXPECT_EQ(why, "KISHMEM_REMOTE='bogus': expected one of auto, ucx, ibgda, proxy");
    EXPECT_FALSE(check_text(*find("KISHMEM_IBGDA_NIC"), "gpu", "KISHMEM_IBGDA_NIC", &why));
    EXPECT_EQ(why, "KISHMEM_IBGDA_NIC='gpu': expected one of auto, hw, sim");
    EXPECT_FALSE(check_text(*find("KISHMEM_YIELD"), "2", "KISHMEM_YIELD", &why));
    EXPECT_EQ(why, "KISHMEM_YIELD='2': expected one of auto, on, off (or 1/0, yes/no, true/false)");
    EXPECT_FALSE(check_text(*find("SHMEM_SYMMETRIC_SIZE"), "12Q", "KISHMEM_SYMMETRIC_SIZE", &why));
    EXPECT_EQ(why.rfind("environment variable KISHMEM_SYMMETRIC_SIZE='12Q' is not a valid size", 0), 0u) << why;
    why = "untouched";
    EXPECT_TRUE(check_text(*find("KISHMEM_HEAP"), "host", "KISHMEM_HEAP", &why));
    EXPECT_EQ(why, "untouched");
}

TEST(Env, TypedAccessorsAndWords) {
    setenv("KISHMEM_REMOTE", "proxy", 1);
    setenv("KISHMEM_IBGDA_NIC", "Sim", 1);
    setenv("KISHMEM_YIELD", "0", 1);
    EXPECT_EQ(remote(), Remote::proxy);
    EXPECT_EQ(ibgda_nic(), IbgdaNic::sim);
    EXPECT_EQ(yield(), AutoBool::off);
    EXPECT_STREQ(word(remote()), "proxy");
    EXPECT_STREQ(word(IbgdaNic::auto_), "auto");
    EXPECT_STREQ(word(HeapMode::device), "device");
    EXPECT_STREQ(word(AutoBool::on), "on");
    std::string why;
    EXPECT_TRUE(check_all(&why)) << why;
    setenv("KISHMEM_IBGDA_NIC", "bogus", 1);
    EXPECT_FALSE(check_all(&why));
    EXPECT_EQ(why, "KISHMEM_IBGDA_NIC='bogus': expected one of auto, hw, sim");
    for (const char* v : {"KISHMEM_REMOTE", "KISHMEM_IBGDA_NIC", "KISHMEM_YIELD"}) unsetenv(v);
    EXPECT_EQ(remote(), Remote::auto_);  // the table's default
    EXPECT_EQ(yield(), AutoBool::auto_);
    EXPECT_TRUE(check_all(&why)) << why;
}
