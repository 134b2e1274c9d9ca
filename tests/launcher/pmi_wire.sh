#!/bin/sh
# timeout: 60
# Unit tests of the PMI wire format and key-value store (src/pmi/pmi_wire.c, pmi_kvs.c), built
# with AddressSanitizer when the compiler has it.
. "$FY_SRC/tests/launcher/lib.inc"

san="-fsanitize=address,undefined -fno-omit-frame-pointer"
echo 'int main(void){return 0;}' >"$T/probe.c"
cc $san -o "$T/probe" "$T/probe.c" 2>/dev/null && "$T/probe" || san=""
cc -O1 -g -Wall -Wextra -Werror $san -I"$FY_SRC/src/pmi" -o "$T/pmi_wire_test" \
    "$FY_SRC/tests/launcher/pmi_wire_test.c" "$FY_SRC/src/pmi/pmi_wire.c" \
    "$FY_SRC/src/pmi/pmi_kvs.c" || { echo "FAIL: cannot build pmi_wire_test" >&2; exit 1; }
out=$(timeout 30 "$T/pmi_wire_test" 2>&1)
rc=$?
expect_eq "status of pmi_wire_test" 0 "$rc"
expect_eq "output of pmi_wire_test" "No Errors" "$out"
finish
