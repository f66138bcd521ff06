// UCX_TLS as kishmem hands it to UCX (transport/ucx/config.h): the System V transport is never
// in it, and whether same-host heaps are reached through kishmem's mappings follows from it.
#include <gtest/gtest.h>

#include "kishmem/config.h"
#if KISHMEM_HAVE_UCX_BUILD
#include <unistd.h>

#include "transport/ucx/config.h"

namespace kishmem::ucx_config {
namespace {

std::string shm_expansion() {  // "shm" and "sm": posix and cma, and xpmem/knem where present
    std::string s = "posix,cma";
    if (access("/dev/xpmem", F_OK) == 0) s += ",xpmem";
    if (access("/dev/knem", F_OK) == 0) s += ",knem";
    return s;
}

TEST(UcxConfig, SysvNeverSelected) {
    EXPECT_EQ(transports(nullptr), "^sysv");
    EXPECT_EQ(transports(""), "^sysv");
    EXPECT_EQ(transports("all"), "^sysv");
    EXPECT_EQ(transports("^tcp"), "^tcp,sysv");
    EXPECT_EQ(transports("^sysv,tcp"), "^sysv,tcp");
    EXPECT_EQ(transports("sysv,self"), "posix,self");
    EXPECT_EQ(transports("mm,tcp,self"), "posix,tcp,self");
    EXPECT_EQ(transports("posix,sysv,self"), "posix,self");
    EXPECT_EQ(transports("shm,self"), shm_expansion() + ",self");
    EXPECT_EQ(transports("sm,posix,self"), shm_expansion() + ",self");
    EXPECT_EQ(transports("tcp,self"), "tcp,self");
}

TEST(UcxConfig, MapsSameHostOnlyWithSharedMemory) {
    EXPECT_TRUE(maps_same_host(nullptr));
    EXPECT_TRUE(maps_same_host("shm,self"));
    EXPECT_TRUE(maps_same_host("sysv,self"));  // becomes posix
    EXPECT_TRUE(maps_same_host("^tcp"));
    EXPECT_FALSE(maps_same_host("tcp,self"));
    EXPECT_FALSE(maps_same_host("cma,tcp,self"));  // cma registers, it maps nothing
    EXPECT_FALSE(maps_same_host("^posix"));
    EXPECT_FALSE(maps_same_host("^shm"));
}

}  // namespace
}  // namespace kishmem::ucx_config
#endif
