/*
 * The ply command's owner token: a random secret made once per user and kept
 * in a file only the user can read ($XDG_STATE_HOME/ply/owner-token, else
 * ~/.local/state/ply/owner-token), sent with every request to a coordinator
 * (client.h, ply_client_set_owner_token). Without CURVE it is what makes a
 * user's runs their own: another user's ply cannot read their answers or
 * cancel them. --owner-token T gives it explicitly (a script, or another
 * machine of the same user).
 */
#ifndef PLY_CLI_OWNER_H
#define PLY_CLI_OWNER_H

/**
 * ply_cli_owner_setup - install @given (from --owner-token; may be NULL) or
 * the token file's secret, creating the file (mode 0600, directories 0700)
 * when it does not exist, as the token of every client of the process. @prog
 * prefixes messages. Returns 0; 2 after printing a usage error (a @given
 * token that is not 16..128 printable characters without spaces); 1 after
 * printing why the file cannot be used (readable by others, not a regular
 * file, damaged). A file that cannot be created (no home directory, a
 * read-only one) is not an error: the process then has a token of its own,
 * said in one line on stderr, and its runs are readable by it alone.
 */
int ply_cli_owner_setup(const char *prog, const char *given);

#endif
