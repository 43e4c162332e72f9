/* The network's two loops with AVX2 (nnue_kernel.h): compiled with -mavx2 and
 * PLY_KERNEL_NNUE_AVX2 (worker/engine/CMakeLists.txt), run only when the CPU has
 * AVX2 (nnue.c). Wrapping int16 adds and int32 sums, as the portable path. */
#if !defined(PLY_KERNEL_NNUE_AVX2)
#error "nnue_avx2.c must be compiled with PLY_KERNEL_NNUE_AVX2 and -mavx2"
#endif
#include <immintrin.h>

#include "nnue.h"
#include "nnue_kernel.h"

/* Lanes kept in registers at once: 8 of the 16 ymm registers, the rest for the rows. */
#define TILE 128

/* out = in + adds - subs on @lanes (TILE or 32) lanes from @j: the accumulator tile
 * stays in registers while every row is added. */
static inline __attribute__((always_inline)) void tile(int16_t *out, const int16_t *in,
                                                       const int16_t *const *add, int n_add,
                                                       const int16_t *const *sub, int n_sub, int j,
                                                       const int lanes)
{
    __m256i r[TILE / 16];
    for (int k = 0; k < lanes / 16; k++) r[k] = _mm256_load_si256((const __m256i *)(in + j) + k);
    for (int a = 0; a < n_add; a++)
        for (int k = 0; k < lanes / 16; k++)
            r[k] = _mm256_add_epi16(r[k], _mm256_load_si256((const __m256i *)(add[a] + j) + k));
    for (int s = 0; s < n_sub; s++)
        for (int k = 0; k < lanes / 16; k++)
            r[k] = _mm256_sub_epi16(r[k], _mm256_load_si256((const __m256i *)(sub[s] + j) + k));
    for (int k = 0; k < lanes / 16; k++) _mm256_store_si256((__m256i *)(out + j) + k, r[k]);
}

static void update_avx2(int16_t *out, const int16_t *in, const int16_t *const *add, int n_add,
                        const int16_t *const *sub, int n_sub, int h)
{
    int j = 0;
    for (; j + TILE <= h; j += TILE) tile(out, in, add, n_add, sub, n_sub, j, TILE);
    for (; j < h; j += 32) tile(out, in, add, n_add, sub, n_sub, j, 32);
}

/* clamp to 0..QA, then madd: pairs of products summed into int32 lanes (255 * 32767 * 2
 * fits), the lanes summed with wrapping adds. */
static int32_t output_avx2(const int16_t *us, const int16_t *them, const int16_t *w, int h)
{
    const __m256i zero = _mm256_setzero_si256(), qa = _mm256_set1_epi16(PLY_NNUE_QA);
    __m256i sum = zero;
    for (int j = 0; j < h; j += 16) {
        __m256i a = _mm256_load_si256((const __m256i *)(us + j));
        __m256i c = _mm256_load_si256((const __m256i *)(them + j));
        a = _mm256_min_epi16(_mm256_max_epi16(a, zero), qa);
        c = _mm256_min_epi16(_mm256_max_epi16(c, zero), qa);
        sum = _mm256_add_epi32(sum,
                               _mm256_madd_epi16(a, _mm256_load_si256((const __m256i *)(w + j))));
        sum = _mm256_add_epi32(
            sum, _mm256_madd_epi16(c, _mm256_load_si256((const __m256i *)(w + h + j))));
    }
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
}

const ply__nnue_kernel_t ply__nnue_kernel_avx2 = {"avx2", update_avx2, output_avx2};
