/*
 * PGN game records for the arbiter: a streaming reader, a game value that
 * keeps everything a record says (tags, moves as written, comments with their
 * [%clk ...] and [%eval ...] commands, NAGs, nested variations, the
 * termination marker), and a writer in PGN export format.
 *
 * The reader holds one game at a time and reads the file through a fixed
 * buffer, so memory is bounded by the largest game (itself capped at
 * PLY_PGN_GAME_MAX bytes of text) whatever the size of the file. It accepts a
 * UTF-8 byte-order mark, CRLF line ends, '%' escape lines, ';' and '{...}'
 * comments, "!"/"?" annotations (as NAGs 1-6), move numbers glued to moves
 * ("12.e4"), and games that lack a termination marker. A game it cannot read
 * is reported with its number and line and skipped: reading resumes at the
 * next tag section, so the games after it are not lost. The reader checks
 * syntax only; legality is the replay's business (ply_arb_adjudicate).
 */
#ifndef PLY_ARBITER_PGN_H
#define PLY_ARBITER_PGN_H

#include <stddef.h>
#include <stdio.h>

#include "arbiter/arbiter.h"

/** Largest game text the reader keeps (tags, moves, comments), in bytes. */
#define PLY_PGN_GAME_MAX (8u << 20)
/** Deepest nesting of variations the reader accepts. */
#define PLY_PGN_DEPTH_MAX 64

/** Kinds of movetext elements, in reading order. */
typedef enum ply_pgn_kind {
    PLY_PGN_MOVE = 0,         /* text: the move as written, move number removed */
    PLY_PGN_COMMENT = 1,      /* text: inside {...} byte for byte, each line end (LF, CRLF
                               * or CR) read as one space */
    PLY_PGN_LINE_COMMENT = 2, /* text: after ';' to the end of the line byte for byte,
                               * white space included; the line end (LF or CRLF) is not
                               * part of it */
    PLY_PGN_NAG = 3,          /* nag: $0..$255; "!" "?" "!!" "??" "!?" "?!" are 1..6 */
    PLY_PGN_VAR_START = 4,    /* "(": an alternative to the move before it */
    PLY_PGN_VAR_END = 5,      /* ")" */
} ply_pgn_kind_t;

/** One movetext element. */
typedef struct ply_pgn_elem {
    ply_pgn_kind_t kind;
    int depth;        /* variation depth: 0 is the main line */
    int nag;          /* for PLY_PGN_NAG */
    long line;        /* line in the file (1-based; 0 for games built in memory) */
    const char *text; /* moves and comments; "" otherwise; owned by the game */
} ply_pgn_elem_t;

/** One tag pair (strings owned by the game, escapes already resolved). */
typedef struct ply_pgn_tag {
    const char *name;
    const char *value;
} ply_pgn_tag_t;

/**
 * A game. Fields are read-only for users; build or change a game with the
 * functions below. Strings live as long as the game (until it is cleared,
 * destroyed, or for a reader's game, until the next ply_pgn_read).
 */
typedef struct ply_pgn_game {
    size_t number;       /* 1-based position in the file, broken games counted */
    long line;           /* line of the game's first character */
    ply_pgn_tag_t *tags; /* in the order read */
    size_t ntags;
    ply_pgn_elem_t *elems;
    size_t nelems;
    const char *result; /* termination marker: "1-0", "0-1", "1/2-1/2", "*", NULL if none */
    long result_line;
    struct ply__pgn_store *store; /* private */
} ply_pgn_game_t;

/** ply_pgn_game_new - an empty game; NULL when out of memory. */
ply_pgn_game_t *ply_pgn_game_new(void);

/** ply_pgn_game_destroy - free *@g and set it to NULL; NULL is fine. */
void ply_pgn_game_destroy(ply_pgn_game_t **g);

/** ply_pgn_game_clear - remove every tag, element and the result (memory kept). */
void ply_pgn_game_clear(ply_pgn_game_t *g);

/**
 * ply_pgn_game_set_tag - set tag @name to @value (copied), replacing the
 * first tag of that name if any. @name must be letters, digits and '_'
 * (PGN 8.1.1). Returns 0, PLY_EINVAL or PLY_ENOMEM.
 */
int ply_pgn_game_set_tag(ply_pgn_game_t *g, const char *name, const char *value);

/** ply_pgn_game_tag - the value of the first tag @name, or NULL. */
const char *ply_pgn_game_tag(const ply_pgn_game_t *g, const char *name);

/**
 * ply_pgn_game_add - append a movetext element: @text (copied) for moves and
 * comments, @nag for NAGs (0..255). Variation depth follows the VAR_START and
 * VAR_END elements added. Returns 0, PLY_EINVAL (bad kind, NAG out of range,
 * NULL text for a move or comment, VAR_END without VAR_START, deeper than
 * PLY_PGN_DEPTH_MAX) or PLY_ENOMEM.
 */
int ply_pgn_game_add(ply_pgn_game_t *g, ply_pgn_kind_t kind, const char *text, int nag);

/**
 * ply_pgn_game_set_result - the termination marker: "1-0", "0-1", "1/2-1/2"
 * or "*" (PGN 8.2.6). Returns 0 or PLY_EINVAL.
 */
int ply_pgn_game_set_result(ply_pgn_game_t *g, const char *result);

/**
 * ply_pgn_write - write @g to @out in PGN export format (PGN 8): the Seven
 * Tag Roster first, in its order ("?" for a missing one; Result from the
 * marker), then the other tags as stored, values escaped; a blank line; the
 * movetext with move numbers ("N." before White's moves, "N..." before a
 * Black move that starts a variation or follows a comment, NAG or variation),
 * NAGs as $n, comments in braces (or after ';' for line comments), lines at
 * most 79 characters where tokens allow; the termination marker ("*" when
 * none); a blank line. A game with a FEN tag gets [SetUp "1"] just before it
 * (PGN 9.7.1; a SetUp tag of the game is replaced). Move numbers start from
 * the FEN tag's fullmove number and side to move when there is one.
 * A comment's text goes out byte for byte: a line is broken only at one of
 * its spaces (read back as that space), never inside a [%...] command ("[%"
 * to the next ']' of the text; one that no ']' closes is text) nor before a
 * '%' or a '[' that opens no command. A ';' comment is ';' and its text as it
 * is, ending its line; one too long for a line (over 78 characters) becomes a
 * brace comment of the same text, or, when it holds a '}', is split into
 * several ';' comments, one a line, at single spaces that are dropped (the
 * pieces joined with one space give the text; the export of the export is
 * the same). A tag pair is one line whatever its length (PGN 8.1); a word,
 * with the brace glued to it and any '%' word or command that may not start
 * a line after it, longer than a line goes out whole. Returns 0 or PLY_EIO.
 */
int ply_pgn_write(FILE *out, const ply_pgn_game_t *g);

/** A reader over one file. */
typedef struct ply_pgn_reader ply_pgn_reader_t;

/** Why a game could not be read (ply_pgn_read returning PLY_EPARSE). */
typedef struct ply_pgn_error {
    size_t game; /* 1-based game number */
    long line;   /* line of the fault */
    char why[200];
} ply_pgn_error_t;

/**
 * ply_pgn_reader_open - read the file at @path ("-" for standard input).
 * Returns NULL on failure with the reason in @why (may be NULL). Destroy with
 * ply_pgn_reader_destroy, which closes the file.
 */
ply_pgn_reader_t *ply_pgn_reader_open(const char *path, char *why, size_t why_len);

/**
 * ply_pgn_reader_new - read from the open stream @in (not closed by the
 * reader). Returns NULL when out of memory.
 */
ply_pgn_reader_t *ply_pgn_reader_new(FILE *in);

/** ply_pgn_reader_destroy - free *@r (closing a file it opened), set it NULL. */
void ply_pgn_reader_destroy(ply_pgn_reader_t **r);

/**
 * ply_pgn_read - read the next game. Returns 1 with *@game set (owned by the
 * reader, valid until the next call), 0 at the end of the input, PLY_EPARSE
 * when a game could not be read: *@err tells its number, the line and why,
 * the game has been skipped and the next call goes on with the game after it;
 * PLY_EIO on a read error (then stop). @err may be NULL.
 */
int ply_pgn_read(ply_pgn_reader_t *r, const ply_pgn_game_t **game, ply_pgn_error_t *err);

/**
 * ply_pgn_game_start - the position a game starts from: the FEN tag when
 * present (SetUp "1" is expected but not required), else the standard
 * initial position; Chess960 rules when the Variant tag says "Chess960" (also
 * "chess 960", "Fischerandom", "Fischer Random", any case). Variants "Standard"
 * and "From Position" are standard chess; any other is refused.
 * Returns 0 with *@pos set, PLY_EFEN or PLY_EILLEGAL for a bad FEN tag,
 * PLY_EINVAL for SetUp "1" without a FEN tag or an unsupported variant; @why
 * says which (may be NULL).
 */
int ply_pgn_game_start(const ply_pgn_game_t *g, ply_arb_pos_t *pos, char *why, size_t why_len);

/**
 * ply_arb_pgn_position - the position after @ply plies of the main line of
 * game number @game (1-based) of the PGN file @path (ply 0 is the start
 * position), as FEN into @fen (PLY_ARB_FEN_MAX bytes suffice); *@chess960 (may
 * be NULL) is set to 1 for a Chess960 game. Reads the file as a stream up to
 * that game. Returns 0; PLY_EIO when the file cannot be read; PLY_ENOTFOUND
 * when the file has fewer games or the game fewer plies (@why says how many);
 * PLY_EPARSE when that game is broken; PLY_EILLEGAL when a move before @ply is
 * illegal or unreadable (@why names it); PLY_EINVAL for bad arguments, or the
 * errors of ply_pgn_game_start.
 */
int ply_arb_pgn_position(const char *path, size_t game, int ply, char *fen, size_t fen_len,
                         int *chess960, char *why, size_t why_len);

#endif
