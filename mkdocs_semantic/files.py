"""Small jobs on files: writing one so that readers never see half of it, and hashing one."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


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


def sha256_file(path: Path) -> str:
    """The file's sha256 as hex digits, read in blocks (model files are tens of MB)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
