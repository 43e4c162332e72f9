#!/bin/sh
# The Debian package: cpack -G DEB from a build tree, then dpkg-deb says
# what it is and what it holds, and its programs run once unpacked.
# Usage: check_deb.sh BUILD_DIR SOURCE_DIR
# Depends is checked against the libraries the programs really load: each
# DT_NEEDED entry (readelf), mapped to its Debian package by dpkg -S, must be
# named in Depends (which dpkg-shlibdeps computed).
set -eu
build=$1
src=$2
for tool in cpack dpkg-deb dpkg-shlibdeps file readelf; do
    command -v "$tool" >/dev/null || { echo "check_deb: $tool is missing (cmake, dpkg-dev, file, binutils)"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "check_deb: $*"; fail=1; }

cpack -G DEB -B "$tmp/out" --config "$build/CPackConfig.cmake" >"$tmp/cpack.log" 2>&1 ||
    { cat "$tmp/cpack.log"; exit 1; }
version=$(sed -nE 's/^set\(CPACK_PACKAGE_VERSION "([^"]*)"\)/\1/p' "$build/CPackConfig.cmake")
arch=$(dpkg --print-architecture)
deb=$tmp/out/ply_${version}_${arch}.deb
[ -f "$deb" ] || { bad "no $deb; cpack wrote: $(ls "$tmp/out")"; exit 1; }

info=$(dpkg-deb --info "$deb")
echo "$info" | sed -n '/^ [A-Z][A-Za-z-]*:/,$p'
field() { echo "$info" | sed -nE "s/^ $1: (.*)/\1/p"; }
[ "$(field Package)" = ply ] || bad "Package is '$(field Package)'"
[ "$(field Version)" = "$version" ] || bad "Version is '$(field Version)', not $version"
[ "$(field Architecture)" = "$arch" ] || bad "Architecture is '$(field Architecture)'"
[ "$(field Section)" = games ] || bad "Section is '$(field Section)'"
case $(field Maintainer) in *"<"*"@"*">") ;; *) bad "Maintainer '$(field Maintainer)' is not 'Name <address>'" ;; esac
depends=$(field Depends)
[ -n "$depends" ] || bad "no Depends"

contents=$(dpkg-deb --contents "$deb")
for f in ./usr/bin/ply ./usr/bin/ply-coordinator ./usr/bin/ply-worker \
    ./usr/share/man/man1/ply.1.gz ./usr/share/man/man1/ply-coordinator.1.gz \
    ./usr/share/man/man1/ply-worker.1.gz ./usr/share/bash-completion/completions/ply \
    ./usr/share/bash-completion/completions/ply-coordinator \
    ./usr/share/bash-completion/completions/ply-worker ./usr/share/doc/ply/copyright \
    ./usr/share/doc/ply/LICENSE ./usr/share/doc/ply/README.md; do
    echo "$contents" | grep -qE " $f\$" || bad "$f is not in the package"
done
(cd "$src/deploy" && find . -type f) | sed 's|^\./||' | while read -r f; do
    echo "$contents" | grep -qE " \./usr/share/ply/deploy/$f\$" || bad "deploy/$f is not in the package"
done
echo "$contents" | awk '$6 ~ /^\.\/usr\/bin\/./ && ($1 != "-rwxr-xr-x" || $2 != "root/root") {print}' | grep . &&
    bad "programs not 0755 root/root"
echo "$contents" | grep -E 'test_|ply-tune|ply_fake|\.a$' && bad "test or tool files in the package"

# Depends against the libraries the programs load
dpkg-deb -x "$deb" "$tmp/root"
# (each NEEDED name, at the path the dynamic linker resolves it to here)
for exe in ply ply-coordinator ply-worker; do
    readelf -d "$tmp/root/usr/bin/$exe" | sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p' |
        while read -r lib; do
            ldd "$tmp/root/usr/bin/$exe" | awk -v l="$lib" '$1 == l && $2 == "=>" {print l, $3}'
        done
done | sort -u >"$tmp/needed"
while read -r lib path; do
    pkg=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$(readlink -f "$path")" 2>/dev/null || true)
    pkg=$(echo "$pkg" | sed -n '1s/:.*//p')
    [ -n "$pkg" ] || { bad "$lib ($path): no installed package holds it"; continue; }
    echo "$depends" | tr ',' '\n' | sed -E 's/^ *//; s/ .*//' | grep -qx "$pkg" ||
        bad "the programs load $lib ($pkg), which Depends does not name: $depends"
done <"$tmp/needed"

# The unpacked programs run: perft(3) of the start position is 8,902 (chessprogramming wiki).
n=$("$tmp/root/usr/bin/ply" perft -d 3 --threads 1 --hash 0 | sed -n 's/^Nodes searched: //p')
[ "$n" = 8902 ] || bad "the packaged ply perft -d 3 said '$n', not 8902"
"$tmp/root/usr/bin/ply" --version | grep -q "^ply $version " || bad "the packaged ply --version is wrong"

[ "$fail" = 0 ] && echo "check_deb: $(basename "$deb"), $(stat -c %s "$deb") bytes, $(echo "$contents" | grep -c '^-') files; $(wc -l <"$tmp/needed") libraries loaded, all in Depends"
exit $fail
