"""Unpacking what a user uploads into a job's src/ directory, member by member.

tarfile and zipfile are used only to read headers and stream members; nothing is
extracted by them (their extractall follows the archive's word). Every name is checked
(no absolute path, no `..`, only regular files and directories), every file is created
with O_EXCL|O_NOFOLLOW below src/, and the byte caps are counted while writing, so an
archive whose headers lie about sizes is stopped at the cap, not after."""

import os
import posixpath
import stat
import tarfile
import zipfile
import io
import zlib

from .jobspec import JobError

CHUNK = 1 << 16


def _clean_name(name):
    """The member's path as a tuple of parts, or a JobError saying why not."""
    raw = name
    name = name.replace("\\", "/")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise JobError("upload", f"archive member '{raw}': absolute paths are not allowed")
    parts = []
    for p in name.split("/"):
        if p in ("", "."):
            continue
        if p == "..":
            raise JobError("upload", f"archive member '{raw}': '..' is not allowed")
        if "\0" in p or len(p) > 255:
            raise JobError("upload", f"archive member '{raw}': bad name")
        parts.append(p)
    if not parts:
        return None
    if len(parts) > 32:
        raise JobError("upload", f"archive member '{raw}': nested too deep")
    return parts


class _Writer:
    """Creates directories and files below `root`, counting bytes against the caps."""

    def __init__(self, root, max_total, max_members):
        self.root = root
        self.max_total = max_total
        self.max_members = max_members
        self.total = 0
        self.members = 0
        self.files = []

    def _count_member(self, name):
        self.members += 1
        if self.members > self.max_members:
            raise JobError("upload", f"archive has more than {self.max_members} members "
                           f"(at '{name}')")

    def _dir_fd(self, parts, name):
        """An fd of the directory parts (made if missing), opened without following links."""
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            for p in parts:
                try:
                    os.mkdir(p, 0o755, dir_fd=fd)
                except FileExistsError:
                    pass
                nfd = os.open(p, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                os.close(fd)
                fd = nfd
        except OSError as e:
            os.close(fd)
            raise JobError("upload", f"archive member '{name}': {e.strerror}")
        return fd

    def mkdir(self, name):
        self._count_member(name)
        parts = _clean_name(name)
        if parts:
            os.close(self._dir_fd(parts, name))

    def write(self, name, stream):
        self._count_member(name)
        parts = _clean_name(name)
        if not parts:
            raise JobError("upload", f"archive member '{name}': empty name")
        dfd = self._dir_fd(parts[:-1], name)
        try:
            try:
                fd = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                             0o644, dir_fd=dfd)
            except FileExistsError:
                raise JobError("upload", f"archive member '{name}': appears twice")
            except OSError as e:
                raise JobError("upload", f"archive member '{name}': {e.strerror}")
        finally:
            os.close(dfd)
        with os.fdopen(fd, "wb") as out:
            while True:
                chunk = stream.read(CHUNK)
                if not chunk:
                    break
                self.total += len(chunk)
                if self.total > self.max_total:
                    raise JobError("upload", f"archive member '{name}': the unpacked size "
                                   f"passes the limit of {self.max_total} bytes")
                out.write(chunk)
        self.files.append("/".join(parts))


def _tar(data, w):
    try:
        tf = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")
    except (tarfile.TarError, EOFError, OSError) as e:
        raise JobError("upload", "not a readable tar archive (plain, gzip, bzip2 or xz)")
    with tf:
        try:
            for m in tf:
                if m.isdir():
                    w.mkdir(m.name)
                elif m.isreg():
                    f = tf.extractfile(m)
                    w.write(m.name, f)
                elif m.issym() or m.islnk():
                    raise JobError("upload", f"archive member '{m.name}': links are not allowed")
                else:
                    raise JobError("upload", f"archive member '{m.name}': only regular files "
                                   "and directories are allowed (device, fifo or other)")
        except (tarfile.TarError, EOFError, zlib.error, OSError) as e:
            if isinstance(e, JobError):
                raise
            raise JobError("upload", f"the tar archive is damaged ({e})")


def _zip(data, w):
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError) as e:
        raise JobError("upload", f"not a readable zip archive ({e})")
    with zf:
        for info in zf.infolist():
            # The Unix mode, when the zip was made on Unix; without file type bits
            # (zips from other systems, or none set) the member is a plain file.
            ftype = stat.S_IFMT((info.external_attr >> 16) & 0xFFFF)
            if ftype == stat.S_IFLNK:
                raise JobError("upload", f"archive member '{info.filename}': links are not allowed")
            if ftype not in (0, stat.S_IFREG, stat.S_IFDIR):
                raise JobError("upload", f"archive member '{info.filename}': only regular files "
                               "and directories are allowed")
            if info.is_dir():
                w.mkdir(info.filename)
                continue
            try:
                with zf.open(info) as f:
                    w.write(info.filename, f)
            except (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError) as e:
                raise JobError("upload", f"archive member '{info.filename}': cannot be read ({e})")


def kind_of(filename):
    low = filename.lower()
    for ext, kind in ((".tar.gz", "tar"), (".tgz", "tar"), (".tar", "tar"), (".zip", "zip"),
                      (".c", "c")):
        if low.endswith(ext):
            return kind
    return None


def unpack(filename, data, root, max_total, max_members):
    """Writes the upload into `root` (an empty directory): a .c file as itself, an archive
    member by member. Returns the list of files written (relative paths)."""
    kind = kind_of(filename)
    base = posixpath.basename(filename.replace("\\", "/"))
    if kind is None:
        raise JobError("upload", f"'{base}': upload a .c file or a .tar, .tar.gz, .tgz or "
                       ".zip archive")
    w = _Writer(root, max_total, max_members)
    if kind == "c":
        if len(data) > max_total:
            raise JobError("upload", f"'{base}' is larger than {max_total} bytes")
        w.write(base, io.BytesIO(data))
    elif kind == "tar":
        _tar(data, w)
    else:
        _zip(data, w)
    if not w.files:
        raise JobError("upload", f"'{base}' holds no files")
    return w.files
