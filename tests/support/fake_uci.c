/*
 * ply_fake_uci: a small UCI engine for testing `ply perft-diff`, `ply solve`
 * and `ply match`. It answers "go perft N" in Stockfish's format with a move
 * generator that is ply's fast one (common/board) plus one deliberate bug,
 * and any other "go" with a legal move of the position (the first one, or
 * --prefer's), or misbehaves on purpose:
 *
 *   --drop "FEN|MOVE"  leave MOVE out of the move list whenever the position
 *                      is FEN (compared by 128-bit Zobrist key: placement,
 *                      side, castling, a capturable en-passant square). The
 *                      bug is consistent at every depth, like a real one.
 *   --prefer MOVE      play MOVE (UCI) whenever it is legal.
 *   --mode M           normal (default); hang (never answers go); die (exits
 *                      with status 3 on go, a line on stderr); garbage
 *                      (prints "Nodes searched: many", or for a search a
 *                      malformed "info depth x"); binary (prints control
 *                      bytes); no-uciok (never finishes the handshake);
 *                      lie-root (adds one node to the first root move when
 *                      asked about the root itself, so its counts are
 *                      inconsistent between queries); illegal (a search
 *                      answers a move from an empty square); none (a search
 *                      answers "bestmove 0000"); late (a search answers only
 *                      after --delay MS, ignoring "stop" meanwhile); long
 *                      (before its bestmove a search prints info lines of
 *                      about 10,000 bytes: see long_info); long-bestmove (a
 *                      search answers "bestmove" and a 10,000-byte word).
 *   --after N          behave normally for the first N searches, then by --mode.
 *   --after-game N     the same, counted from each ucinewgame.
 *   --delay MS         for --mode late (default 2000).
 *
 * Commands: uci (it offers the options Hash, Threads, Move Overhead and UCI_Chess960),
 * isready, setoption (any offered name), ucinewgame, position startpos|fen F
 * [moves ...], go perft N, go ..., stop, quit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board/movegen.h"

static int chess960, have_drop, lie_root;
static ply_board_t drop_pos;
static char drop_move[8], prefer[8];

/* Legal moves, minus the dropped one at the dropped position. */
static int gen(const ply_board_t *b, ply_move_t *moves)
{
    int n = ply_board_legal_moves(b, moves);
    if (!have_drop || b->key[0] != drop_pos.key[0] || b->key[1] != drop_pos.key[1]) return n;
    for (int i = 0; i < n; i++) {
        char uci[8];
        ply_board_move_to_uci(b, moves[i], uci);
        if (!strcmp(uci, drop_move)) {
            moves[i] = moves[--n];
            break;
        }
    }
    return n;
}

static uint64_t perft(const ply_board_t *b, int depth)
{
    ply_move_t moves[PLY_MAX_MOVES];
    int n = gen(b, moves);
    if (depth <= 1) return (uint64_t)n;
    uint64_t sum = 0;
    for (int i = 0; i < n; i++) {
        ply_board_t c = *b;
        ply_board_play(&c, moves[i]);
        sum += perft(&c, depth - 1);
    }
    return sum;
}

/* "position startpos|fen F... [moves m...]": 0, or -1 when it cannot be set up. */
static int set_position(ply_board_t *b, char *args, int *at_root)
{
    char *moves = strstr(args, " moves");
    if (moves) *moves = '\0';
    const char *fen = !strncmp(args, "startpos", 8) ? "startpos"
                      : !strncmp(args, "fen ", 4)   ? args + 4
                                                    : NULL;
    if (!fen || ply_board_from_fen(b, fen, chess960 ? PLY_BOARD_CHESS960 : 0, NULL, 0) < 0)
        return -1;
    *at_root = 1;
    if (!moves) return 0;
    for (char *save = NULL, *m = strtok_r(moves + 6, " ", &save); m;
         m = strtok_r(NULL, " ", &save)) {
        ply_move_t mv;
        if (ply_board_move_from_uci(b, m, &mv) < 0) return -1;
        ply_board_play(b, mv);
        *at_root = 0;
    }
    return 0;
}

static void go_perft(const ply_board_t *b, int depth, int at_root, const char *mode)
{
    if (!strcmp(mode, "hang")) {
        for (;;) pause();
    }
    if (!strcmp(mode, "die")) {
        fprintf(stderr, "fake engine: simulated crash\n");
        exit(3);
    }
    if (!strcmp(mode, "garbage")) {
        printf("e2e4: 20\n\nNodes searched: many\n\n");
        return;
    }
    if (!strcmp(mode, "binary")) {
        fwrite("e2e4\0\x01\x02: 7\n", 1, 12, stdout);
        return;
    }
    ply_move_t moves[PLY_MAX_MOVES];
    int n = gen(b, moves);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        ply_board_t c = *b;
        ply_board_play(&c, moves[i]);
        uint64_t cnt = depth > 1 ? perft(&c, depth - 1) : 1;
        if (i == 0 && at_root && lie_root) cnt++;
        char uci[8];
        ply_board_move_to_uci(b, moves[i], uci);
        printf("%s: %llu\n", uci, (unsigned long long)cnt);
        total += cnt;
    }
    printf("\nNodes searched: %llu\n\n", (unsigned long long)total);
}

/*
 * Info lines of about 10,000 bytes, longer than a UCI reader may keep (ply
 * keeps 4096 bytes): a field ply's reader must not misread where it cuts
 * ("nodes 987654321" straddling byte 4096, after an unknown filler word),
 * an "info string", and a last one that says "depth 3 score cp 42 nodes
 * @n" before a pv of @uci repeated: its head is all a reader can report.
 */
static void long_info(const char *uci, int n)
{
    static char line[10200];
    int o = snprintf(line, sizeof line, "info depth 2 score cp 5 filler ");
    while (o < 4093 - 7) line[o++] = 'x';
    o += snprintf(line + o, sizeof line - (size_t)o, " nodes 987654321 time 1 filler ");
    while (o < 10000) line[o++] = 'y';
    line[o] = '\0';
    printf("%s\n", line);
    o = snprintf(line, sizeof line, "info string ");
    while (o < 10000) line[o++] = 'z';
    line[o] = '\0';
    printf("%s\n", line);
    o = snprintf(line, sizeof line, "info depth 3 seldepth 3 score cp 42 nodes %d pv", n);
    while (o < 10000) o += snprintf(line + o, sizeof line - (size_t)o, " %s", uci);
    printf("%s\n", line);
}

/* A search: a legal move (--prefer's, else the first), or the mode's misbehaviour. */
static void go_search(const ply_board_t *b, const char *mode, long delay_ms)
{
    if (!strcmp(mode, "hang")) {
        for (;;) pause();
    }
    if (!strcmp(mode, "die")) {
        fprintf(stderr, "fake engine: simulated crash\n");
        exit(3);
    }
    if (!strcmp(mode, "garbage")) {
        printf("info depth x score cp 12\n");
        return;
    }
    if (!strcmp(mode, "binary")) {
        fwrite("info \x01\x02\n", 1, 8, stdout);
        return;
    }
    if (!strcmp(mode, "none")) {
        printf("bestmove 0000\n");
        return;
    }
    if (!strcmp(mode, "illegal")) {
        int empty = 0;
        while (ply_board_occ(b) & ply_bb(empty)) empty++; /* a position has an empty square */
        printf("bestmove %c%c%c%c\n", 'a' + empty % 8, '1' + empty / 8, 'a' + (empty + 9) % 8,
               '1' + ((empty + 9) / 8) % 8);
        return;
    }
    if (!strcmp(mode, "long-bestmove")) {
        static char word[10001];
        memset(word, 'w', sizeof word - 1);
        printf("bestmove %s\n", word);
        return;
    }
    if (!strcmp(mode, "late")) usleep((useconds_t)delay_ms * 1000);
    ply_move_t moves[PLY_MAX_MOVES];
    int n = ply_board_legal_moves(b, moves);
    if (!n) {
        printf("info depth 0 score %s 0\nbestmove 0000\n", ply_board_checkers(b) ? "mate" : "cp");
        return;
    }
    char uci[8];
    ply_board_move_to_uci(b, moves[0], uci);
    for (int i = 0; prefer[0] && i < n; i++) {
        char u[8];
        ply_board_move_to_uci(b, moves[i], u);
        if (!strcmp(u, prefer)) memcpy(uci, u, sizeof uci);
    }
    if (!strcmp(mode, "long"))
        long_info(uci, n);
    else
        printf("info depth 1 seldepth 1 multipv 1 score cp 0 nodes %d nps 1000 time 0 pv %s\n", n,
               uci);
    printf("bestmove %s\n", uci);
}

int main(int argc, char **argv)
{
    const char *mode = "normal", *drop = NULL;
    long after = 0, delay_ms = 2000, searches = 0;
    int per_game = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--mode"))
            mode = argv[i + 1];
        else if (!strcmp(argv[i], "--drop"))
            drop = argv[i + 1];
        else if (!strcmp(argv[i], "--prefer"))
            snprintf(prefer, sizeof prefer, "%s", argv[i + 1]);
        else if (!strcmp(argv[i], "--after") || !strcmp(argv[i], "--after-game")) {
            after = atol(argv[i + 1]);
            per_game = !strcmp(argv[i], "--after-game");
        } else if (!strcmp(argv[i], "--delay"))
            delay_ms = atol(argv[i + 1]);
    }
    lie_root = !strcmp(mode, "lie-root");
    if (drop) {
        char fen[256];
        const char *bar = strchr(drop, '|');
        if (!bar || (size_t)(bar - drop) >= sizeof fen || strlen(bar + 1) >= sizeof drop_move) {
            fprintf(stderr, "fake engine: --drop \"FEN|MOVE\"\n");
            return 2;
        }
        memcpy(fen, drop, (size_t)(bar - drop));
        fen[bar - drop] = '\0';
        snprintf(drop_move, sizeof drop_move, "%s", bar + 1);
        if (ply_board_from_fen(&drop_pos, fen, 0, NULL, 0) < 0) {
            fprintf(stderr, "fake engine: bad --drop FEN\n");
            return 2;
        }
        have_drop = 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    ply_board_t b;
    ply_board_startpos(&b);
    int at_root = 1;
    char line[65536];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!strcmp(line, "uci")) {
            if (!strcmp(mode, "no-uciok")) continue;
            printf("id name ply fake engine (%s)\nid author ply tests\n"
                   "option name Hash type spin default 16 min 1 max 1024\n"
                   "option name Threads type spin default 1 min 1 max 64\n"
                   "option name Move Overhead type spin default 10 min 0 max 5000\n"
                   "option name UCI_Chess960 type check default false\nuciok\n",
                   mode);
        } else if (!strcmp(line, "isready")) {
            printf("readyok\n");
        } else if (!strncmp(line, "setoption name UCI_Chess960 value ", 34)) {
            chess960 = !strcmp(line + 34, "true");
        } else if (!strcmp(line, "ucinewgame")) {
            if (per_game) searches = 0;
        } else if (!strncmp(line, "position ", 9)) {
            if (set_position(&b, line + 9, &at_root) < 0)
                printf("info string cannot set up %s\n", line + 9);
        } else if (!strncmp(line, "go perft ", 9)) {
            go_perft(&b, atoi(line + 9), at_root, mode);
        } else if (!strncmp(line, "go", 2) && (line[2] == ' ' || !line[2])) {
            go_search(&b, ++searches > after ? mode : "normal", delay_ms);
        } else if (!strcmp(line, "quit")) {
            break;
        }
        fflush(stdout);
    }
    return 0;
}
