#!/usr/bin/env bash
# timeout: 180
# ferry farm across test hosts (tests/hosts/fy_hosts; needs root, else it says SKIP): mpiexec
# options pass through (-launcher-exec, -hosts), tasks run on every host, and each task's record
# names the host it really ran on (the task writes its own hostname beside); a task killed by
# --task-timeout on another host leaves nothing behind there (nor does the job).
. "$FY_SRC/tests/hosts/hosts.inc"
hosts_up 2
F=$FY_BUILD/bin/ferry

for i in $(seq 1 12); do echo "sleep 0.1; hostname > host.$i"; done > tasks.txt
timeout -k 5 60 "$F" farm tasks.txt -launcher-exec "$AGENT" -hosts fyh1:2,fyh2:2 -n 4 \
    > "$T/out" 2> "$T/err" < /dev/null
expect_eq "status" 0 "$?"
python3 - > "$T/check" 2>&1 <<'PY'
import csv
rows = list(csv.DictReader(open("tasks.txt.results.csv")))
assert len(rows) == 12, len(rows)
hosts = set()
for r in rows:
    ran = open(f"host.{r['task']}").read().strip()
    assert r["status"] == "ok", r
    assert r["host"] == ran, (r["host"], ran)
    hosts.add(ran)
assert hosts == {"fyh1", "fyh2"}, hosts
PY
expect_eq "records name the hosts the tasks ran on" "" "$(cat "$T/check")"
expect_clean "after the farm"

printf 'sleep 100\nsleep 100\nsleep 100\ntrue\n' > slow.txt
timeout -k 5 60 "$F" farm slow.txt --task-timeout 1 -launcher-exec "$AGENT" -hosts fyh1:1,fyh2:3 \
    -n 4 > "$T/out" 2> "$T/err" < /dev/null
expect_eq "timeouts: status" 1 "$?"
expect_eq "timeouts recorded" "3" "$(grep -c ',timeout,SIGTERM,1,' slow.txt.results.csv)"
expect_eq "timeouts on fyh2" "3" "$(grep -c ',timeout,.*,fyh2,' slow.txt.results.csv)"
expect_clean "after the timeouts"
finish
