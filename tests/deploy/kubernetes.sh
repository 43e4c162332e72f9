#!/bin/sh
# deploy/kubernetes passes the offline check of tests/deploy/k8s_validate.py (the API
# models of Debian's python3-kubernetes, and the references between the objects), and
# each of six copies broken on purpose fails it with the right message: the check can fail.
# The options the manifests give ply-coordinator and ply-worker are checked against
# the programs' --help (BIN_DIR), so a renamed option cannot go unseen.
# Usage: kubernetes.sh SOURCE_DIR BIN_DIR. Exit 77 without python3-yaml and python3-kubernetes.
set -eu
src=$1 bin=$2
py=/usr/bin/python3
check=$src/tests/deploy/k8s_validate.py
"$py" -c 'import yaml, kubernetes.client' 2>/dev/null ||
    { echo "skipped: needs Debian's python3-yaml and python3-kubernetes"; exit 77; }

"$py" "$check" "$src/deploy/kubernetes" || { echo "FAIL: deploy/kubernetes does not pass"; exit 1; }

work=$(mktemp -d /tmp/ply-k8s.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail=0
# Options in the manifests' args lists: lines '- --name' of each program's file.
# --http and --http-token-file come with the coordinator's HTTP status endpoint
# (issue 12, part 1); until a build has them they are only reported.
for pair in coordinator.yaml:ply-coordinator worker.yaml:ply-worker; do
    file=${pair%%:*} prog=${pair#*:}
    "$bin/$prog" --help >"$work/help" 2>&1 || true
    sed -n 's/^ *- \(--[a-z-]*\)$/\1/p' "$src/deploy/kubernetes/$file" >"$work/opts"
    while read -r opt; do
        if grep -Eq -- "${opt}([ =,]|\$)" "$work/help"; then continue; fi
        case $opt in
            --http | --http-token-file) echo "note: $prog of this build has no $opt yet (the HTTP endpoint)" ;;
            *) echo "FAIL: $file gives $prog $opt, which its --help does not list"; fail=1 ;;
        esac
    done <"$work/opts"
done
[ "$fail" -eq 0 ] && echo "the manifests' options are the programs' options"
# broken FILE SED-SCRIPT EXPECTED-MESSAGE-REGEX
broken() {
    rm -rf "$work/k"
    cp -r "$src/deploy/kubernetes" "$work/k"
    sed -i "$2" "$work/k/$1"
    if cmp -s "$src/deploy/kubernetes/$1" "$work/k/$1"; then
        echo "FAIL: the edit '$2' changed nothing in $1"; fail=1; return
    fi
    if "$py" "$check" "$work/k" >"$work/out" 2>&1; then
        echo "FAIL: passed with $1 broken by '$2'"; fail=1
    elif grep -Eq "$3" "$work/out"; then
        echo "broken $1 ('$2'): fails, as it should: $(grep -E "$3" "$work/out" | head -n 1)"
    else
        echo "FAIL: $1 broken by '$2' fails without /$3/:"; cat "$work/out"; fail=1
    fi
}
broken coordinator.yaml 's/containerPort: 5555/contianerPort: 5555/' 'contianerPort: unknown field of V1ContainerPort \(did you mean containerPort\?\)'
broken worker.yaml 's/replicas: 2/replicas: two/' 'replicas: int expected, not str'
broken service.yaml '/^  selector:/,/^  ports:/s/component: coordinator$/component: coordinatr/' 'Service/ply-coordinator: .*matches no pod template'
broken service.yaml '/port: 8080/d' 'invalid V1Service: .*port'
broken coordinator.yaml 's|/etc/ply/coordinator/coordinator.key_secret|/etc/ply/coordinator/coord.key_secret|' 'Secret ply-coordinator-key has no key coord.key_secret'
broken worker.yaml 's/- "2"/- "4"/' 'resources.requests.cpu 2 is not --threads 4'
[ "$fail" -eq 0 ] && echo "kubernetes manifests: ok"
exit "$fail"
