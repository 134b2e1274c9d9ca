#!/usr/bin/env bash
# The trace tools at the issue's scale: 8 ranks x 1,000,000 events of raw trace (made by
# tests/trace/fyt_gen.py --big, without running a job) converted by ferry-otf2 and drawn into a
# page by ferry view (and, with PERFETTO=1, its trace-event JSON). Prints the best and median of
# REPS runs of each, and the sizes. A benchmark: it prints numbers, it never fails on them.
#
#     bench/trace_big.sh [BUILD]            # BUILD defaults to build
#     RANKS=8 EVENTS=1000000 REPS=3 PERFETTO=1 bench/trace_big.sh build
#
# Then the same size recorded for real: bench/trace_events.c (RANKS ranks, EVENTS events each,
# MPI_Sendrecv around a ring) run without and with `mpiexec --trace`; it prints the job's wall
# time both ways, MPI_Finalize's time (the last chunks, the sync, the profile), ferry-otf2's and
# ferry view's, and, when the Playwright venv of tests/view exists, the time the page takes to
# open in Chromium (tests/view/view_check.py open).
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
RANKS=${RANKS:-8}
EVENTS=${EVENTS:-1000000}
REPS=${REPS:-3}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/ferry-trace-big.XXXXXX")
trap 'rm -rf "$DIR"' EXIT

python3 "$SRC/tests/trace/fyt_gen.py" "$DIR/t" --ranks "$RANKS" --big "$EVENTS" >/dev/null
echo "raw trace: $RANKS ranks x $EVENTS events, $(du -sm "$DIR/t/ferry" | cut -f1) MB"

# times NAME CMD...: REPS runs, best and median wall seconds.
times() {
    local name=$1
    shift
    local all=()
    for _ in $(seq "$REPS"); do
        local a b
        a=$(date +%s.%N)
        "$@" >/dev/null 2>&1
        b=$(date +%s.%N)
        all+=("$(echo "$b - $a" | bc)")
    done
    printf '%s\n' "${all[@]}" | sort -n | awk -v n="$name" '{ v[NR] = $1 }
        END { printf "%-28s best %.2f s, median %.2f s (%d runs)\n", n, v[1], v[int((NR + 1) / 2)], NR }'
}

if [ -x "$BUILD/bin/ferry-otf2" ]; then
    times "ferry-otf2" "$BUILD/bin/ferry-otf2" "$DIR/t"
    echo "OTF2 archive: $(du -sm "$DIR/t/traces" | cut -f1) MB"
else
    echo "ferry-otf2: not built (no libotf2)"
fi
times "ferry view" "$BUILD/bin/ferry" view "$DIR/t" -o "$DIR/view.html"
echo "page: $(( $(stat -c %s "$DIR/view.html") / 1000000 )) MB"
if [ "${PERFETTO:-0}" = 1 ]; then
    times "ferry view --perfetto" "$BUILD/bin/ferry" view "$DIR/t" -o "$DIR/view.html" --perfetto "$DIR/p.json"
    echo "trace-event JSON: $(( $(stat -c %s "$DIR/p.json") / 1000000 )) MB"
fi

# --- the same size recorded by a real job ---
"$BUILD/bin/mpicc" -O2 -I"$SRC/bench" -o "$DIR/trace_events" "$SRC/bench/trace_events.c"
wall() { # label cmd...: one run, its wall seconds and what it printed about MPI_Finalize
    local label=$1 a b out
    shift
    a=$(date +%s.%N)
    out=$("$@" 2>/dev/null)
    b=$(date +%s.%N)
    printf '%-34s %6.2f s   %s\n' "$label" "$(echo "$b - $a" | bc)" "$(echo "$out" | grep -m1 Finalize)"
}
for _ in $(seq "$REPS"); do
    rm -rf "$DIR/real"
    wall "job without --trace" "$BUILD/bin/mpiexec" -n "$RANKS" "$DIR/trace_events" "$EVENTS"
    wall "job with --trace (+ ferry-otf2)" "$BUILD/bin/mpiexec" --trace "$DIR/real" -n "$RANKS" \
        "$DIR/trace_events" "$EVENTS"
done
echo "raw: $(du -sm "$DIR/real/ferry" | cut -f1) MB, OTF2: $(du -sm "$DIR/real/traces" | cut -f1) MB"
times "ferry-otf2 (recorded trace)" "$BUILD/bin/ferry-otf2" "$DIR/real"
times "ferry view (recorded trace)" "$BUILD/bin/ferry" view "$DIR/real" -o "$DIR/real.html"
PW=${XDG_CACHE_HOME:-$HOME/.cache}/ferry-playwright-venv/bin/python
if [ -x "$PW" ] && [ -x /usr/bin/chromium ]; then
    for _ in $(seq "$REPS"); do "$PW" "$SRC/tests/view/view_check.py" open "$DIR/real.html" | grep "^open"; done
else
    echo "page opening: not measured (no Playwright venv; tests/view makes it)"
fi
