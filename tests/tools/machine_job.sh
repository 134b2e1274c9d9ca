#!/usr/bin/env bash
# timeout: 180
# Who calibrates in a job (src/core/fy_machine_job.c): rank 0 alone reads the per-machine cache
# file or measures and writes it; the other ranks take its values through the process manager
# and never touch a cache, even when told to recalibrate. Shown with MPMD: rank 0 gets one cache
# directory, ranks 1-3 another, which must stay empty. Then: a second job reads the file without
# rewriting it (same inode), FERRY_CALIBRATE=recalibrate rewrites it (a new inode: written
# aside and renamed), skip creates nothing, and a cache directory that cannot be made does not
# stop the job.
set -u
B=$FY_BUILD
fail=0
err() { echo "FAIL: $*"; fail=1; }
"$B/bin/mpicc" -O2 -o hello "$FY_SRC/examples/hello.c" || exit 1
run() { timeout 120 "$B/bin/mpiexec" "$@" > out.txt 2>&1; }
hellos() { [ "$(grep -c '^Hello from rank' out.txt)" = "$1" ] || err "$2: $(tail -5 out.txt)"; }

mkdir -p zero others
run -n 1 -env XDG_CACHE_HOME "$PWD/zero" ./hello : \
    -n 3 -env XDG_CACHE_HOME "$PWD/others" -env FERRY_CALIBRATE recalibrate ./hello
hellos 4 "first job"
files=$(ls zero/ferry 2>/dev/null | grep -c '^machine-[0-9a-f]\{16\}$')
[ "$files" = 1 ] || err "rank 0 wrote $files cache files: $(ls -la zero/ferry 2>&1)"
[ -z "$(ls -A others)" ] || err "ranks 1-3 touched their cache: $(ls -R others)"
f=$(ls zero/ferry/machine-* | grep -v lock)
head -1 "$f" | grep -q '^ferry-machine 1$' || err "cache file format line: $(head -1 "$f")"
grep -q "^key model=.*;cpus=$(getconf _NPROCESSORS_ONLN);.*;kernel=$(uname -r)\(;asan\)\?\$" "$f" \
    || err "cache key: $(grep '^key' "$f")"
for k in memcpy_cache_gbps memcpy_mem_gbps cma_gbps wake_ns calib_ms; do
    grep -q "^$k [0-9.e+-]*\$" "$f" || err "cache file lacks $k"
done

grep -q '^busy [0-9]*$' "$f" || err "cache file lacks busy"

# Read, not rewritten (marked as measured on a quiet machine, so that the load now does not
# matter: a busy measurement is measured again when the machine is quiet, unit/test_machine).
sed -i 's/^busy .*/busy 0/' "$f"
ino=$(stat -c %i "$f")
cp "$f" saved
export XDG_CACHE_HOME="$PWD/zero"
run -n 4 ./hello
hellos 4 "second job"
[ "$(stat -c %i "$f")" = "$ino" ] && cmp -s "$f" saved || err "second job rewrote the cache file"

FERRY_CALIBRATE=recalibrate run -n 2 ./hello
hellos 2 "recalibrate"
[ "$(stat -c %i "$f")" != "$ino" ] || err "FERRY_CALIBRATE=recalibrate did not rewrite the file"
ls zero/ferry | grep -q tmp && err "a temporary file stayed: $(ls zero/ferry)"

mkdir skipped
XDG_CACHE_HOME="$PWD/skipped" FERRY_CALIBRATE=skip run -n 2 ./hello
hellos 2 "skip"
[ -z "$(ls -A skipped)" ] || err "FERRY_CALIBRATE=skip made a cache: $(ls -R skipped)"

# A corrupt file: measured over and rewritten.
echo garbage > "$f"
run -n 2 ./hello
hellos 2 "corrupt cache"
head -1 "$f" | grep -q '^ferry-machine 1$' || err "corrupt cache file not rewritten: $(head -2 "$f")"

: > plain
XDG_CACHE_HOME="$PWD/plain" run -n 3 ./hello
hellos 3 "unwritable cache"

[ $fail = 0 ] && echo "No Errors"
exit $fail
