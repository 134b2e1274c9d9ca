"""The portal's configuration: a TOML file (every key optional) plus command-line overrides.

load() checks every key and value against the table below and raises ConfigError naming the key
and the value it refused, so a typo in the file stops the portal at start with a clear line.
"""
import dataclasses
import ipaddress
import os
import pathlib
import tomllib


class ConfigError(Exception):
    """A key unknown, or a value of the wrong type or range; the message names both."""


@dataclasses.dataclass(frozen=True)
class Limits:
    concurrent_jobs: int = 2
    max_ranks: int = 8
    max_time: int = 300
    default_time: int = 60
    max_output: int = 4 * 1024 * 1024
    max_upload: int = 16 * 1024 * 1024
    max_unpacked: int = 64 * 1024 * 1024
    max_members: int = 2000
    max_queued: int = 20
    running_jobs: int = 0          # jobs running at once, all users; 0: the CPUs (at least 2)


@dataclasses.dataclass(frozen=True)
class Sandbox:
    uid_base: int = 61000
    uid_count: int = 32
    memory: int = 1024 * 1024 * 1024
    pids: int = 256
    file_size: int = 256 * 1024 * 1024
    cpu_quota: float = 2.0


@dataclasses.dataclass(frozen=True)
class Hosts:
    names: tuple = ()
    launcher_exec: str = ""


@dataclasses.dataclass(frozen=True)
class Slurm:
    enabled: bool = False
    partition: str = ""


@dataclasses.dataclass(frozen=True)
class Config:
    listen: str = "127.0.0.1:8470"
    state: str = "~/.local/state/ferry-portal"
    ferry_prefix: str = ""
    secure_cookies: bool = False
    public: bool = False
    # The address of a reverse proxy in front of the portal: its X-Forwarded-For names the
    # client (the sign-in throttle counts per client). Empty: the connection's own address.
    trusted_proxy: str = ""
    limits: Limits = Limits()
    sandbox: Sandbox = Sandbox()
    hosts: Hosts = Hosts()
    slurm: Slurm = Slurm()

    @property
    def host(self):
        return parse_listen(self.listen)[0]

    @property
    def port(self):
        return parse_listen(self.listen)[1]

    @property
    def state_dir(self):
        return pathlib.Path(os.path.expanduser(self.state))


_TABLES = {"limits": Limits, "sandbox": Sandbox, "hosts": Hosts, "slurm": Slurm}


def parse_listen(text):
    """'HOST:PORT' (IPv6 as '[::1]:PORT') -> (host, port); ConfigError when malformed."""
    if not isinstance(text, str) or ":" not in text:
        raise ConfigError(f"listen: {text!r} is not HOST:PORT")
    host, _, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"listen: {text!r} is not HOST:PORT with a port in 1..65535")
    return host, int(port)


def is_loopback(host):
    """True for 'localhost' and loopback addresses; any other name counts as public."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check(key, value, default):
    """The value when it has the default's type (ints for floats allowed), else ConfigError."""
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    elif isinstance(default, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
        value = float(value) if ok else value
    elif isinstance(default, tuple):
        ok = isinstance(value, list) and all(isinstance(v, str) and v for v in value)
        value = tuple(value) if ok else value
    else:
        ok = isinstance(value, str)
    if not ok:
        kind = {bool: "true or false", int: "a whole number >= 0", float: "a number > 0",
                tuple: "a list of non-empty strings", str: "a string"}[type(default)]
        raise ConfigError(f"{key}: {value!r} is not {kind}")
    return value


def _fill(cls, table, prefix):
    defaults = cls()
    values = {}
    for key, value in table.items():
        if key not in {f.name for f in dataclasses.fields(cls)}:
            raise ConfigError(f"{prefix}{key}: unknown key (value {value!r})")
        if key in _TABLES and not prefix:
            if not isinstance(value, dict):
                raise ConfigError(f"{key}: {value!r} is not a table [{key}]")
            values[key] = _fill(_TABLES[key], value, key + ".")
        else:
            values[key] = _check(prefix + key, value, getattr(defaults, key))
    return cls(**values)


def load(path=None, overrides=None):
    """The Config from the TOML file at path (None: defaults) with overrides (listen, state, ...)
    applied on top; checks ranges that link keys together."""
    table = {}
    if path is not None:
        try:
            with open(path, "rb") as f:
                table = tomllib.load(f)
        except OSError as e:
            raise ConfigError(f"--config: cannot read {path}: {e.strerror}") from None
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"--config: {path} is not TOML: {e}") from None
    for key, value in (overrides or {}).items():
        if value is not None:
            table[key] = value
    cfg = _fill(Config, table, "")
    parse_listen(cfg.listen)
    if cfg.trusted_proxy:
        try:
            ipaddress.ip_address(cfg.trusted_proxy)
        except ValueError:
            raise ConfigError(f"trusted_proxy: {cfg.trusted_proxy!r} is not an IP address") from None
    lim = cfg.limits
    for key in ("concurrent_jobs", "max_ranks", "max_time", "default_time", "max_upload",
                "max_queued", "max_members"):
        if getattr(lim, key) < 1:
            raise ConfigError(f"limits.{key}: {getattr(lim, key)} must be at least 1")
    if lim.default_time > lim.max_time:
        raise ConfigError(f"limits.default_time: {lim.default_time} is above limits.max_time "
                          f"({lim.max_time})")
    if cfg.sandbox.uid_count < 1:
        raise ConfigError(f"sandbox.uid_count: {cfg.sandbox.uid_count} must be at least 1")
    return cfg
