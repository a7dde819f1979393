#!/bin/sh
# Builds api/compat/attn4j-api-baseline.jar, the api that japicmp compares the current one with, from the sources of
# attn4j-api at a commit of this repository's history (the release that becomes the baseline):
#   api/compat/baseline.sh <commit>
# It needs git and a JDK 17 or later, and writes the commit it was built from into api/compat/baseline.commit.
set -eu
commit=${1:?usage: api/compat/baseline.sh <commit>}
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git -C "$root" archive "$commit" api/src/main/java | tar -x -C "$work"
find "$work/api/src/main/java" -name '*.java' > "$work/sources"
mkdir "$work/classes"
javac --release 17 -nowarn -d "$work/classes" @"$work/sources"
jar --create --file "$root/api/compat/attn4j-api-baseline.jar" --date=2000-01-01T00:00:00Z -C "$work/classes" .
git -C "$root" rev-parse "$commit" > "$root/api/compat/baseline.commit"
