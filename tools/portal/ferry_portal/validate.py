"""Checks of every form field and API parameter: each failure is an ApiError(400) whose message
names the field and says what was wrong and what is accepted."""
import re
import shlex

from .errors import ApiError

NAME_RE = re.compile(r"[a-z][a-z0-9_.-]{0,31}")
JOB_ID_RE = re.compile(r"[0-9a-f]{16}")
FILE_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,99}")
MAX_ARGS_CHARS = 4096
MAX_ARGS = 256
MAX_SOURCE = 1024 * 1024
MIN_PASSWORD = 8
MAX_PASSWORD = 1024


def bad(field, message):
    return ApiError(400, f"{field}: {message}", field)


def text(value, field, max_len, required=True):
    if value is None or value == "":
        if required:
            raise bad(field, "is required")
        return ""
    if not isinstance(value, str):
        raise bad(field, "must be a string")
    if len(value) > max_len:
        raise bad(field, f"is {len(value)} characters long; at most {max_len} are accepted")
    if "\x00" in value:
        raise bad(field, "must not contain a NUL character")
    return value


def integer(value, field, lo, hi, default=None):
    """An int in lo..hi from a form string, a JSON number or None (then default)."""
    if value is None or value == "":
        if default is not None:
            return default
        raise bad(field, f"is required (a whole number from {lo} to {hi})")
    if isinstance(value, bool):
        raise bad(field, f"{value!r} is not a whole number")
    if isinstance(value, str):
        if not re.fullmatch(r"[+-]?[0-9]{1,12}", value.strip()):
            raise bad(field, f"{value[:40]!r} is not a whole number (from {lo} to {hi})")
        value = int(value)
    if not isinstance(value, int):
        raise bad(field, f"{value!r} is not a whole number")
    if not lo <= value <= hi:
        raise bad(field, f"{value} is out of range: from {lo} to {hi}")
    return value


def flag(value, field):
    if value in (None, "", "0", "false", False):
        return False
    if value in ("1", "true", "on", True):
        return True
    raise bad(field, f"{str(value)[:40]!r} is not 1 or 0")


def user_name(value, field="name"):
    value = text(value, field, 32)
    if not NAME_RE.fullmatch(value):
        raise bad(field, f"{value!r} is not a user name: 1 to 32 of a-z 0-9 _ . -, "
                         "starting with a letter")
    return value


def password(value, field="password"):
    value = text(value, field, MAX_PASSWORD)
    if len(value) < MIN_PASSWORD:
        raise bad(field, f"is too short: at least {MIN_PASSWORD} characters")
    return value


def role(value, field="role"):
    if value in (None, ""):
        return "user"
    if value not in ("user", "admin"):
        raise bad(field, f"{str(value)[:40]!r} is not a role: user or admin")
    return value


def job_id(value):
    """A job id from a URL; malformed ids get the same 404 as unknown ones."""
    if not isinstance(value, str) or not JOB_ID_RE.fullmatch(value):
        raise ApiError(404, "no such job")
    return value


def relpath(value, field="path"):
    """A path relative to a job's output directory: no absolute path, no '..', no empty or
    hidden-dot segments, no backslash or NUL."""
    if not value or len(value) > 1024:
        raise bad(field, "must be a relative path of 1 to 1024 characters")
    if value.startswith("/") or "\\" in value or "\x00" in value:
        raise bad(field, f"{value[:80]!r} is not a relative path inside the job's directory")
    for part in value.split("/"):
        if part in ("", ".", ".."):
            raise bad(field, f"{value[:80]!r} is not a relative path inside the job's directory")
    return value


def file_name(value, field):
    value = text(value, field, 100)
    if not FILE_NAME_RE.fullmatch(value):
        raise bad(field, f"{value!r} is not a plain file name (letters, digits, _ . + -)")
    return value


def job_args(value, field="args"):
    value = text(value, field, MAX_ARGS_CHARS, required=False)
    try:
        args = shlex.split(value)
    except ValueError as e:
        raise bad(field, f"cannot be split like a shell line: {e}") from None
    if len(args) > MAX_ARGS:
        raise bad(field, f"has {len(args)} arguments; at most {MAX_ARGS} are accepted")
    return args


def job_form(form, cfg, backends):
    """The checked fields of POST /api/jobs as a dict of JobSpec keys plus source and upload.
    backends: the names this portal offers; cfg.limits bounds the numbers."""
    lim = cfg.limits
    out = {}
    backend = form.get("backend") or "local"
    if not isinstance(backend, str) or backend not in backends:
        raise bad("backend", f"{str(backend)[:40]!r} is not offered here; choose one of "
                             f"{', '.join(backends)}")
    out["backend"] = backend
    out["ranks"] = integer(form.get("ranks"), "ranks", 1, lim.max_ranks, default=1)
    out["time_limit"] = integer(form.get("time_limit"), "time_limit", 1, lim.max_time,
                                default=lim.default_time)
    hosts_text = text(form.get("hosts"), "hosts", 4096, required=False)
    hosts = [h.strip() for h in hosts_text.split(",") if h.strip()]
    for h in hosts:
        if h not in cfg.hosts.names:
            known = ", ".join(cfg.hosts.names) or "none are configured"
            raise bad("hosts", f"{h[:64]!r} is not a configured host ({known})")
    if hosts and backend != "hosts":
        raise bad("hosts", f"hosts are chosen only with backend 'hosts', not {backend!r}")
    out["hosts"] = hosts
    out["args"] = job_args(form.get("args"))
    main = form.get("main")
    out["main"] = file_name(main, "main") if main else None
    out["trace"] = flag(form.get("trace"), "trace")
    out["profile"] = flag(form.get("profile"), "profile")
    source = form.get("source")
    if source is not None and not isinstance(source, str):
        raise bad("source", "is a file: send the program's text here, or the file in the "
                  "field 'upload'")
    upload = form.get("upload")
    has_upload = upload is not None and not isinstance(upload, str) and upload.filename
    if isinstance(upload, str) and upload:
        raise bad("upload", "must be a file, not a text field")
    if source and has_upload:
        raise bad("source", "give either the source text or an uploaded file, not both")
    if not source and not has_upload:
        raise bad("source", "no program: write the source or upload a .c file or an archive")
    out["source"] = text(source, "source", MAX_SOURCE) if source else None
    if has_upload:
        file_name(upload.filename.rsplit("/", 1)[-1], "upload")
    out["upload"] = upload if has_upload else None
    return out
