// kishmem::ep numerics shared by the host (CPU form, references) and CUDA kernels: bf16 and
// FP8 E4M3 conversions and the per-128-channel quantization of dispatch. Host and device give
// the same bits for the same input (round to nearest even, E4M3 saturating at +-448), so the
// CPU form is an exact reference for the GPU form.
#pragma once

#include <stdint.h>
#include <string.h>

#include "kishmem/device/hd.h"

#if defined(__CUDACC__)
#include <cuda_fp8.h>
#endif

namespace kishmem::ep {

constexpr int kScaleGroup = 128;   // channels per FP8 scale
constexpr float kFp8Max = 448.0f;  // largest finite E4M3 value

KISHMEM_HD float bits_to_float(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
KISHMEM_HD uint32_t float_to_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

// bf16 <-> float (bf16 held as its 16 bits)
KISHMEM_HD float bf16_to_float(uint16_t h) { return bits_to_float(static_cast<uint32_t>(h) << 16); }
KISHMEM_HD uint16_t float_to_bf16(float f) {
    uint32_t u = float_to_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);  // NaN stays NaN
    u += 0x7fffu + ((u >> 16) & 1u);                                                       // nearest even
    return static_cast<uint16_t>(u >> 16);
}

// FP8 E4M3 (1 sign, 4 exponent bits of bias 7, 3 mantissa bits; 0x7f/0xff is NaN)
KISHMEM_HD float e4m3_to_float(uint8_t c) {
    const int e = (c >> 3) & 15, m = c & 7;
    float v;
    if ((c & 0x7f) == 0x7f) v = bits_to_float(0x7fc00000u);
    else if (e == 0) v = m * (1.0f / 512.0f);
    else v = static_cast<float>(8 + m) * bits_to_float(static_cast<uint32_t>(e - 10 + 127) << 23);
    return (c & 0x80) ? -v : v;
}

// A received FP8 value in bf16: the value times its group's scale, nearest even (both forms of
// Buffer::received_bf16).
KISHMEM_HD uint16_t fp8_to_bf16(uint8_t c, float scale) { return float_to_bf16(e4m3_to_float(c) * scale); }

// Round to nearest even for 0 <= a < 2^23 (exact in float arithmetic).
KISHMEM_HD float round_even(float a) {
    const float big = 8388608.0f;  // 2^23: adding it rounds to an integer under nearest-even
    volatile float t = a + big;    // volatile: keep the compiler from folding the pair away
    return t - big;
}

// float -> E4M3, nearest even, saturating to +-448 (NaN -> NaN); the CUDA intrinsic on the device.
KISHMEM_HD uint8_t float_to_e4m3(float f) {
#if defined(__CUDA_ARCH__)
    return static_cast<uint8_t>(__nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3));
#else
    const uint32_t u = float_to_bits(f);
    const uint8_t sign = static_cast<uint8_t>((u >> 24) & 0x80);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7f | sign;
    const float a = bits_to_float(u & 0x7fffffffu);
    if (a >= kFp8Max) return 0x7e | sign;
    if (a < 1.0f / 64.0f) return static_cast<uint8_t>(sign | static_cast<int>(round_even(a * 512.0f)));  // subnormal
    const int e = static_cast<int>((u >> 23) & 0xff) - 127;  // a = 1.m x 2^e, -6 <= e <= 8
    const float q = round_even(a * bits_to_float(static_cast<uint32_t>(3 - e + 127) << 23));  // 8..16
    int code = ((e + 7) << 3) + static_cast<int>(q) - 8;
    if (code > 0x7e) code = 0x7e;
    return static_cast<uint8_t>(sign | code);
#endif
}

// One group of kScaleGroup channels: scale = amax / 448 (amax at least 1e-4), q = e4m3(x * 448 / amax).
// Dequantized: e4m3_to_float(q) * scale.
KISHMEM_HD float group_inv_scale(float amax) { return kFp8Max / (amax > 1e-4f ? amax : 1e-4f); }
KISHMEM_HD float group_scale(float amax) { return (amax > 1e-4f ? amax : 1e-4f) / kFp8Max; }

// Host reference: quantize one token of `hidden` bf16 values into q[hidden] and scales[hidden/128].
inline void quantize_token(const uint16_t* x, int hidden, uint8_t* q, float* scales) {
    for (int g = 0; g < hidden / kScaleGroup; ++g) {
        float amax = 0.0f;
        for (int i = 0; i < kScaleGroup; ++i) {
            const float v = bf16_to_float(x[g * kScaleGroup + i]);
            amax = v < 0 ? (-v > amax ? -v : amax) : (v > amax ? v : amax);
        }
        const float inv = group_inv_scale(amax);
        scales[g] = group_scale(amax);
        for (int i = 0; i < kScaleGroup; ++i) q[g * kScaleGroup + i] = float_to_e4m3(bf16_to_float(x[g * kScaleGroup + i]) * inv);
    }
}

}  // namespace kishmem::ep
