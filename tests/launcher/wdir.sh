#!/bin/sh
# timeout: 60
# -wdir: ranks start in the given directory; a relative program is found there.
. "$FY_SRC/tests/launcher/lib.inc"

mkdir -p "$T/work dir"
run -wdir "$T/work dir" -n 2 pwd
expect_eq "working directory" "$T/work dir" "$(sort -u "$T/out")"

printf '#!/bin/sh\necho relative-ok\n' >"$T/work dir/prog.sh"
chmod +x "$T/work dir/prog.sh"
run -wdir "$T/work dir" -n 2 ./prog.sh
expect_eq "relative program in -wdir" "relative-ok" "$(sort -u "$T/out")"

run -wdir "$T/missing" -n 2 pwd
expect_eq "status of a missing -wdir" 1 "$RC"
grep -q "missing" "$T/err" || fail "no message naming the missing directory"
finish
