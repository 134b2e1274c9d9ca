"""The checks of api_auth.sh: python3 api_auth.py URL (users root/admin and bob/user exist)."""
import http.client
import sys
import urllib.parse

from portal_http import Client, check, run_checks

URL = sys.argv[1]
GOOD_C = "#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); }\n"


def signed_out():
    c = Client(URL)
    r = c.get("/api/me")
    check(r.status == 401 and r.json["error"] == "not signed in", f"/api/me signed out: 401 ({r})")
    r = c.get("/api/jobs")
    check(r.status == 401, "/api/jobs signed out: 401")
    r = c.get("/api/nothing-here")
    check(r.status == 404 and "error" in r.json, "an unknown route: 404 with a JSON error")
    r = c.request("DELETE", "/api/me")
    check(r.status == 405 and "error" in r.json, "a wrong method: 405 with a JSON error")


def sign_in_and_out():
    c = Client(URL)
    r = c.login("bob", "wrong-password")
    check(r.status == 401 and r.json["error"] == "wrong name or password", "a wrong password: 401")
    r = c.login("nobody", "wrong-password")
    check(r.status == 401 and r.json["error"] == "wrong name or password",
          "an unknown name: the same 401 as a wrong password")
    check(not c.cookies, "no cookie for a failed sign-in")
    r = c.login("bob", "bob-password-1")
    check(r.status == 200 and r.json["user"] == {"name": "bob", "role": "user"} and r.json["csrf"],
          "bob signs in: his name, role and a CSRF token")
    me = c.get("/api/me")
    check(me.status == 200 and me.json["csrf"] == c.csrf and me.json["backends"] == ["local"]
          and me.json["limits"]["max_ranks"] == 8, "/api/me: the user, the same token, limits")
    cookie = dict(c.cookies)
    r = c.post("/api/logout")
    check(r.status == 200, "sign-out")
    check(c.get("/api/me").status == 401, "signed out: /api/me 401")
    old = Client(URL)
    old.cookies = cookie
    check(old.get("/api/me").status == 401, "the signed-out session's cookie is dead")
    r = Client(URL).post("/api/login", raw_body=b"name=bob&password=bob-password-1",
                         content_type="application/x-www-form-urlencoded")
    check(r.status == 415, "sign-in with a form body (what another site could post): 415")
    r = Client(URL).post("/api/login", raw_body=b"{not json", content_type="application/json")
    check(r.status == 400 and "JSON" in r.json["error"], "sign-in with broken JSON: 400")
    r = Client(URL).post("/api/login", json_body={"password": "x"})
    check(r.status == 400 and r.json["field"] == "name" and "name" in r.json["error"],
          "sign-in without a name: 400 naming the field")


def roles():
    bob = Client(URL)
    bob.login("bob", "bob-password-1")
    for method, path in (("GET", "/api/admin/users"), ("POST", "/api/admin/users"),
                         ("GET", "/api/admin/queue")):
        body = {"name": "eve", "password": "eve-password-1"} if method == "POST" else None
        r = bob.request(method, path, json_body=body)
        check(r.status == 403, f"{method} {path} as a user: 403 ({r})")
    r = bob.get("/api/jobs?all=1")
    check(r.status == 403, "everyone's jobs as a user: 403")
    root = Client(URL)
    check(root.login("root", "root-password-1").json["user"]["role"] == "admin", "root is admin")
    r = root.get("/api/admin/users")
    check(r.status == 200 and {u["name"] for u in r.json["users"]} >= {"root", "bob"}
          and all("pw_hash" not in u for u in r.json["users"]), "the admin lists users, no hashes")
    check(root.get("/api/admin/queue").status == 200, "the admin sees the queue")
    check(root.get("/api/jobs?all=1").status == 200, "the admin lists everyone's jobs")
    for body, field in (({"name": "Bad Name", "password": "carol-password-1"}, "name"),
                        ({"name": "carol", "password": "short"}, "password"),
                        ({"name": "carol", "password": "carol-password-1", "role": "god"}, "role"),
                        ({"name": "bob", "password": "carol-password-1"}, "name")):
        r = root.post("/api/admin/users", json_body=body)
        check(r.status == 400 and r.json.get("field") == field and field in r.json["error"],
              f"admin makes a user with a bad {field}: 400 {r.json['error']!r}")
    r = root.post("/api/admin/users", json_body={"name": "carol", "password": "carol-password-1"})
    check(r.status == 201, "the admin makes carol")
    check(Client(URL).login("carol", "carol-password-1").status == 200, "carol signs in")


def job_fields():
    c = Client(URL)
    c.login("bob", "bob-password-1")
    cases = [
        ({"ranks": "0"}, "ranks"), ({"ranks": "999"}, "ranks"), ({"ranks": "x"}, "ranks"),
        ({"ranks": "1.5"}, "ranks"),
        ({"time_limit": "0"}, "time_limit"), ({"time_limit": "99999"}, "time_limit"),
        ({"time_limit": "soon"}, "time_limit"),
        ({"backend": "gpu"}, "backend"), ({"backend": "slurm"}, "backend"),
        ({"hosts": "node9"}, "hosts"),
        ({"args": "x" * 5000}, "args"), ({"args": "'unbalanced"}, "args"),
        ({"main": "../evil.c"}, "main"), ({"trace": "maybe"}, "trace"),
    ]
    for fields, field in cases:
        r = c.submit(GOOD_C, **fields)
        check(r.status == 400 and r.json.get("field") == field and field in r.json["error"],
              f"POST /api/jobs {str(fields)[:40]}: 400 naming {field}: {r.json.get('error', '')[:90]!r}")
    r = c.submit(None, ranks="2")
    check(r.status == 400 and r.json.get("field") == "source", f"no source: 400 {r.json['error']!r}")
    r = c.submit(GOOD_C, upload=("main.c", GOOD_C.encode()))
    check(r.status == 400 and r.json.get("field") == "source" and "not both" in r.json["error"],
          f"both source and upload: 400 {r.json['error']!r}")
    r = c.submit(None, upload=("main.c", b"x" * 200000))
    check(r.status == 413 and "limit" in r.json["error"], f"an upload over max_upload: 413 ({r})")
    # Chunked, so no Content-Length tells the size: the limit is met while reading.
    u = urllib.parse.urlsplit(URL)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
    head = (b'--xyz\r\nContent-Disposition: form-data; name="upload"; filename="big.c"\r\n'
            b"Content-Type: application/octet-stream\r\n\r\n")
    chunks = [head] + [b"x" * 16384] * 4096          # 64 MiB offered, far above the limit
    conn.putrequest("POST", "/api/jobs")
    conn.putheader("Cookie", "; ".join(f"{k}={v}" for k, v in c.cookies.items()))
    conn.putheader("X-CSRF-Token", c.csrf)
    conn.putheader("Content-Type", "multipart/form-data; boundary=xyz")
    conn.putheader("Transfer-Encoding", "chunked")
    conn.endheaders()
    sent = 0
    status = None
    try:
        for chunk in chunks:
            conn.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            sent += len(chunk)
    except OSError:
        pass            # the server answered and closed: the rest was never read
    try:
        resp = conn.getresponse()
        status = resp.status
        body = resp.read()
    except OSError as e:
        body = str(e).encode()
    check(status == 413 and b"limit" in body,
          f"a chunked body over the limit: 413 ({status} {body[:100]!r})")
    check(sent < 32 * 1024 * 1024, f"the server stopped reading early: {sent} of 64 MiB sent")


def internal_error():
    c = Client(URL)
    c.login("bob", "bob-password-1")
    r = c.get("/api/fault")
    check(r.status == 500 and r.json == {"error": "internal error in the portal; its log has "
                                                  "the details"},
          f"a failing route: a generic 500 ({r})")
    check("RuntimeError" not in r.text and "fault asked" not in r.text,
          "the 500 names neither the exception nor its message")


def throttle():
    c = Client(URL)
    for i in range(5):
        r = c.login("carol", f"wrong-{i}")
        check(r.status == 401, f"carol's wrong password {i + 1}: 401")
    r = c.login("carol", "carol-password-1")
    check(r.status == 429 and int(r.headers["Retry-After"]) > 0,
          f"carol's 6th try, right password: 429 with Retry-After ({r})")
    check(Client(URL).login("bob", "bob-password-1").status == 200,
          "bob from the same address still signs in (only carol's name is throttled)")
    # Per address: failures under ever new names, until the address itself is throttled; each
    # with a new X-Forwarded-For, which the portal must not take for the client's address.
    for i in range(40):
        r = c.post("/api/login", json_body={"name": f"ghost{i}", "password": "nothing"},
                   headers={"X-Forwarded-For": f"198.51.100.{i + 1}"})
        if r.status == 429:
            break
    check(r.status == 429 and i < 25, f"many names failing from one address: 429 after {i} more")
    r = Client(URL).login("bob", "bob-password-1")
    check(r.status == 429, "then bob from that address is refused too, for a while")


run_checks([signed_out, sign_in_and_out, roles, job_fields, internal_error, throttle])
