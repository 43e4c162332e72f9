/*
 * `ply keygen`: write a CURVE key pair as two czmq certificates, NAME.key
 * (public: goes into a coordinator's --allow directory, or to workers and
 * clients as --server-key) and NAME.key_secret (private, mode 0600). The
 * files are read back with the same parser the coordinator and workers use
 * (proto/security.h), so a pair that keygen accepts is one they accept.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <czmq.h>

#include "commands.h"
#include "security.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ply keygen [--out DIR] [--name NAME] [--force]\n"
            "\n"
            "Writes a CURVE key pair for --curve (ZeroMQ CURVE, czmq certificate files):\n"
            "  DIR/NAME.key         the public key: put workers' and clients' public keys in\n"
            "                       the coordinator's --allow directory, and give the\n"
            "                       coordinator's to workers and clients as --server-key\n"
            "  DIR/NAME.key_secret  the secret key (mode 0600): stays on this machine, given\n"
            "                       to the program that owns it as --cert\n"
            "\n"
            "  -o, --out DIR     where to write (default: the current directory; created if\n"
            "                    missing)\n"
            "  -n, --name NAME   file name and the name the coordinator logs (letters, digits,\n"
            "                    '.', '_', '-'; default: this host's name)\n"
            "      --force       overwrite existing files\n"
            "  -h, --help        this text\n"
            "\n"
            "Exit status: 0 ok, 1 failure (cannot write), 2 usage.\n");
}

static int valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63 || s[0] == '.' || s[0] == '-') return 0;
    for (size_t i = 0; i < n; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", s[i]))
            return 0;
    return 1;
}

/* Writes both files; the secret one is created under umask 077, so it is never readable by others.
 */
static int write_pair(zcert_t *cert, const char *pub_path, const char *sec_path)
{
    mode_t old = umask(077);
    int rc = zcert_save_secret(cert, sec_path);
    umask(old);
    if (rc == 0 && chmod(sec_path, 0600) != 0) rc = -1;
    if (rc == 0) rc = zcert_save_public(cert, pub_path);
    return rc;
}

int ply_cmd_keygen(int argc, char **argv)
{
    enum { OPT_FORCE = 256 };
    static const struct option longopts[] = {{"out", required_argument, NULL, 'o'},
                                             {"name", required_argument, NULL, 'n'},
                                             {"force", no_argument, NULL, OPT_FORCE},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *dir = ".", *name = NULL;
    int force = 0, c;
    char host[64] = "";
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:n:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            dir = optarg;
            break;
        case 'n':
            name = optarg;
            break;
        case OPT_FORCE:
            force = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            return ply_usage_error("keygen", "option '%s' needs a value", argv[optind - 1]);
        default:
            return ply_usage_error("keygen", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return ply_usage_error("keygen", "unexpected argument '%s'", argv[optind]);
    if (!name) {
        if (gethostname(host, sizeof host - 1) != 0 || !host[0]) snprintf(host, sizeof host, "ply");
        host[strcspn(host, ".")] = '\0'; /* the short name */
        name = host;
    }
    if (!valid_name(name))
        return ply_usage_error("keygen",
                               "--name '%s' must be 1-63 letters, digits, '.', '_' or '-'", name);

    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "ply keygen: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    char pub_path[4096], sec_path[4200];
    snprintf(pub_path, sizeof pub_path, "%s/%s.key", dir, name);
    snprintf(sec_path, sizeof sec_path, "%s_secret", pub_path);
    if (!force && (access(pub_path, F_OK) == 0 || access(sec_path, F_OK) == 0)) {
        fprintf(stderr, "ply keygen: %s or %s exists; give --force to replace the key pair\n",
                pub_path, sec_path);
        return 1;
    }
    zcert_t *cert = zcert_new();
    if (!cert) {
        fprintf(stderr, "ply keygen: cannot make a key pair (libzmq without CURVE?)\n");
        return 1;
    }
    zcert_set_meta(cert, "name", "%s", name);
    zcert_set_meta(cert, "generator", "ply keygen %s", PLY_VERSION);
    if (write_pair(cert, pub_path, sec_path) != 0) {
        fprintf(stderr, "ply keygen: cannot write %s: %s\n", sec_path, strerror(errno));
        zcert_destroy(&cert);
        return 1;
    }
    /* read back as the coordinator and workers will */
    char why[512];
    ply_curve_client_t *check = ply_curve_client_new(sec_path, pub_path, why, sizeof why);
    if (!check) {
        fprintf(stderr, "ply keygen: the files written do not read back: %s\n", why);
        zcert_destroy(&cert);
        return 1;
    }
    printf("public key %s\n", zcert_public_txt(cert));
    printf("wrote %s (public) and %s (secret, mode 0600)\n", pub_path, sec_path);
    ply_curve_client_destroy(&check);
    zcert_destroy(&cert);
    return 0;
}
