#!/usr/bin/env bash
# bench/ferry_run.sh [BUILD_DIR] [REPS] - what `ferry run` costs (issue 15, item 1). A benchmark:
# it prints tables, nothing passes or fails on them.
#
#   second run   `ferry run -n 4 examples/cpi.c` with the binary cached, against `mpiexec -n 4`
#                of that same cached binary (the target: at most 10 ms more), interleaved run by
#                run so that drift hits both alike; also at -n 1, where the launch is cheapest
#                and ferry's share the largest
#   own cost     the same lookup with mpiexec replaced by /bin/true (a prefix of copies), against
#                /bin/true alone: ferry's own share without the launch's noise
#   first run    `ferry run -n 4 cpi.c` into an empty cache, against doing it by hand: `mpicc -o
#                cpi cpi.c` then `mpiexec -n 4 ./cpi` (target: at most 1.2x); and the compile
#                alone through the mpicc shell script and through the compiler directly with
#                Ferry's flags (what ferry run does)
#   compilers    cpi.c compiled and linked against libmpi by gcc -O0, gcc -O2 and, when
#                installed, tcc (the in-process compiler the issue suggests for -O0 first runs)
# Each row: median and minimum over REPS (default 30) runs, in ms. CPU: from lscpu.
set -u
B=$(cd "${1:-build}" && pwd) || { echo "usage: $0 [BUILD_DIR] [REPS]" >&2; exit 2; }
REPS=${2:-30}
SRC=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$B/bin/ferry" ] || { echo "no $B/bin/ferry: build first" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ferry-run-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
cp "$SRC/examples/cpi.c" "$W/"
cd "$W" || exit 1
export PATH="$B/bin:$PATH"
unset FERRY_CC FERRY_CXX FERRY_RUN_ARCH

echo "CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) CPUs; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "compiler: $(cc --version | head -n 1); tcc: $(command -v tcc >/dev/null && tcc -v 2>&1 | head -n 1 || echo 'not installed')"
echo "reps: $REPS (median and min in ms)"
echo

python3 - "$B" "$REPS" <<'PY'
import os, statistics, subprocess, sys, tempfile, time, glob, shutil
B, reps = sys.argv[1], int(sys.argv[2])
inc, lib = f"-I{B}/include", [f"-L{B}/lib", f"-Wl,-rpath,{B}/lib", "-lmpi", "-lm"]

def run(cmds, env=None):
    """Runs the commands one after the other; the time of all of them, in seconds."""
    t = time.perf_counter()
    for c in cmds:
        r = subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        if r.returncode != 0:
            sys.exit(f"failed: {' '.join(c)}: {r.stderr.decode()[:500]}")
    return time.perf_counter() - t

def table(title, rows):
    print(title)
    print(f"  {'what':<58} {'median':>8} {'min':>8}")
    for name, ts in rows:
        print(f"  {name:<58} {statistics.median(ts)*1e3:8.1f} {min(ts)*1e3:8.1f}")
    print()

def measure(variants, setup=None):
    """variants: [(name, fn returning seconds)], interleaved rep by rep."""
    res = {n: [] for n, _ in variants}
    for _ in range(reps):
        for n, fn in variants:
            res[n].append(fn())
    return [(n, res[n]) for n, _ in variants]

env = dict(os.environ, FERRY_CACHE=os.path.abspath("cache"))
run([["ferry", "run", "-n", "1", "cpi.c"]], env)               # fills the cache
exe = glob.glob("cache/run/*/*/cpi")[0]
rows = []
for n in ("4", "1"):
    rows += measure([
        (f"mpiexec -n {n} <cached binary>", lambda n=n: run([["mpiexec", "-n", n, exe]], env)),
        (f"ferry run -n {n} cpi.c (cached)", lambda n=n: run([["ferry", "run", "-n", n, "cpi.c"]], env)),
    ])
table("second run: ferry run against mpiexec of the cached binary", rows)
for n in ("4", "1"):
    a = dict(rows)[f"mpiexec -n {n} <cached binary>"]
    b = dict(rows)[f"ferry run -n {n} cpi.c (cached)"]
    print(f"  overhead at -n {n}: median {(statistics.median(b)-statistics.median(a))*1e3:+.1f} ms, "
          f"min {(min(b)-min(a))*1e3:+.1f} ms")
print()

# ferry's own share, without mpiexec's noise: a prefix whose bin/mpiexec is /bin/true (ferry
# finds mpiexec beside itself, so the ferry binary is copied there; include/ and lib/ are the
# build's). `true` alone against `ferry run` execing `true` after its lookup.
fake = os.path.abspath("fakeprefix")
os.makedirs(fake + "/bin")
shutil.copy(B + "/bin/ferry", fake + "/bin/ferry")
shutil.copy("/bin/true", fake + "/bin/mpiexec")
os.symlink(B + "/include", fake + "/include")
os.symlink(B + "/lib", fake + "/lib")
run([[fake + "/bin/ferry", "run", "cpi.c"]], env)              # fills the cache for that prefix
table("ferry run's own cost: its mpiexec replaced by /bin/true", measure([
    ("/bin/true", lambda: run([["/bin/true"]], env)),
    ("ferry run -n 4 cpi.c (cached; then execs 'mpiexec' = true)",
     lambda: run([[fake + "/bin/ferry", "run", "-n", "4", "cpi.c"]], env)),
]))

def first_ferry():
    d = tempfile.mkdtemp(dir=".")
    t = run([["ferry", "run", "-n", "4", "cpi.c"]], dict(os.environ, FERRY_CACHE=os.path.abspath(d)))
    shutil.rmtree(d)
    return t
rows = measure([
    ("mpicc -o cpi cpi.c; mpiexec -n 4 ./cpi  (by hand)",
     lambda: run([["mpicc", "-o", "cpi_hand", "cpi.c"], ["mpiexec", "-n", "4", "./cpi_hand"]])),
    ("ferry run -n 4 cpi.c  (empty cache)", first_ferry),
    ("mpicc -o cpi cpi.c  (compile only, shell wrapper)",
     lambda: run([["mpicc", "-o", "cpi_hand", "cpi.c"]])),
    ("cc -I.. cpi.c -L.. -lmpi  (compile only, direct)",
     lambda: run([["cc", inc, "-o", "cpi_direct", "cpi.c"] + lib])),
])
table("first run: ferry run into an empty cache against mpicc + mpiexec by hand", rows)
a, b = dict(rows)["mpicc -o cpi cpi.c; mpiexec -n 4 ./cpi  (by hand)"], dict(rows)["ferry run -n 4 cpi.c  (empty cache)"]
print(f"  ratio ferry/by hand: median {statistics.median(b)/statistics.median(a):.2f}x, min {min(b)/min(a):.2f}x")
print()

variants = [
    ("gcc -O0 cpi.c -lmpi", lambda: run([["gcc", "-O0", inc, "-o", "c0", "cpi.c"] + lib])),
    ("gcc -O2 cpi.c -lmpi", lambda: run([["gcc", "-O2", inc, "-o", "c2", "cpi.c"] + lib])),
    ("gcc -O0 -c cpi.c (no link)", lambda: run([["gcc", "-O0", inc, "-c", "-o", "c0.o", "cpi.c"]])),
]
if shutil.which("tcc"):
    variants += [
        ("tcc cpi.c -lmpi", lambda: run([["tcc", inc, "-o", "ct", "cpi.c"] + lib])),
        ("tcc -c cpi.c (no link)", lambda: run([["tcc", inc, "-c", "-o", "ct.o", "cpi.c"]])),
    ]
table("compilers: cpi.c, compile and link", measure(variants))
PY
