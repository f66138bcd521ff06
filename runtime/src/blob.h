// A small byte-blob encoding for what PEs exchange through the bootstrap: a sequence of
// fields, each a little-endian u64 or a u32 length followed by that many bytes.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace kishmem {

using Blob = std::vector<uint8_t>;

class BlobWriter {
public:
    BlobWriter& u64(uint64_t v) {
        for (int i = 0; i < 8; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
        return *this;
    }
    BlobWriter& bytes(const void* p, size_t n) {
        u32(static_cast<uint32_t>(n));
        const uint8_t* b = static_cast<const uint8_t*>(p);
        out_.insert(out_.end(), b, b + n);
        return *this;
    }
    BlobWriter& str(const std::string& s) { return bytes(s.data(), s.size()); }
    Blob take() { return std::move(out_); }

private:
    void u32(uint32_t v) {
        for (int i = 0; i < 4; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }
    Blob out_;
};

// Reads fields back in order; any read past the end or a length that overruns marks the
// reader bad (ok() == false) and yields zero / empty values from then on.
class BlobReader {
public:
    explicit BlobReader(const Blob& b) : p_(b.data()), end_(b.data() + b.size()) {}
    uint64_t u64() {
        if (!need(8)) return 0;
        uint64_t v = 0;
        for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p_[i]) << (8 * i);
        p_ += 8;
        return v;
    }
    Blob bytes() {
        if (!need(4)) return {};
        uint32_t n = 0;
        for (int i = 0; i < 4; ++i) n |= static_cast<uint32_t>(p_[i]) << (8 * i);
        p_ += 4;
        if (!need(n)) return {};
        Blob b(p_, p_ + n);
        p_ += n;
        return b;
    }
    std::string str() {
        Blob b = bytes();
        return std::string(b.begin(), b.end());
    }
    bool ok() const { return ok_; }
    bool at_end() const { return ok_ && p_ == end_; }

private:
    bool need(size_t n) {
        if (!ok_ || static_cast<size_t>(end_ - p_) < n) ok_ = false;
        return ok_;
    }
    const uint8_t* p_;
    const uint8_t* end_;
    bool ok_ = true;
};

}  // namespace kishmem
