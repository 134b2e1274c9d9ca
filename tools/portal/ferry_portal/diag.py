"""gcc's diagnostics (`file:line:col: error|warning|note: message`) into the records the
editor pins to lines: {file, line, col, severity, message}.

Paths are made relative to the job's directory inside the sandbox (/job), so the user
sees `main.c`, never a path of the machine."""

import re

_LINE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<col>\d+):)?\s*"
                   r"(?P<sev>fatal error|error|warning|note):\s*(?P<msg>.*)$")


def parse(text, root="/job"):
    out = []
    prefix = root.rstrip("/") + "/"
    for line in text.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        path = m.group("file").strip()
        if path.startswith(prefix):
            path = path[len(prefix):]
        elif path.startswith("./"):
            path = path[2:]
        sev = m.group("sev")
        out.append({
            "file": path,
            "line": int(m.group("line")),
            "col": int(m.group("col") or 0),
            "severity": "error" if sev == "fatal error" else sev,
            "message": m.group("msg"),
        })
    return out
