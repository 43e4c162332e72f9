/*
 * The two loops of the network (nnue.h) behind one table, so that the
 * portable C path (nnue.c) and the SIMD path (nnue_avx2.c, compiled with
 * -mavx2) can be chosen at start-up. (No AVX-512 path yet: the development
 * machine has none to test one on.) Every
 * path wraps alike: int16 lanes for the accumulator, int32 for the output's
 * sum (the portable path sums in uint32), so all give identical results.
 */
#ifndef PLY_WORKER_NNUE_KERNEL_H
#define PLY_WORKER_NNUE_KERNEL_H

#include <stdint.h>

typedef struct ply__nnue_kernel {
    const char *name;
    /* out[j] = in[j] + sum of add[k][j] - sum of sub[k][j] for j < h (h a multiple of
     * 32; every array 32-byte aligned; out may be in) */
    void (*update)(int16_t *out, const int16_t *in, const int16_t *const *add, int n_add,
                   const int16_t *const *sub, int n_sub, int h);
    /* the sum over j < h of clamp(us[j], 0, qa) * w[j] + clamp(them[j], 0, qa) * w[h + j],
     * wrapping in 32 bits */
    int32_t (*output)(const int16_t *us, const int16_t *them, const int16_t *w, int h);
} ply__nnue_kernel_t;

extern const ply__nnue_kernel_t ply__nnue_kernel_portable;
#if defined(PLY_HAVE_NNUE_AVX2)
extern const ply__nnue_kernel_t ply__nnue_kernel_avx2;
#endif

#endif
