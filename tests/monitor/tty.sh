#!/usr/bin/env bash
# timeout: 200
# mpiexec --monitor on a terminal (a pseudo-terminal here): while nothing else is written, each
# block replaces the one before (the cursor goes up its lines and clears below); a line a rank
# writes in between is never erased: the next block follows it. Without a terminal the blocks
# only follow each other (the other tests read them so).
set -u
. "$FY_SRC/tests/monitor/common.inc"
build hang

# Runs the job on a pseudo-terminal; rank 0 prints a line when the test asks (src/hang.c:
# GO_FILE.say), then the test releases it.
python3 - "$B/bin/mpiexec" "$PWD" > tty.out 2>&1 <<'PY'
import fcntl, os, pty, select, struct, subprocess, sys, termios
mpiexec, d = sys.argv[1], sys.argv[2]
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
env = dict(os.environ, TERM="xterm")
p = subprocess.Popen([mpiexec, "--monitor", "-n", "2", d + "/hang", d + "/go"], stdin=subprocess.DEVNULL,
                     stdout=slave, stderr=slave, env=env)
os.close(slave)
out = b""
def read_for(cond, tries):
    global out
    for _ in range(tries):
        r, _, _ = select.select([master], [], [], 0.1)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return False
            if not chunk:
                return False
            out += chunk
        if cond():
            return True
    return False
# Three blocks drawn with nothing in between: the second and third replace the one before.
read_for(lambda: out.count(b"ferry monitor: hang") >= 3, 1200)
open(d + "/go.say", "w").close()
read_for(lambda: b"said by rank 0" in out, 600)
n = out.count(b"ferry monitor: hang")
read_for(lambda: out.count(b"ferry monitor: hang") >= n + 2, 1200)
open(d + "/go", "w").close()
read_for(lambda: False, 600)
p.wait(timeout=60)
sys.stdout.write("status %d\n" % p.returncode)
sys.stdout.write(out.decode(errors="replace"))
PY
grep -q '^status 0' tty.out || err "the job on a terminal: $(head -3 tty.out)"
up=$(grep -c $'\033\\[4F\033\\[J' tty.out)
[ "$up" -ge 2 ] || err "blocks were not redrawn in place (cursor up 4 lines, clear): $up times: $(cat -v tty.out | head -20)"
# The rank's line stays: the block after it is not drawn over it.
awk '/said by rank 0/ { s = 1; next } s && /ferry monitor: hang/ { print; exit }' tty.out | grep -q $'\033' &&
    err "the block after the rank's line erased it: $(cat -v tty.out | grep -A2 'said by rank 0')"
grep -q 'said by rank 0' tty.out || err "the rank's line is missing"
echo "blocks redrawn in place: $up"
no_leftovers
[ $fail = 0 ] && echo "PASS"
exit $fail
