#!/usr/bin/env bash
# timeout: 180
# ferry run's cache (tools/ferry/ferry_run_cache.c): the first run compiles and runs, the second
# is a hit (-v says so, the binary is the same file, untouched); a local header edited makes a
# miss, a header only touched (same bytes) stays a hit (its manifest line refreshed); other flags are another key; --no-cache
# compiles into a temporary directory and leaves nothing; the cache directory is 0700;
# --clear-cache empties it; FERRY_CACHE, XDG_CACHE_HOME and HOME choose where it is.
. "$FY_SRC/tests/ferry/run_common.inc"

mkdir src
cat >src/params.h <<'H'
#define GREETING "hello"
H
cat >src/prog.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include "params.h"
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("%s from %d of %s\n", GREETING, rank, argc > 1 ? argv[1] : "-");
    MPI_Finalize();
    return 0;
}
C

fr run -v -n 2 src/prog.c x
expect_eq "first run status" 0 "$RC"
expect_eq "first run output" "hello from 0 of x
hello from 1 of x" "$(sort out)"
expect_grep "first run is a miss" '^ferry run: cache miss \(no entry\)' err
expect_grep "first run compiles" '^ferry run: compiling: cc ' err
exe=$(sed -n 's/^ferry run: running: .* -- \([^ ]*\) x$/\1/p' err)
[ -x "$exe" ] || fail "no cached binary named in: $(cat err)"
case "$exe" in "$FERRY_CACHE"/run/*/*/prog) ;; *) fail "binary not in the cache: $exe" ;; esac
expect_eq "cache directory mode" 700 "$(stat -c %a "$FERRY_CACHE/run")"
m1=$(stat -c '%i %Y.%y' "$exe")

sleep 1.1 # a recompile would show in the binary's mtime
fr run -v -n 2 src/prog.c y
expect_eq "second run status" 0 "$RC"
expect_eq "second run output" "hello from 0 of y
hello from 1 of y" "$(sort out)"
expect_grep "second run is a hit" "^ferry run: cache hit: $exe\$" err
grep -q 'compiling' err && fail "second run compiled: $(cat err)"
expect_eq "binary untouched" "$m1" "$(stat -c '%i %Y.%y' "$exe")"

# A header touched but not changed: rehashed, still a hit, and its new time written back to the
# manifest (later hits trust it by stat again).
touch src/params.h
fr run -v -n 1 src/prog.c
expect_grep "touched header is a hit" '^ferry run: cache hit' err
expect_grep "manifest refreshed" "^$(stat -c '%s %.9Y' src/params.h) [0-9a-f]{64} $PWD/src/params.h\$" "$(dirname "$exe")/manifest"

# A header changed: a miss naming it, and the new text runs.
echo '#define GREETING "bonjour"' >src/params.h
fr run -v -n 1 src/prog.c
expect_grep "changed header is a miss" "^ferry run: cache miss \(header $PWD/src/params.h changed\)" err
expect_eq "changed header output" "bonjour from 0 of -" "$(cat out)"
fr run -v -n 1 src/prog.c
expect_grep "then a hit again" '^ferry run: cache hit' err

# Flags are part of the key.
fr run -v -n 1 -DGREETING_UNUSED -O2 src/prog.c
expect_grep "other flags: a miss" '^ferry run: cache miss \(no entry\)' err
expect_eq "entries for two flag sets" 2 "$(ls "$FERRY_CACHE/run" | wc -l)"
# And the same source from another directory (another name in diagnostics and __FILE__).
(cd src && timeout 60 ferry run -v -n 1 prog.c >../out 2>../err)
expect_grep "another name: a miss" '^ferry run: cache miss' err

# --no-cache: nothing added to the cache, nothing left in TMPDIR (checked by finish).
before=$(find "$FERRY_CACHE" | sort)
fr run --no-cache -v -n 2 src/prog.c z
expect_eq "no-cache status" 0 "$RC"
expect_eq "no-cache output" "bonjour from 0 of z
bonjour from 1 of z" "$(sort out)"
expect_grep "no-cache compiles into TMPDIR" "^ferry run: compiling: .* -o $TMPDIR/ferry-run\." err
expect_eq "no-cache leaves the cache alone" "$before" "$(find "$FERRY_CACHE" | sort)"

# Where the cache is.
unset FERRY_CACHE
XDG_CACHE_HOME=$PWD/xdg timeout 60 ferry run -v src/prog.c >out 2>err
expect_grep "XDG_CACHE_HOME" "cache miss .* for $PWD/xdg/ferry/run/" err
env -u XDG_CACHE_HOME HOME=$PWD/home timeout 60 ferry run -v src/prog.c >out 2>err
expect_grep "HOME" "cache miss .* for $PWD/home/.cache/ferry/run/" err
export FERRY_CACHE=$PWD/cache

# --clear-cache.
fr run --clear-cache
expect_eq "clear-cache status" 0 "$RC"
expect_eq "clear-cache message" "ferry run: removed the cache '$FERRY_CACHE/run'" "$(cat out)"
[ -e "$FERRY_CACHE/run" ] && fail "the cache is still there"
fr run -v -n 1 src/prog.c
expect_grep "after clearing: a miss" '^ferry run: cache miss' err
finish
