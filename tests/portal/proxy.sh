#!/usr/bin/env bash
# timeout: 180
# The sign-in throttle's client address behind a reverse proxy: with `trusted_proxy` set to the
# proxy's address (here 127.0.0.1, where the test connects from), X-Forwarded-For names the
# client, so 25 failures spread over 25 forwarded clients throttle none of them, while 20 from
# one forwarded client throttle that client only (another forwarded client still signs in). A
# trusted_proxy that is not an IP address is refused at start.
. "$(dirname "${BASH_SOURCE[0]}")/portal.inc"
fy_portal_setup

printf 'trusted_proxy = "proxy.example"\n' >bad.toml
if "$FY_BUILD/bin/ferry" portal --config bad.toml --state bad-state >bad.out 2>&1; then
    fy_portal_fail "a trusted_proxy that is no address was accepted"
fi
grep -q "trusted_proxy: 'proxy.example' is not an IP address" bad.out ||
    fy_portal_fail "no clear message for a bad trusted_proxy: $(cat bad.out)"
echo "ok: a trusted_proxy that is no address is refused, naming it"

printf 'trusted_proxy = "127.0.0.1"\n' >proxy.toml
fy_portal_user ann "ann-password-1"
fy_portal_start --config proxy.toml
python3 - "$FY_PORTAL_URL" <<'PY' || fy_portal_fail "the throttle behind a proxy"
import os, sys
sys.path.insert(0, os.path.join(os.environ["FY_SRC"], "tests", "portal"))
from portal_http import Client

url, fails = sys.argv[1], 0
def check(cond, what):
    global fails
    print(("ok: " if cond else "FAIL: ") + what)
    fails += not cond

def login(name, password, client):
    return Client(url).post("/api/login", json_body={"name": name, "password": password},
                            headers={"X-Forwarded-For": client})

codes = [login(f"ghost{i}", "nothing", f"198.51.100.{i + 1}").status for i in range(25)]
check(codes == [401] * 25, f"25 failures from 25 forwarded clients: none throttled ({set(codes)})")
codes = [login(f"spook{i}", "nothing", "203.0.113.9").status for i in range(40)]
n = codes.index(429) if 429 in codes else None
check(n is not None and n <= 20, f"failures from one forwarded client: 429 after {n}")
check(login("ann", "ann-password-1", "203.0.113.9").status == 429,
      "that client is refused even with the right password")
check(login("ann", "ann-password-1", "203.0.113.10").status == 200,
      "another forwarded client signs in")
sys.exit(1 if fails else 0)
PY
fy_portal_stop
echo "PASS"
