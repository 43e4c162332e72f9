/* Chess960 start positions by Scharnagl's number (datagen.h). */
#include <stdio.h>
#include <string.h>

#include "datagen.h"

/* The n-th empty file of @rank (0-based). */
static int nth_empty(const char *rank, int n)
{
    for (int f = 0; f < 8; f++)
        if (rank[f] == '.' && n-- == 0) return f;
    return -1;
}

void ply_datagen_frc_fen(int n, char *buf, size_t len)
{
    static const char knights[10][2] = { { 0, 1 }, { 0, 2 }, { 0, 3 }, { 0, 4 }, { 1, 2 },
                                         { 1, 3 }, { 1, 4 }, { 2, 3 }, { 2, 4 }, { 3, 4 } };
    char r[9] = "........";
    r[2 * (n % 4) + 1] = 'B'; /* light-squared bishop: b, d, f, h */
    n /= 4;
    r[2 * (n % 4)] = 'B'; /* dark-squared bishop: a, c, e, g */
    n /= 4;
    r[nth_empty(r, n % 6)] = 'Q';
    n /= 6;
    /* both knights' empty-square numbers among the five left, the second after the first */
    const int k1 = nth_empty(r, knights[n][0]), k2 = nth_empty(r, knights[n][1]);
    r[k1] = r[k2] = 'N';
    r[nth_empty(r, 0)] = 'R';
    r[nth_empty(r, 0)] = 'K';
    r[nth_empty(r, 0)] = 'R';
    char lower[9];
    for (int i = 0; i < 9; i++) lower[i] = r[i] ? (char)(r[i] - 'A' + 'a') : '\0';
    snprintf(buf, len, "%s/pppppppp/8/8/8/8/PPPPPPPP/%s w KQkq - 0 1", lower, r);
}
