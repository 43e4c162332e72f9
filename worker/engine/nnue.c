/*
 * The evaluation network (nnue.h): the file reader, the accumulator's
 * refresh and update, the output, the portable kernel, the choice of
 * kernel, and the net embedded at build time.
 *
 * The reader checks every field of the header and the size before it reads
 * a weight, and the checksum before it keeps one: a net it refuses is never
 * evaluated. Each refusal names the field and its byte offset.
 */
#include "nnue.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nnue_kernel.h"
#include "search.h"
#include "util/error.h"

struct ply_nnue {
    int h;
    int16_t *w1; /* [768][h], feature-major */
    int16_t *b1; /* [h] */
    int16_t *w2; /* [2h]: the side to move's half, then the other's */
    int32_t b2;
    uint64_t checksum;
    char *desc;
    void *mem; /* one 64-byte aligned block holding w1, b1, w2 */
};

/* The header's fixed part: magic, then seven uint32 (contract order). */
#define HEADER_BYTES 36
#define FILE_MAX     (64u << 20)

/* ------------------------------------------------------------ the kernel */

/* out[j] += sign * row[j]: one row at a time, in a loop the compiler vectorises for the
 * baseline instruction set (SSE2 on x86-64); the int16 sums wrap as the SIMD lanes do. */
static void add_row(int16_t *restrict out, const int16_t *restrict row, int sign, int h)
{
    if (sign > 0)
        for (int j = 0; j < h; j++)
            out[j] = (int16_t)(uint16_t)((uint16_t)out[j] + (uint16_t)row[j]);
    else
        for (int j = 0; j < h; j++)
            out[j] = (int16_t)(uint16_t)((uint16_t)out[j] - (uint16_t)row[j]);
}

static void update_portable(int16_t *out, const int16_t *in, const int16_t *const *add, int n_add,
                            const int16_t *const *sub, int n_sub, int h)
{
    if (out != in) memcpy(out, in, sizeof(int16_t) * (size_t)h);
    for (int k = 0; k < n_add; k++) add_row(out, add[k], 1, h);
    for (int k = 0; k < n_sub; k++) add_row(out, sub[k], -1, h);
}

static int32_t output_portable(const int16_t *us, const int16_t *them, const int16_t *w, int h)
{
    uint32_t sum = 0; /* wraps as the SIMD lanes do, without undefined behaviour */
    for (int j = 0; j < h; j++) {
        const int a = us[j] < 0 ? 0 : us[j] > PLY_NNUE_QA ? PLY_NNUE_QA : us[j];
        const int c = them[j] < 0 ? 0 : them[j] > PLY_NNUE_QA ? PLY_NNUE_QA : them[j];
        sum += (uint32_t)(a * w[j]) + (uint32_t)(c * w[h + j]);
    }
    return (int32_t)sum;
}

const ply__nnue_kernel_t ply__nnue_kernel_portable = {"portable", update_portable, output_portable};

static const ply__nnue_kernel_t *kernel = &ply__nnue_kernel_portable;
static pthread_once_t kernel_once = PTHREAD_ONCE_INIT;

static const ply__nnue_kernel_t *best_kernel(void)
{
    const char *env = getenv("PLY_NNUE_PORTABLE");
    if (env && !strcmp(env, "1")) return &ply__nnue_kernel_portable;
#if defined(PLY_HAVE_NNUE_AVX2)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) return &ply__nnue_kernel_avx2;
#endif
    return &ply__nnue_kernel_portable;
}

static void choose_kernel(void)
{
    kernel = best_kernel();
}

int ply_nnue_set_kernel(int k)
{
    pthread_once(&kernel_once, choose_kernel);
    __builtin_cpu_init();
    switch (k) {
    case PLY_NNUE_KERNEL_PORTABLE:
        kernel = &ply__nnue_kernel_portable;
        return 0;
#if defined(PLY_HAVE_NNUE_AVX2)
    case PLY_NNUE_KERNEL_AVX2:
        if (!__builtin_cpu_supports("avx2")) return PLY_EINVAL;
        kernel = &ply__nnue_kernel_avx2;
        return 0;
#endif
    default:
        return PLY_EINVAL;
    }
}

const char *ply_nnue_kernel_name(void)
{
    pthread_once(&kernel_once, choose_kernel);
    return kernel->name;
}

/* ------------------------------------------------------------ the file */

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static int16_t le16s(const uint8_t *p)
{
    return (int16_t)(uint16_t)(p[0] | p[1] << 8);
}

/* FNV-1a 64 (the contract's checksum). Kept here, not shared: the net's
 * check must not change with another module's hash. */
static uint64_t fnv1a64(const uint8_t *p, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* The header's uint32 field @name at byte @off must be @want. */
static int check_field(const uint8_t *p, size_t off, const char *name, uint32_t want, char *why,
                       size_t why_len)
{
    const uint32_t v = le32(p + off);
    if (v == want) return 0;
    return ply_why(why, why_len, PLY_EPARSE, "net file: %s at offset %zu is %u, not %u", name, off,
                   v, want);
}

/* The header and the size: 0 with *@h, *@desc_len and the file's expected size, or an
 * error in @why. */
static int check_header(const uint8_t *p, size_t len, int *h, uint32_t *desc_len, size_t *size,
                        char *why, size_t why_len)
{
    if (len < HEADER_BYTES)
        return ply_why(why, why_len, PLY_EPARSE,
                       "net file: truncated: %zu bytes, its header alone needs %d", len,
                       HEADER_BYTES);
    if (memcmp(p, "PLYNNUE1", 8))
        return ply_why(why, why_len, PLY_EPARSE,
                       "net file: magic at offset 0 is not \"PLYNNUE1\" (not a ply net)");
    int rc;
    if ((rc = check_field(p, 8, "version", PLY_NNUE_VERSION, why, why_len)) ||
        (rc = check_field(p, 12, "inputs", PLY_NNUE_INPUTS, why, why_len)))
        return rc;
    const uint32_t hid = le32(p + 16);
    if (hid < 32 || hid > PLY_NNUE_MAX_HIDDEN || hid % 32)
        return ply_why(why, why_len, PLY_EPARSE,
                       "net file: hidden at offset 16 is %u, not a multiple of 32 in 32..%d", hid,
                       PLY_NNUE_MAX_HIDDEN);
    if ((rc = check_field(p, 20, "qa", PLY_NNUE_QA, why, why_len)) ||
        (rc = check_field(p, 24, "qb", PLY_NNUE_QB, why, why_len)) ||
        (rc = check_field(p, 28, "scale", PLY_NNUE_SCALE, why, why_len)))
        return rc;
    const uint32_t dl = le32(p + 32);
    if (dl > PLY_NNUE_MAX_DESC)
        return ply_why(why, why_len, PLY_EPARSE,
                       "net file: desc_len at offset 32 is %u, more than %d", dl,
                       PLY_NNUE_MAX_DESC);
    const size_t want = HEADER_BYTES + (size_t)dl +
                        2 * ((size_t)PLY_NNUE_INPUTS * hid + hid + 2 * (size_t)hid) + 4 + 8;
    if (len < want)
        return ply_why(why, why_len, PLY_EPARSE,
                       "net file: truncated: %zu bytes, hidden %u and desc_len %u need %zu", len,
                       hid, dl, want);
    if (len > want)
        return ply_why(why, why_len, PLY_EPARSE,
                       "net file: %zu trailing bytes after the checksum at offset %zu", len - want,
                       want - 8);
    const uint64_t sum = fnv1a64(p, want - 8), said = le64(p + want - 8);
    if (sum != said)
        return ply_why(why, why_len, PLY_EPARSE,
                       "net file: checksum at offset %zu is %016llx, the bytes before it give "
                       "%016llx (corrupted)",
                       want - 8, (unsigned long long)said, (unsigned long long)sum);
    *h = (int)hid;
    *desc_len = dl;
    *size = want;
    return 0;
}

ply_nnue_t *ply_nnue_load_mem(const void *data, size_t len, char *why, size_t why_len)
{
    if (why && why_len) why[0] = 0;
    const uint8_t *p = data;
    int h;
    uint32_t dl;
    size_t size;
    if (!data || check_header(p, len, &h, &dl, &size, why, why_len)) return NULL;
    pthread_once(&kernel_once, choose_kernel);

    ply_nnue_t *net = calloc(1, sizeof *net);
    const size_t n16 = (size_t)PLY_NNUE_INPUTS * (size_t)h + (size_t)h + 2 * (size_t)h;
    const size_t bytes = (n16 * 2 + 63) / 64 * 64;
    if (net) net->mem = aligned_alloc(64, bytes);
    if (net) net->desc = malloc(dl + 1);
    if (!net || !net->mem || !net->desc) {
        ply_nnue_destroy(&net);
        ply_why(why, why_len, PLY_ENOMEM, "net file: no memory for %zu bytes of weights", bytes);
        return NULL;
    }
    net->h = h;
    memcpy(net->desc, p + HEADER_BYTES, dl);
    net->desc[dl] = 0;
    net->w1 = net->mem;
    net->b1 = net->w1 + (size_t)PLY_NNUE_INPUTS * (size_t)h;
    net->w2 = net->b1 + h;
    const uint8_t *q = p + HEADER_BYTES + dl;
    for (size_t i = 0; i < n16; i++, q += 2) net->w1[i] = le16s(q);
    net->b2 = (int32_t)le32(q);
    net->checksum = le64(q + 4);
    return net;
}

ply_nnue_t *ply_nnue_load_file(const char *path, char *why, size_t why_len)
{
    if (why && why_len) why[0] = 0;
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f) {
        ply_why(why, why_len, PLY_EIO, "%s: %s", path ? path : "(null)", strerror(errno));
        return NULL;
    }
    uint8_t *buf = malloc(FILE_MAX + 1u);
    size_t n = buf ? fread(buf, 1, FILE_MAX + 1u, f) : 0;
    const int err = ferror(f);
    fclose(f);
    ply_nnue_t *net = NULL;
    char inner[256];
    if (!buf)
        ply_why(why, why_len, PLY_ENOMEM, "%s: no memory to read it", path);
    else if (err)
        ply_why(why, why_len, PLY_EIO, "%s: read error", path);
    else if (n > FILE_MAX)
        ply_why(why, why_len, PLY_EPARSE, "%s: larger than %u MiB, not a net", path,
                FILE_MAX >> 20);
    else if (!(net = ply_nnue_load_mem(buf, n, inner, sizeof inner)))
        ply_why(why, why_len, PLY_EPARSE, "%s: %s", path, inner);
    free(buf);
    return net;
}

void ply_nnue_destroy(ply_nnue_t **net)
{
    if (!net || !*net) return;
    free((*net)->mem);
    free((*net)->desc);
    free(*net);
    *net = NULL;
}

int ply_nnue_hidden(const ply_nnue_t *net)
{
    return net->h;
}

const char *ply_nnue_desc(const ply_nnue_t *net)
{
    return net->desc;
}

uint64_t ply_nnue_checksum(const ply_nnue_t *net)
{
    return net->checksum;
}

/* ------------------------------------------------------------ the embedded net */

#if defined(PLY_NNUE_EMBED_FILE)
/* The file's bytes as they are, in read-only data (PLY_NNUE_EMBED_FILE is its path,
 * set by worker/engine/CMakeLists.txt when worker/engine/nets/ply.nnue exists). */
__asm__(".section .rodata\n"
        ".balign 64\n"
        ".globl ply__nnue_blob\n"
        "ply__nnue_blob:\n"
        ".incbin \"" PLY_NNUE_EMBED_FILE "\"\n"
        ".globl ply__nnue_blob_end\n"
        "ply__nnue_blob_end:\n"
        ".previous\n");
extern const uint8_t ply__nnue_blob[], ply__nnue_blob_end[];
#endif

static pthread_once_t embedded_once = PTHREAD_ONCE_INIT;
static ply_nnue_t *embedded;
static char embedded_why[256] = "this build embeds no net (worker/engine/nets/ply.nnue was "
                                "missing when it was built)";

static void load_embedded(void)
{
#if defined(PLY_NNUE_EMBED_FILE)
    char inner[200];
    embedded = ply_nnue_load_mem(ply__nnue_blob, (size_t)(ply__nnue_blob_end - ply__nnue_blob),
                                 inner, sizeof inner);
    if (!embedded) snprintf(embedded_why, sizeof embedded_why, "the embedded net: %s", inner);
#endif
}

const ply_nnue_t *ply_nnue_embedded(char *why, size_t why_len)
{
    pthread_once(&embedded_once, load_embedded);
    if (!embedded && why && why_len) snprintf(why, why_len, "%s", embedded_why);
    return embedded;
}

/* ------------------------------------------------------------ the accumulator */

static inline const int16_t *row(const ply_nnue_t *net, int feature)
{
    return net->w1 + (size_t)feature * (size_t)net->h;
}

void ply_nnue_refresh(const ply_nnue_t *net, const ply_board_t *b, ply_nnue_acc_t *acc)
{
    for (int p = PLY_WHITE; p <= PLY_BLACK; p++) {
        const int16_t *rows[32];
        int n = 0;
        /* at most 32 pieces on a legal board; the kernel takes them in batches anyway */
        const int16_t *from = net->b1;
        for (int c = PLY_WHITE; c <= PLY_BLACK; c++)
            for (int t = PLY_PAWN; t <= PLY_KING; t++)
                for (ply_bb_t x = b->pieces[t] & b->colour[c]; x; x &= x - 1) {
                    rows[n++] = row(net, ply_nnue_feature(p, c, t, ply_lsb(x)));
                    if (n == 32) {
                        kernel->update(acc->acc[p], from, rows, n, NULL, 0, net->h);
                        from = acc->acc[p];
                        n = 0;
                    }
                }
        kernel->update(acc->acc[p], from, rows, n, NULL, 0, net->h);
    }
}

void ply_nnue_update(const ply_nnue_t *net, const ply_nnue_acc_t *in, const ply_board_t *before,
                     ply_move_t m, ply_nnue_acc_t *out)
{
    if (!m) {
        if (out != in)
            for (int p = PLY_WHITE; p <= PLY_BLACK; p++)
                memcpy(out->acc[p], in->acc[p], sizeof(int16_t) * (size_t)net->h);
        return;
    }
    const int us = before->side, them = us ^ 1;
    const int from = ply_move_from(m), to = ply_move_to(m), kind = ply_move_kind(m);
    const int piece = ply_move_piece(m);
    /* (colour, type, square) of the pieces that leave and arrive */
    int sub[2][3], add[2][3], n_sub = 1, n_add = 1;
    if (kind == PLY_MOVE_CASTLE) {
        /* king takes own rook (board.h): both land on the g/f or c/d files */
        const int rank = us == PLY_WHITE ? 0 : 56, hside = to > from;
        sub[0][0] = us, sub[0][1] = PLY_KING, sub[0][2] = from;
        sub[1][0] = us, sub[1][1] = PLY_ROOK, sub[1][2] = to;
        add[0][0] = us, add[0][1] = PLY_KING, add[0][2] = rank + (hside ? 6 : 2);
        add[1][0] = us, add[1][1] = PLY_ROOK, add[1][2] = rank + (hside ? 5 : 3);
        n_sub = n_add = 2;
    } else {
        sub[0][0] = us, sub[0][1] = piece, sub[0][2] = from;
        add[0][0] = us, add[0][1] = ply_move_is_promo(m) ? ply_move_promo(m) : piece;
        add[0][2] = to;
        if (kind == PLY_MOVE_EP) {
            sub[1][0] = them, sub[1][1] = PLY_PAWN, sub[1][2] = to ^ 8;
            n_sub = 2;
        } else if (before->colour[them] & ply_bb(to)) {
            sub[1][0] = them, sub[1][1] = ply_board_piece_on(before, to, NULL), sub[1][2] = to;
            n_sub = 2;
        }
    }
    for (int p = PLY_WHITE; p <= PLY_BLACK; p++) {
        const int16_t *a[2], *s[2];
        for (int k = 0; k < n_add; k++)
            a[k] = row(net, ply_nnue_feature(p, add[k][0], add[k][1], add[k][2]));
        for (int k = 0; k < n_sub; k++)
            s[k] = row(net, ply_nnue_feature(p, sub[k][0], sub[k][1], sub[k][2]));
        kernel->update(out->acc[p], in->acc[p], a, n_add, s, n_sub, net->h);
    }
}

int ply_nnue_evaluate(const ply_nnue_t *net, const ply_nnue_acc_t *acc, int side)
{
    const int32_t sum = kernel->output(acc->acc[side], acc->acc[side ^ 1], net->w2, net->h);
    const int32_t v = (int32_t)((uint32_t)net->b2 + (uint32_t)sum);
    const int64_t cp = (int64_t)v * PLY_NNUE_SCALE / (PLY_NNUE_QA * PLY_NNUE_QB);
    const int64_t lim = PLY_SCORE_MATE_MIN - 1;
    return (int)(cp > lim ? lim : cp < -lim ? -lim : cp);
}

int ply_nnue_eval_board(const ply_nnue_t *net, const ply_board_t *b)
{
    ply_nnue_acc_t acc;
    ply_nnue_refresh(net, b, &acc);
    return ply_nnue_evaluate(net, &acc, b->side);
}
