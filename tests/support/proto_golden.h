/*
 * The wire protocol's test messages, shared by the tests of proto/'s files
 * (tests/unit/test_envelope*.c).
 *
 * Golden vectors: tests/data/proto-golden/NAME.hex are the bytes Google's protoc writes
 * for NAME.txtpb (see the README there), an encoder independent of protobuf-c. GOLDEN
 * lists one C builder per message type that makes the same message with the same values;
 * the tests encode it and compare byte for byte, decode the vector and compare field by
 * field (msg_equal), and mutate it for the validation cases.
 *
 * Every builder returns a message in static storage, rebuilt from scratch on every call
 * (the next call of any builder reuses it): edit it freely, never free it.
 */
#ifndef PLY_TEST_PROTO_GOLDEN_H
#define PLY_TEST_PROTO_GOLDEN_H

#include <stddef.h>
#include <stdint.h>

#include "envelope.h"

/** A golden message: its files, its type and its builder. */
struct golden {
    const char *file; /* tests/data/proto-golden/FILE.{txtpb,hex} */
    const char *type; /* ply_msg_type_name */
    Ply__Message__BodyCase body_case;
    ply_msg_t *(*build)(void);
};

/** NGOLDEN - one golden message per type of Message's body, in field order. */
#define NGOLDEN 17
extern const struct golden GOLDEN[NGOLDEN];

/** The positions of the golden messages (FEN). */
extern const char KIWIPETE[];
extern const char STARTFEN[];

/** load_hex - tests/data/proto-golden/NAME.hex in a new buffer of *@len bytes (caller frees). */
uint8_t *load_hex(const char *name, size_t *len);

/** envelope - a zmsg of the protocol id @id (when not NULL), then @body (when not NULL). */
zmsg_t *envelope(const char *id, const uint8_t *body, size_t len);

/**
 * decode_bytes - decode the frames (@id, @body); the outcome must be PLY_EPROTO or
 * PLY_EVERSION with a reason in @why (when not NULL), or a message that passes
 * validation. Returns the decoder's code.
 */
int decode_bytes(const char *id, const uint8_t *body, size_t len, char *why, size_t wl);

/** one_line - 1 when @s is one line of printable text (what a log line needs). */
int one_line(const char *s);

/**
 * msg_equal - 1 when protobuf-c messages @a and @b hold the same fields and values, every
 * sub-message compared in depth; 0 after printing the first difference (unless
 * msg_equal_quiet is set, for a test that expects differences).
 */
int msg_equal(const ProtobufCMessage *a, const ProtobufCMessage *b);
extern int msg_equal_quiet;

/** wrap - the builders' message, emptied, with body @k (set the body's pointer next). */
ply_msg_t *wrap(Ply__Message__BodyCase k);

/* The golden messages, one per type (GOLDEN[i].build). */
ply_msg_t *build_hello(void);
ply_msg_t *build_welcome(void);
ply_msg_t *build_ready(void);
ply_msg_t *build_job(void);
ply_msg_t *build_progress(void);
ply_msg_t *build_result(void);
ply_msg_t *build_heartbeat(void);
ply_msg_t *build_error(void);
ply_msg_t *build_bye(void);
ply_msg_t *build_submit(void);
ply_msg_t *build_accepted(void);
ply_msg_t *build_status(void);
ply_msg_t *build_run_progress(void);
ply_msg_t *build_run_result(void);
ply_msg_t *build_result_request(void);
ply_msg_t *build_cancel(void);
ply_msg_t *build_status_reply(void);

/** result_with_entries - the golden Result with @n copies of one divide entry (n <= PLY_MAX_DIVIDE
 * + 1). */
ply_msg_t *result_with_entries(size_t n);

/** worker_status - fill *@w as a StatusReply's worker with these values; returns @w. */
Ply__WorkerStatus *worker_status(Ply__WorkerStatus *w, const char *id, uint32_t inflight,
                                 uint64_t nodes, uint32_t seed, uint64_t stalled_ms);

/* Texts for the mutations, filled by init_texts: one byte over a limit, and exactly at it
 * (max_text ends with a three-byte character). */
extern char long_text[PLY_MAX_TEXT + 2];   /* PLY_MAX_TEXT + 1 bytes */
extern char max_text[PLY_MAX_TEXT + 1];    /* exactly PLY_MAX_TEXT bytes */
extern char long_fen[PLY_MAX_FEN_LEN + 2]; /* PLY_MAX_FEN_LEN + 1 bytes */
extern char max_fen[PLY_MAX_FEN_LEN + 1];  /* exactly PLY_MAX_FEN_LEN */
void init_texts(void);

/* EDIT(name, statement): a function of the message m that applies the statement to it. */
#define EDIT(name, statement)                                                                      \
    static void name(ply_msg_t *m)                                                                 \
    {                                                                                              \
        statement;                                                                                 \
    }

#endif
