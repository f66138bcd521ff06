// libFuzzer target: the bootstrap blob decoder (runtime/src/blob.h BlobReader), which reads
// what other PEs sent.  The input's first byte chooses a reading order (as init reads its
// records: strings, numbers, byte fields); any input must leave the reader either at a
// consistent end or marked bad, never read past the blob, and a blob read back as byte fields
// only must encode again to the very same bytes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "blob.h"
#include "fuzz_check.h"

#define KISHMEM_FUZZ_CHECK(c) KISHMEM_FUZZ_CHECK_IN("fuzz_blob", c)

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t n) {
    using kishmem::Blob;
    if (n == 0) return 0;
    const uint8_t order = data[0];
    const Blob blob(data + 1, data + n);

    // 1. Fields in an order the first byte chooses (2 bits per field), until the reader is bad.
    {
        kishmem::BlobReader rd(blob);
        std::size_t consumed = 0;
        for (int k = 0; k < 64 && rd.ok() && !rd.at_end(); ++k) {
            switch ((order >> (2 * (k % 4))) & 3) {
                case 0: rd.u64(), consumed += 8; break;
                case 1: consumed += 4 + rd.bytes().size(); break;
                default: consumed += 4 + rd.str().size(); break;
            }
        }
        if (rd.ok()) KISHMEM_FUZZ_CHECK(consumed <= blob.size());
        if (!rd.ok()) {  // bad stays bad, and reads give nothing
            KISHMEM_FUZZ_CHECK(rd.u64() == 0 && rd.bytes().empty() && rd.str().empty() && !rd.at_end());
        }
    }
    // 2. Byte fields only: when they cover the blob exactly, encoding them again gives it back.
    {
        kishmem::BlobReader rd(blob);
        std::vector<Blob> fields;
        while (rd.ok() && !rd.at_end()) {
            Blob f = rd.bytes();
            if (rd.ok()) fields.push_back(std::move(f));
        }
        if (rd.at_end()) {
            kishmem::BlobWriter w;
            for (const Blob& f : fields) w.bytes(f.data(), f.size());
            KISHMEM_FUZZ_CHECK(w.take() == blob);
        }
    }
    return 0;
}
