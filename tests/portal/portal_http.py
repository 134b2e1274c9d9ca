"""A small HTTP client of the portal for the tests (standard library only).

Client keeps its own cookies (so a test can plant one), sends the CSRF token it got at sign-in,
encodes multipart forms, reads SSE streams, and fails any answer that shows a Python stack trace.
`python3 portal_http.py ready URL` exits 0 once the server answers at all.
"""
import json
import sys
import urllib.error
import urllib.request
import uuid

TIMEOUT = 120        # a hang guard only: every answer normally comes at once


class Resp:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def json(self):
        return json.loads(self.body)

    @property
    def text(self):
        return self.body.decode("utf-8", "replace")

    def __repr__(self):
        return f"<{self.status} {self.text[:300]!r}>"


class CheckFailed(Exception):
    pass


def check(cond, what):
    if not cond:
        raise CheckFailed(what)
    print(f"ok: {what}")


def no_trace(resp, where):
    text = resp.text
    for sign in ("Traceback (most recent call last)", 'File "/', "site-packages"):
        if sign in text:
            raise CheckFailed(f"{where}: the answer shows a stack trace: {text[:500]}")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k):
        return None


_opener = urllib.request.build_opener(_NoRedirect)


class Client:
    def __init__(self, base):
        self.base = base.rstrip("/")
        self.cookies = {}
        self.csrf = None
        self.set_cookies = []          # every Set-Cookie header seen, raw

    def _take_cookies(self, headers):
        for raw in headers.get_all("Set-Cookie") or []:
            self.set_cookies.append(raw)
            first, *attrs = [p.strip() for p in raw.split(";")]
            name, _, value = first.partition("=")
            gone = any(a.lower() in ("max-age=0",) or a.lower().startswith("expires=thu, 01 jan 1970")
                       for a in attrs) or value in ("", '""')
            if gone:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = value

    def request(self, method, path, json_body=None, form=None, files=None, headers=None,
                csrf=True, raw_body=None, content_type=None, stream=False):
        h = dict(headers or {})
        data = raw_body
        if json_body is not None:
            data = json.dumps(json_body).encode()
            h.setdefault("Content-Type", "application/json")
        elif form is not None or files is not None:
            data, ctype = multipart(form or {}, files or {})
            h.setdefault("Content-Type", ctype)
        if content_type:
            h["Content-Type"] = content_type
        if csrf and self.csrf and method in ("POST", "DELETE"):
            h.setdefault("X-CSRF-Token", self.csrf)
        if self.cookies:
            h["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=h)
        try:
            r = _opener.open(req, timeout=TIMEOUT)
        except urllib.error.HTTPError as e:
            r = e
        self._take_cookies(r.headers)
        if stream:
            return r
        resp = Resp(r.status if hasattr(r, "status") else r.code, r.headers, r.read())
        no_trace(resp, f"{method} {path}")
        return resp

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, **kw):
        return self.request("POST", path, **kw)

    def login(self, name, password):
        r = self.post("/api/login", json_body={"name": name, "password": password})
        if r.status == 200:
            self.csrf = r.json["csrf"]
        return r

    def submit(self, source=None, **fields):
        form = {k: str(v) for k, v in fields.items() if k != "upload"}
        if source is not None:
            form["source"] = source
        files = {}
        if "upload" in fields:
            files["upload"] = fields["upload"]
        return self.post("/api/jobs", form=form, files=files)

    def events(self, job_id, after=0):
        """Every event of the job, read from the SSE stream until its 'end'."""
        r = self.request("GET", f"/api/jobs/{job_id}/events?after={after}", stream=True)
        if r.status != 200:
            raise CheckFailed(f"events of {job_id}: {r.status} {r.read()[:300]!r}")
        out = []
        event = {}
        for line in r:
            line = line.decode().rstrip("\n")
            if line.startswith("data: "):
                event = json.loads(line[6:])
            elif line == "" and event:
                out.append(event)
                if event.get("type") == "end":
                    break
                event = {}
        r.close()
        return out


def multipart(form, files):
    """(body, content type) of a multipart/form-data request; files: name -> (filename, bytes)."""
    boundary = "ferrytest" + uuid.uuid4().hex
    parts = []
    for name, value in form.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
                     .encode() + value.encode() + b"\r\n")
    for name, (filename, data) in files.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
                     f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'
                     .encode() + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def run_checks(checks):
    """Runs each check function in order; prints FAIL and exits 1 at the first failure."""
    for fn in checks:
        print(f"--- {fn.__name__}")
        try:
            fn()
        except CheckFailed as e:
            print(f"FAIL: {e}")
            sys.exit(1)
    print("PASS")


if __name__ == "__main__" and sys.argv[1:2] == ["ready"]:
    try:
        urllib.request.urlopen(sys.argv[2] + "/api/me", timeout=5)
        sys.exit(0)
    except urllib.error.HTTPError:
        sys.exit(0)
    except OSError:
        sys.exit(1)
