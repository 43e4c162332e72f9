/* ply-tune: the evaluation's Texel tuner; the commands are in tune.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"

static int usage(FILE *f)
{
    fputs("usage: ply-tune openings COUNT PLIES SEED > book.epd\n"
          "       ply-tune extract GAMES.pgn... > positions.txt\n"
          "       ply-tune tune TRAIN.txt VALID.txt|- PASSES all|pst|terms OUT.inc\n"
          "\n"
          "openings: COUNT distinct positions after PLIES random legal plies (EPD).\n"
          "extract:  the quiet positions (qsearch = static evaluation, not in check) of\n"
          "          the games, one \"FEN;R\" a line, R the result for White (1, 0.5, 0).\n"
          "tune:     Texel's local search of eval.c's values on TRAIN (\"FEN;R\", R a\n"
          "          win probability for White), the error of VALID reported too;\n"
          "          all values, or only the material and tables, or only the rest.\n"
          "          Writes eval.c's initializer to OUT.inc after every pass (with\n"
          "          PASSES 0, the values as they are).\n",
          f);
    return f == stdout ? 0 : 2;
}

static int extract(int argc, char **argv)
{
    long games = 0, kept = 0, seen = 0;
    for (int i = 0; i < argc; i++)
        if (ply_tune_extract(argv[i], stdout, &games, &kept, &seen)) return 1;
    fprintf(stderr, "%ld games, %ld positions, %ld quiet kept\n", games, seen, kept);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) return usage(stderr);
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) return usage(stdout);
    if (!strcmp(argv[1], "openings") && argc == 5) {
        const int count = atoi(argv[2]), plies = atoi(argv[3]);
        if (count <= 0 || plies < 0) return usage(stderr);
        return ply_tune_openings(count, plies, strtoull(argv[4], NULL, 10), stdout) ? 1 : 0;
    }
    if (!strcmp(argv[1], "extract") && argc >= 3) return extract(argc - 2, argv + 2);
    if (!strcmp(argv[1], "tune") && argc == 7) {
        const char *valid = strcmp(argv[3], "-") ? argv[3] : NULL;
        const char *sel = argv[5];
        if (strcmp(sel, "all") && strcmp(sel, "pst") && strcmp(sel, "terms")) return usage(stderr);
        return ply_tune_texel(argv[2], valid, atoi(argv[4]), sel, argv[6]) ? 1 : 0;
    }
    return usage(stderr);
}
