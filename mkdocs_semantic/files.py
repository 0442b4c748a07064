"""Small jobs on files: writing one so that readers never see half of it, reading one
only when it is a regular file of bounded size, and hashing one."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

MiB = 1 << 20


class UnsafeFileError(OSError):
    """A file that is no regular file (a link we must not follow, a FIFO, a device) or is
    larger than its reader's bound; the message names the file and what it is."""


def atomic_write(path: Path, data: bytes, *, shared: bool = False) -> None:
    """Write `data` to a temporary file beside `path`, then rename it into place.

    `shared` gives the file the usual permissions (0666 less the umask) instead of
    mkstemp's 0600: site files must be readable by a web server running as another user.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        if shared:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_unlisted(path: Path, data: bytes) -> None:
    """Write `data` to `path` in place, for a file whose name no published listing names
    yet and whose bytes the name fixes: readers cannot meet it half written, and a file
    cut short by a crash has the wrong size, which the next build and every reader
    catch. Many times faster than `atomic_write` for thousands of small files."""
    with open(path, "wb") as fh:
        fh.write(data)


def holds(path: Path, data: bytes) -> bool:
    """Whether `path` is a regular file (not a link) of exactly the bytes `data`: a file
    of the right size but other bytes (damaged on disk) is written again."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size != len(data):
            return False
        return path.read_bytes() == data
    except OSError:
        return False


def sha256_file(path: Path) -> str:
    """The file's sha256 as hex digits, read in blocks (model files are tens of MB)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


@contextmanager
def open_regular(path: Path, *, max_bytes: int, follow_links: bool = False) -> Iterator[BinaryIO]:
    """Open `path` for reading only if it is a regular file of at most `max_bytes`.

    Without `follow_links` a symbolic link is refused, so a link planted in a cache cannot
    make a build read elsewhere. A FIFO is refused without waiting for a writer, and a
    device such as /dev/zero before a byte is read.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_links:
            raise UnsafeFileError(f"{path} is a symbolic link, which is not followed") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFileError(f"{path} is not a regular file ({_kind(info.st_mode)})")
        if info.st_size > max_bytes:
            raise UnsafeFileError(f"{path} is {info.st_size:,} bytes, more than the "
                                  f"{max_bytes:,} allowed")
        os.set_blocking(fd, True)
        fh = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with fh:
        yield fh


def read_regular(path: Path, *, max_bytes: int, follow_links: bool = False) -> bytes:
    """The bytes of `path`, read as `open_regular` allows (never more than `max_bytes`)."""
    with open_regular(path, max_bytes=max_bytes, follow_links=follow_links) as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:  # grew while being read
        raise UnsafeFileError(f"{path} grew past the {max_bytes:,} bytes allowed while read")
    return data


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a file"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
