#include <gtest/gtest.h>

#include "blob.h"

using namespace kishmem;

TEST(Blob, RoundTrip) {
    std::string host = "node-7";
    uint8_t raw[] = {0, 1, 2, 255, 0};
    Blob b = BlobWriter().str(host).u64(0x0102030405060708ull).bytes(raw, sizeof raw).str("").take();
    BlobReader r(b);
    EXPECT_EQ(r.str(), host);
    EXPECT_EQ(r.u64(), 0x0102030405060708ull);
    Blob got = r.bytes();
    EXPECT_EQ(got, Blob(raw, raw + sizeof raw));
    EXPECT_EQ(r.str(), "");
    EXPECT_TRUE(r.at_end());
}

TEST(Blob, LittleEndianOnTheWire) {
    Blob b = BlobWriter().u64(1).take();
    ASSERT_EQ(b.size(), 8u);
    EXPECT_EQ(b[0], 1);
    EXPECT_EQ(b[7], 0);
}

TEST(Blob, TruncatedInputIsDetectedNotOverrun) {
    Blob b = BlobWriter().str("hello").u64(42).take();
    for (size_t cut = 0; cut < b.size(); ++cut) {
        Blob t(b.begin(), b.begin() + cut);
        BlobReader r(t);
        std::string s = r.str();
        uint64_t v = r.u64();
        EXPECT_FALSE(r.ok()) << "cut at " << cut;
        EXPECT_FALSE(r.at_end());
        (void)s;
        (void)v;
    }
}

TEST(Blob, HugeLengthPrefixIsRejected) {
    Blob b = {0xff, 0xff, 0xff, 0x7f, 'x'};
    BlobReader r(b);
    EXPECT_TRUE(r.bytes().empty());
    EXPECT_FALSE(r.ok());
}
