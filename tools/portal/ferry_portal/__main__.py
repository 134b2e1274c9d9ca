"""`python -m ferry_portal [--config F] [--listen H:P] [--state DIR] [--demo]` serves the portal;
`python -m ferry_portal adduser NAME [--admin] [--password-stdin] [--config F] [--state DIR]`
makes an account. `ferry portal ARGS` runs this with the venv's python."""
import argparse
import logging
import sqlite3
import sys

from . import admin, auth, config, db, validate
from .errors import ApiError

PROG = "ferry portal"


def _common(p):
    p.add_argument("--config", metavar="FILE", help="a TOML file (docs/ferry.md lists its keys)")
    p.add_argument("--state", metavar="DIR",
                   help="where portal.db and the jobs live (default ~/.local/state/ferry-portal)")


def parse(argv):
    if argv[:1] == ["adduser"]:
        p = argparse.ArgumentParser(prog=PROG + " adduser",
                                    description="Make an account; its password is generated and "
                                                "printed once, or read from stdin.")
        p.add_argument("name")
        p.add_argument("--admin", action="store_true", help="the admin role (default: user)")
        p.add_argument("--password-stdin", action="store_true",
                       help="read the password from stdin's first line")
        _common(p)
        args = p.parse_args(argv[1:])
        args.command = "adduser"
        return args
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Serve the Ferry portal: write, run and watch MPI programs from a browser. "
                    f"`{PROG} adduser NAME [--admin] [--password-stdin]` makes an account.")
    _common(p)
    p.add_argument("--listen", metavar="HOST:PORT",
                   help="address to serve on (default 127.0.0.1:8470; a non-loopback address "
                        "needs public = true in the config)")
    p.add_argument("--demo", action="store_true",
                   help="make (or reset) the account 'demo' with a fresh password, printed")
    args = p.parse_args(argv)
    args.command = "serve"
    return args


def open_state(cfg):
    """The state directory made (private to us) and its database opened with every table."""
    state = cfg.state_dir
    state.mkdir(parents=True, exist_ok=True, mode=0o700)
    conn = db.connect(state / "portal.db")
    from . import jobstore
    jobstore.init_schema(conn)
    return conn


def set_user(conn, name, password, role):
    """Makes the account, or resets its password and role when it exists."""
    row = db.user_by_name(conn, name)
    if row is None:
        admin.create_user(conn, name, password, role)
    else:
        db.set_password(conn, row["id"], auth.hash_password(password))
        db.write(conn, "UPDATE users SET role=? WHERE id=?", (role, row["id"]))


def adduser(args, cfg):
    name = validate.user_name(args.name)
    if args.password_stdin:
        password = validate.password(sys.stdin.readline().rstrip("\r\n"))
    else:
        password = auth.new_password()
    conn = open_state(cfg)
    if db.user_by_name(conn, name) is not None:
        raise ApiError(400, f"name: {name!r} exists already", "name")
    admin.create_user(conn, name, password, "admin" if args.admin else "user")
    print(f"{PROG}: made {'admin' if args.admin else 'user'} {name}")
    if not args.password_stdin:
        print(f"password: {password}")
    return 0


def serve(args, cfg):
    host, port = cfg.host, cfg.port
    if not config.is_loopback(host) and not cfg.public:
        raise config.ConfigError(
            f"listen: {cfg.listen!r} is not a loopback address; a portal reachable from other "
            "machines runs code strangers send: set public = true in the config to mean it "
            "(and put it behind https with secure_cookies = true)")
    import uvicorn
    from . import app as app_module
    conn = open_state(cfg)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    if args.demo:
        password = auth.new_password()
        set_user(conn, "demo", password, "user")
    application = app_module.build(cfg, conn)
    shown = f"[{host}]" if ":" in host else host
    print(f"{PROG}: serving on http://{shown}:{port}/  (state in {cfg.state_dir})", flush=True)
    if args.demo:
        print(f"{PROG}: demo account: name demo, password {password}", flush=True)
    # X-Forwarded-For only from the configured proxy: uvicorn would otherwise take it from any
    # local client as the client's address, and a process on this machine could dodge the
    # sign-in throttle; without a proxy, the connection's own address counts.
    proxy = cfg.trusted_proxy
    uvicorn.run(application, host=host, port=port, log_level="warning", access_log=False,
                timeout_graceful_shutdown=5, server_header=False, proxy_headers=bool(proxy),
                forwarded_allow_ips=proxy or None)
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse(argv)
    try:
        overrides = {"state": args.state}
        if args.command == "serve":
            overrides["listen"] = args.listen
        cfg = config.load(args.config, overrides)
        return adduser(args, cfg) if args.command == "adduser" else serve(args, cfg)
    except config.ConfigError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    except ApiError as e:
        print(f"{PROG}: {e.message}", file=sys.stderr)
        return 2
    except Exception as e:
        # The runner's JobError (its setup refused) carries the message to show.
        if type(e).__name__ != "JobError":
            raise
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    except (OSError, sqlite3.Error) as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
