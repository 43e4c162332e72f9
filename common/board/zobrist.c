/* The one place Zobrist keys are made: SplitMix64 from a fixed seed. */
#include "board/zobrist.h"

ply__zobrist_t ply__zobrist;
static uint32_t zobrist_seed;

static uint64_t splitmix64(uint64_t *state)
{ /* Steele, Lea, Flood: "Fast splittable pseudorandom number generators" (2014) */
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void fill(ply_key128_t *k, uint64_t *state)
{
    k->k[0] = splitmix64(state);
    k->k[1] = splitmix64(state);
}

void ply_zobrist_init(uint32_t seed)
{
    uint64_t state = 0x706C792D7A6F6272ull ^ ((uint64_t)seed * 0xD1B54A32D192ED03ull);
    zobrist_seed = seed;
    for (int c = 0; c < 2; c++)
        for (int t = 0; t < 7; t++)
            for (int sq = 0; sq < 64; sq++) {
                if (t == 0)
                    ply__zobrist.psq[c][t][sq] = (ply_key128_t){{0, 0}};
                else
                    fill(&ply__zobrist.psq[c][t][sq], &state);
            }
    /* One key per castling right and file of the rook it castles with: in
     * Chess960 "white may castle h-side" means different moves with the rook
     * on f1 or on h1 (4k3/8/8/8/8/8/8/4KR1R w H - 0 1 and w F: perft(5)
     * 227,454 and 236,952, Stockfish 15.1), so a key of the rights alone would
     * give two different subtrees one table entry. A set of rights is the xor
     * of its members' keys. */
    for (int r = 0; r < 4; r++)
        for (int f = 0; f < 8; f++) fill(&ply__zobrist.castling[r][f], &state);
    for (int f = 0; f < 8; f++) fill(&ply__zobrist.ep[f], &state);
    fill(&ply__zobrist.side, &state);
}

uint32_t ply_zobrist_seed(void) { return zobrist_seed; }

uint64_t ply_zobrist_checksum(void)
{
    const uint64_t *w = (const uint64_t *)&ply__zobrist;
    uint64_t h = 0xCBF29CE484222325ull;
    for (unsigned i = 0; i < sizeof ply__zobrist / sizeof *w; i++) {
        h ^= w[i];
        h *= 0x100000001B3ull; /* FNV-1a over 64-bit words */
        h ^= h >> 29;
    }
    return h;
}

__attribute__((constructor)) static void zobrist_default(void)
{
    ply_zobrist_init(PLY_ZOBRIST_DEFAULT_SEED);
}
