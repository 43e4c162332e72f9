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
    const uint32_t head[7] = {1, 768, (uint32_t)h, 255, 64, 400, (uint32_t)dl};
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
    if (argc < 2 || argc > 4 || argv[1][0] == '-') {
        fprintf(stderr, "usage: ply_nnue_random OUT [HIDDEN (256)] [SEED (1)]\n"
                        "writes a random-weight net (tests/support/nnue_random.h): speed, not "
                        "chess\n");
        return 2;
    }
    const int h = argc > 2 ? atoi(argv[2]) : 256;
    const uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    if (h < 32 || h > 1024 || h % 32) {
        fprintf(stderr, "ply_nnue_random: HIDDEN must be a multiple of 32 in 32..1024\n");
        return 2;
    }
    size_t n;
    uint8_t *b = ply_test_nnue_random(h, seed, 40, 8,
                                      "{\"trainer\":\"none: random weights (ply_nnue_random)\"}", &n);
    FILE *f = b ? fopen(argv[1], "wb") : NULL;
    if (!f || fwrite(b, 1, n, f) != n || fclose(f)) {
        perror(argv[1]);
        return 1;
    }
    free(b);
    return 0;
}
#endif
