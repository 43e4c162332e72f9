/* Elo difference and interval of a match score (see elo.h for the method and its source). */
#include "elo.h"

#include <math.h>

/* The 97.5% quantile of the standard normal distribution. */
#define Z_975 1.959963984540054

double ply_elo_of_score(double s)
{
    if (s <= 0) return -HUGE_VAL;
    if (s >= 1) return HUGE_VAL;
    return -400.0 * log10(1.0 / s - 1.0);
}

ply_elo_t ply_elo(long wins, long draws, long losses)
{
    ply_elo_t e = {0};
    if (wins < 0 || draws < 0 || losses < 0 || wins + draws + losses == 0) return e;
    double n = (double)(wins + draws + losses);
    e.games = wins + draws + losses;
    e.score = ((double)wins + (double)draws / 2.0) / n;
    double s = e.score;
    double var = ((double)wins * (1 - s) * (1 - s) + (double)draws * (0.5 - s) * (0.5 - s) +
                  (double)losses * s * s) /
                 n;
    e.se = sqrt(var / n);
    e.elo = ply_elo_of_score(s);
    e.lo = ply_elo_of_score(s - Z_975 * e.se);
    e.hi = ply_elo_of_score(s + Z_975 * e.se);
    return e;
}
