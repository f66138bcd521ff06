#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "heap/allocator.h"

using kishmem::HeapAllocator;

TEST(Allocator, AlignsAndDoesNotOverlap) {
    HeapAllocator a(4096, 1 << 20);
    auto x = a.alloc(100, 64), y = a.alloc(1, 4096), z = a.alloc(5000, 64);
    ASSERT_TRUE(x && y && z);
    EXPECT_EQ(*x, 4096u);
    EXPECT_EQ(*y % 4096, 0u);
    EXPECT_GE(*y, *x + 100);
    EXPECT_GE(*z, *x + 100);
    EXPECT_TRUE(*z >= *y + 1 || *z + 5000 <= *y);
}

TEST(Allocator, ExhaustionAndCoalescing) {
    HeapAllocator a(0, 1024);
    auto p = a.alloc(512, 64), q = a.alloc(512, 64);
    ASSERT_TRUE(p && q);
    EXPECT_FALSE(a.alloc(1, 64));
    EXPECT_TRUE(a.free(*p));
    EXPECT_TRUE(a.free(*q));
    EXPECT_FALSE(a.free(*q));  // double free is refused
    EXPECT_EQ(a.largest_free(), 1024u);
    EXPECT_TRUE(a.alloc(1024, 64));
}

TEST(Allocator, ZeroSizeAndBadAlignmentRefused) {
    HeapAllocator a(0, 1024);
    EXPECT_FALSE(a.alloc(0, 64));
    EXPECT_FALSE(a.alloc(8, 3));
}

TEST(Allocator, ReallocInPlaceAndMoving) {
    HeapAllocator a(0, 4096);
    auto p = a.alloc(256, 64);
    ASSERT_TRUE(p);
    auto g = a.realloc(*p, 1024);  // free space follows: grows in place
    ASSERT_TRUE(g);
    EXPECT_EQ(*g, *p);
    EXPECT_EQ(a.size_of(*p), 1024u);
    auto blocker = a.alloc(64, 64);
    ASSERT_TRUE(blocker);
    auto m = a.realloc(*p, 2048);  // blocked: new block elsewhere, old one still live
    ASSERT_TRUE(m);
    EXPECT_NE(*m, *p);
    EXPECT_EQ(a.size_of(*p), 1024u);
    auto s = a.realloc(*m, 64);  // shrinks in place
    ASSERT_TRUE(s);
    EXPECT_EQ(*s, *m);
    EXPECT_EQ(a.size_of(*m), 64u);
}

// The property that makes allocation symmetric: the same call sequence gives the same offsets.
TEST(Allocator, DeterministicAcrossInstances) {
    HeapAllocator a(65536, 64 << 20), b(65536, 64 << 20);
    std::mt19937_64 rng(7);
    std::vector<size_t> live;
    for (int i = 0; i < 5000; ++i) {
        if (!live.empty() && rng() % 3 == 0) {
            size_t k = rng() % live.size();
            ASSERT_TRUE(a.free(live[k]));
            ASSERT_TRUE(b.free(live[k]));
            live.erase(live.begin() + k);
        } else {
            size_t n = 1 + rng() % 100000, al = size_t(64) << (rng() % 4);
            auto x = a.alloc(n, al), y = b.alloc(n, al);
            ASSERT_EQ(x.has_value(), y.has_value());
            if (x) {
                ASSERT_EQ(*x, *y);
                ASSERT_EQ(*x % al, 0u);
                live.push_back(*x);
            }
        }
    }
    EXPECT_EQ(a.bytes_free(), b.bytes_free());
}

// The freed map (heap/freed_map.h): a granule is marked when something in it was freed and nothing
// live remains in it, and cleared when an allocation covers it again.
TEST(Allocator, FreedMapMarksFreedBlocksOnly) {
    HeapAllocator a(4096, 1 << 20);
    auto x = a.alloc(100, 64), y = a.alloc(5000, 64);
    ASSERT_TRUE(x && y);
    EXPECT_FALSE(a.was_freed(*x));
    EXPECT_FALSE(a.was_freed(1 << 19));  // never allocated: not "freed"
    ASSERT_TRUE(a.free(*x));
    EXPECT_TRUE(a.was_freed(*x));
    EXPECT_TRUE(a.was_freed(*x + 99));
    EXPECT_FALSE(a.was_freed(*y));
    EXPECT_FALSE(a.was_freed(*y + 4999));
    auto z = a.alloc(100, 64);  // first fit: the same place, live again
    ASSERT_TRUE(z);
    EXPECT_EQ(*z, *x);
    EXPECT_FALSE(a.was_freed(*z));
    auto s = a.realloc(*y, 10);  // shrinks in place: the tail is freed, its first granule not
    ASSERT_TRUE(s);
    EXPECT_FALSE(a.was_freed(*y));
    EXPECT_TRUE(a.was_freed(*y + 64));
    EXPECT_TRUE(a.was_freed(*y + 4999));
    auto g = a.realloc(*y, 200);  // grows in place over freed granules: live again
    ASSERT_TRUE(g);
    EXPECT_EQ(*g, *y);
    EXPECT_FALSE(a.was_freed(*y + 199));
    EXPECT_TRUE(a.was_freed(*y + 4999));
    EXPECT_EQ(a.room_at(*y + 50), 150u);
    EXPECT_EQ(a.room_at(*y + 200), 0u);
}

TEST(Allocator, FreedMapKeepsGranulesWithLiveNeighbours) {
    HeapAllocator a(0, 4096);
    auto p = a.alloc(8, 8), q = a.alloc(8, 8);  // (smaller than a granule: both in granule 0)
    ASSERT_TRUE(p && q);
    ASSERT_EQ(*p / 64, *q / 64);
    ASSERT_TRUE(a.free(*p));
    EXPECT_FALSE(a.was_freed(*p));  // q still lives in that granule
    ASSERT_TRUE(a.free(*q));
    EXPECT_TRUE(a.was_freed(*p));
    EXPECT_TRUE(a.was_freed(*q));
}
