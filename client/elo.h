/*
 * The Elo difference of a match score, with its 95% confidence interval.
 *
 * The score of N games with W wins, D draws and L losses is
 * s = (W + D/2) / N; the logistic Elo model gives the difference
 * elo(s) = -400 log10(1/s - 1). The per-game score is a trinomial variable
 * (1, 1/2, 0 with frequencies W/N, D/N, L/N), so its variance is
 * var = (W (1-s)^2 + D (1/2-s)^2 + L s^2) / N and the standard error of s is
 * sqrt(var / N); the interval is elo(s -/+ 1.959964 se), the bounds mapped
 * through the same logistic function (so it is not symmetric). This is the
 * method of cutechess-cli (projects/lib/src/elo.cpp: Elo::Elo,
 * Elo::errorMargin, which prints the half-width (hi - lo) / 2), with the
 * 97.5% normal quantile 1.959964 instead of its approximation of erf^-1.
 */
#ifndef PLY_CLIENT_ELO_H
#define PLY_CLIENT_ELO_H

/** A match result seen from one side. */
typedef struct ply_elo {
    long games;
    double score;  /* s, 0..1 (0 when no games) */
    double se;     /* standard error of s */
    double elo;    /* elo(s): -HUGE_VAL when s is 0, +HUGE_VAL when it is 1 */
    double lo, hi; /* the 95% interval's bounds (infinite past 0 or 1, as elo) */
} ply_elo_t;

/**
 * ply_elo - the Elo difference of @wins, @draws and @losses (each >= 0) with
 * its 95% interval. No games, or negative counts: all zero (games 0).
 */
ply_elo_t ply_elo(long wins, long draws, long losses);

/**
 * ply_elo_of_score - elo(@s) = -400 log10(1/@s - 1), for 0 < @s < 1 (the
 * logistic model; 0.75 gives 400 log10 3 = +190.85). Outside it: -/+HUGE_VAL.
 */
double ply_elo_of_score(double s);

#endif
