# shellcheck shell=sh
# Shell helpers the integration scripts share (sourced: . "$(dirname "$0")/lib.sh").

# coordinator_endpoint LOG [PID] - the tcp:// endpoint a ply-coordinator started with
# --bind tcp://HOST:0 says it listens on in LOG (its stderr), waiting up to 10 s for the line;
# prints nothing when it has not said it by then, or PID (when given) has exited.
coordinator_endpoint() {
    for _ in $(seq 100); do
        ep=$(sed -n 's/.*listening on \(tcp:[^ ]*\).*/\1/p' "$1" | head -1)
        [ -n "$ep" ] && { echo "$ep"; return 0; }
        [ -n "${2:-}" ] && ! kill -0 "$2" 2>/dev/null && return 1
        sleep 0.1
    done
    return 1
}
