/* Random-weight nets (nnue_random.h); with NNUE_RANDOM_MAIN, the program
 * ply_nnue_random that writes one to a file for benchmarks by hand. */
#include "nnue_random.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t ply_test_fnv1a64(const uint8_t *p, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static uint64_t next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

/* uniform in -max..max */
static int64_t uniform(uint64_t *s, int64_t max)
{
    return (int64_t)(next(s) >> 11) % (2 * max + 1) - max;
}

static uint8_t *put(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

/* Material in centipawns of PLY_PAWN..PLY_QUEEN (1..5), the king 0: the usual 1/3/3/5/9. */
static const int material_cp[7] = {0, 100, 300, 300, 500, 900, 0};

uint8_t *ply_test_nnue_material(int h, uint64_t seed, int noise, const char *desc, size_t *len)
{
    /* Neurons 0..h/2-1 count the perspective's own material, h/2..h-1 the other's, in
     * units of 16 cp (at most 3900 / 16 = 244, inside 0..QA); the output weighs the side
     * to move's own material +w and the other's -w, with v = 652.8 * cp (QA * QB / SCALE
     * = 255 * 1024 / 400) spread over h/2 neurons: w = 652.8 * 16 / (h / 2), rounded.
     * Then noise. */
    uint8_t *buf = ply_test_nnue_random(h, seed, noise, noise, desc, len);
    if (!buf) return NULL;
    uint8_t *w1 = buf + 36 + strlen(desc), *b1 = w1 + 2 * 768 * (size_t)h, *w2 = b1 + 2 * h;
    const int w = (int)(652.8 * 16 / (h / 2) + 0.5);
    for (int f = 0; f < 768; f++) {
        const int own = f < 384, cp = material_cp[(f % 384) / 64 + 1];
        for (int j = 0; j < h; j++) {
            uint8_t *p = w1 + 2 * ((size_t)f * h + j);
            const int v = (int16_t)(p[0] | p[1] << 8) + ((j < h / 2) == own ? cp / 16 : 0);
            put(p, (uint64_t)v, 2);
        }
    }
    for (int j = 0; j < h; j++) {
        put(b1 + 2 * j, (uint64_t)(noise + 1), 2); /* above 0 despite the noise */
        put(w2 + 2 * j, (uint64_t)(j < h / 2 ? w : -w), 2);
        put(w2 + 2 * (h + j), 0, 2);
    }
    put(w2 + 4 * h, 0, 4);
    put(buf + *len - 8, ply_test_fnv1a64(buf, *len - 8), 8);
    return buf;
}

uint8_t *ply_test_nnue_random(int h, uint64_t seed, int w1_max, int w2_max, const char *desc,
                              size_t *len)
{
    const size_t dl = strlen(desc);
    const size_t n = 36 + dl + 2 * (768 * (size_t)h + (size_t)h + 2 * (size_t)h) + 4 + 8;
    uint8_t *buf = malloc(n), *p = buf;
    if (!buf) return NULL;
    uint64_t s = seed ? seed : 1;
    memcpy(p, "PLYNNUE1", 8);
    p += 8;
    const uint32_t head[7] = {1, 768, (uint32_t)h, 255, 1024, 400, (uint32_t)dl};
    for (int i = 0; i < 7; i++) p = put(p, head[i], 4);
    memcpy(p, desc, dl);
    p += dl;
    for (size_t i = 0; i < 769 * (size_t)h; i++) p = put(p, (uint64_t)uniform(&s, w1_max), 2);
    for (size_t i = 0; i < 2 * (size_t)h; i++) p = put(p, (uint64_t)uniform(&s, w2_max), 2);
    p = put(p, (uint64_t)uniform(&s, (int64_t)w2_max * 255), 4);
    p = put(p, ply_test_fnv1a64(buf, (size_t)(p - buf)), 8);
    *len = n;
    return buf;
}

#ifdef NNUE_RANDOM_MAIN
int main(int argc, char **argv)
{
    const int material = argc > 1 && !strcmp(argv[1], "--material");
    argc -= material, argv += material;
    if (argc < 2 || argc > 4 || argv[1][0] == '-') {
        fprintf(stderr, "usage: ply_nnue_random [--material] OUT [HIDDEN (256)] [SEED (1)]\n"
                        "writes a random-weight net (tests/support/nnue_random.h): speed, not "
                        "chess; --material: material and noise\n");
        return 2;
    }
    const int h = argc > 2 ? atoi(argv[2]) : 256;
    const uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    if (h < 32 || h > 1024 || h % 32) {
        fprintf(stderr, "ply_nnue_random: HIDDEN must be a multiple of 32 in 32..1024\n");
        return 2;
    }
    size_t n;
    const char *desc = material ? "{\"trainer\":\"none: material and noise (ply_nnue_random)\"}"
                                : "{\"trainer\":\"none: random weights (ply_nnue_random)\"}";
    uint8_t *b = material ? ply_test_nnue_material(h, seed, 2, desc, &n)
                          : ply_test_nnue_random(h, seed, 40, 128, desc, &n);
    FILE *f = b ? fopen(argv[1], "wb") : NULL;
    if (!f || fwrite(b, 1, n, f) != n || fclose(f)) {
        perror(argv[1]);
        return 1;
    }
    free(b);
    return 0;
}
#endif
