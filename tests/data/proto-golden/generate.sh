#!/bin/sh
# Regenerates NAME.hex from NAME.txtpb with Google's protoc (an encoder
# independent of protobuf-c). Needs protobuf-compiler; only for regenerating,
# never for building or testing. Run from anywhere.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
for src in "$here"/*.txtpb; do
    name=$(basename "$src" .txtpb)
    protoc --proto_path="$root/proto" --encode=ply.Message "$root/proto/ply.proto" <"$src" |
        od -An -v -tx1 | tr -d ' \n' | fold -w 64 >"$here/$name.hex"
    echo >>"$here/$name.hex"
done
