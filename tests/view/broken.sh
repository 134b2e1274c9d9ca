#!/usr/bin/env bash
# timeout: 180
# A view page whose data block is spoiled (not base64; base64 but not zlib; inflating to another
# size than the meta says) shows a clear message naming what is wrong, marks itself done with
# dataset.ready = "error" (so screenshots and tests do not wait for ever), draws no empty view
# and throws nothing uncaught. And a page whose host name, program name and note hold markup
# (`</script>`, `<img onerror>`, `<!--`) shows them as text, runs nothing, requests nothing.
. "$(dirname "${BASH_SOURCE[0]}")/pw_env.inc"
fy_view_setup

for what in base64 zlib size; do
    python3 "$FY_VIEW_DIR/make_view.py" ring "broken-$what.html" --break "$what" ||
        fy_view_fail "make_view.py ring --break $what"
    fy_view_run "data block broken: $what" "$FY_VIEW_PY" "$FY_VIEW_DIR/view_check.py" \
        broken "broken-$what.html" "$what"
done
python3 "$FY_VIEW_DIR/make_view.py" ring hostile.html --hostile || fy_view_fail "make_view.py ring --hostile"
fy_view_run "markup in names and notes" "$FY_VIEW_PY" "$FY_VIEW_DIR/view_check.py" hostile hostile.html
echo "PASS"
