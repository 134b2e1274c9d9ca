#!/usr/bin/env bash
# timeout: 300
# `ferry portal` on the command line: --help; a clear message when the venv is missing; a bad
# config key or value and a bad --listen refused naming them; a non-loopback address refused
# without `public = true`; `adduser` prints a generated password that signs in, or takes one
# from stdin; `--demo` prints a fresh password that signs in (and a second start replaces it);
# and no fixed password anywhere in the portal's package, its installer or the Makefile.
. "$(dirname "${BASH_SOURCE[0]}")/portal.inc"
fy_portal_setup

expect_fail() { # WHAT STATUS PATTERN CMD...: CMD exits STATUS and says PATTERN on stderr
    local what=$1 status=$2 pattern=$3
    shift 3
    "$@" >out.txt 2>err.txt
    local rc=$?
    [ "$rc" -eq "$status" ] || { cat out.txt err.txt; fy_portal_fail "$what: exit $rc, not $status"; }
    grep -q -- "$pattern" err.txt || { cat err.txt; fy_portal_fail "$what: no '$pattern' in the message"; }
    echo "ok: $what: $(head -1 err.txt)"
}

"$FY_FERRY" portal --help >help.txt || fy_portal_fail "ferry portal --help"
grep -q -- "--listen HOST:PORT" help.txt && grep -q "adduser" help.txt && grep -q -- "--demo" help.txt ||
    { cat help.txt; fy_portal_fail "ferry portal --help lacks --listen, --demo or adduser"; }
"$FY_FERRY" --help | grep -q "ferry portal" || fy_portal_fail "ferry --help does not list portal"
echo "ok: ferry portal --help"

FERRY_PORTAL_VENV=$PWD/no-venv expect_fail "no venv" 1 "scripts/install-portal.sh" "$FY_FERRY" portal

printf 'colour = "red"\n' >bad-key.toml
expect_fail "an unknown key" 2 "colour: unknown key" "$FY_FERRY" portal --config bad-key.toml --state "$PWD/state"
printf '[limits]\nmax_ranks = "many"\n' >bad-value.toml
expect_fail "a bad value" 2 "limits.max_ranks: 'many' is not a whole number" \
    "$FY_FERRY" portal --config bad-value.toml --state "$PWD/state"
printf '[limits]\ndefault_time = 500\nmax_time = 100\n' >bad-range.toml
expect_fail "default_time above max_time" 2 "limits.default_time: 500 is above" \
    "$FY_FERRY" portal --config bad-range.toml --state "$PWD/state"
printf 'listen = [1, 2\n' >broken.toml
expect_fail "a file that is not TOML" 2 "is not TOML" "$FY_FERRY" portal --config broken.toml --state "$PWD/state"
expect_fail "a missing config file" 2 "cannot read" "$FY_FERRY" portal --config nothing.toml --state "$PWD/state"
expect_fail "--listen without a port" 2 "listen: 'localhost' is not HOST:PORT" \
    "$FY_FERRY" portal --listen localhost --state "$PWD/state"
expect_fail "--listen with port 99999" 2 "port in 1..65535" \
    "$FY_FERRY" portal --listen 127.0.0.1:99999 --state "$PWD/state"
port=$(fy_free_port)
expect_fail "a public address without public = true" 2 "set public = true" \
    "$FY_FERRY" portal --listen "0.0.0.0:$port" --state "$PWD/state"
printf 'listen = "0.0.0.0:%s"\n' "$port" >public-key-only.toml
expect_fail "a public address from the config without public = true" 2 "set public = true" \
    "$FY_FERRY" portal --config public-key-only.toml --state "$PWD/state"

"$FY_FERRY" portal adduser carol --state "$PWD/state" >adduser.txt || fy_portal_fail "adduser carol"
carol_pw=$(sed -n 's/^password: //p' adduser.txt)
[ "${#carol_pw}" -ge 12 ] || { cat adduser.txt; fy_portal_fail "adduser printed no password"; }
echo "ok: adduser carol printed a generated password"
expect_fail "adduser of an existing name" 2 "exists already" "$FY_FERRY" portal adduser carol --state "$PWD/state"
expect_fail "adduser of a bad name" 2 "name: 'Carol Smith' is not a user name" \
    "$FY_FERRY" portal adduser "Carol Smith" --state "$PWD/state"
echo short | expect_fail "adduser with a short password" 2 "password: is too short" \
    "$FY_FERRY" portal adduser dave --password-stdin --state "$PWD/state"
fy_portal_user dave "dave-password-1" --admin

login() { # NAME PASSWORD EXPECTED_STATUS
    python3 - "$FY_PORTAL_URL" "$@" <<'PY'
import os, sys
sys.path.insert(0, os.environ["FY_PORTAL_DIR"])
from portal_http import Client
url, name, pw, want = sys.argv[1:5]
r = Client(url).login(name, pw)
print(f"sign-in {name}: {r.status}")
sys.exit(0 if r.status == int(want) else 1)
PY
}
export FY_PORTAL_DIR

fy_portal_start --demo
demo_pw=$(sed -n 's/.*demo account: name demo, password //p' server.log)
[ "${#demo_pw}" -ge 12 ] || { cat server.log; fy_portal_fail "--demo printed no password"; }
login demo "$demo_pw" 200 || fy_portal_fail "the demo password does not sign in"
login carol "$carol_pw" 200 || fy_portal_fail "adduser's generated password does not sign in"
login dave "dave-password-1" 200 || fy_portal_fail "adduser --password-stdin's password does not sign in"
fy_portal_stop

fy_portal_start --demo
demo_pw2=$(sed -n 's/.*demo account: name demo, password //p' server.log)
[ -n "$demo_pw2" ] && [ "$demo_pw2" != "$demo_pw" ] || fy_portal_fail "a second --demo printed the same password"
login demo "$demo_pw2" 200 || fy_portal_fail "the second demo password does not sign in"
login demo "$demo_pw" 401 || fy_portal_fail "the first demo password still signs in"
fy_portal_stop
echo "ok: --demo prints a fresh password that signs in; the previous one is dead"

# No fixed credentials: no string literal is assigned or passed as a password in the portal's
# code, its installer or the Makefile (the tests' own passwords live in tests/, not here).
if grep -rnEi "(password|passwd|pw)[a-z_]*\s*(=|:)\s*[\"'][^\"']+[\"']|--password[= ][^ -]" \
    "$FY_SRC/tools/portal" "$FY_SRC/scripts/install-portal.sh" "$FY_SRC/Makefile" \
    --include='*.py' --include='*.sh' --include='*.js' --include='*.html' --include='*.toml' \
    --include=Makefile --exclude-dir=node_modules >fixed.txt; then
    cat fixed.txt
    fy_portal_fail "a fixed password in the portal's files"
fi
echo "ok: no fixed password in tools/portal, scripts/install-portal.sh, Makefile"
echo "PASS"
