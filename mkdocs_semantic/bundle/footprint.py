"""What a deploy of a bundle folder carries: its files and bytes, and which of them a
deploy must upload after the build before (a path that is new or whose bytes changed)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from ..files import MiB, atomic_write, read_regular

LISTING_VERSION = 1
LISTING_MAX_BYTES = 64 * MiB
Listing = dict[str, tuple[str, int]]
"""A bundle folder's files: path (with `/`) -> (start of its sha256, bytes)."""


@dataclass(frozen=True)
class Footprint:
    files: int
    bytes: int
    changed_files: int | None = None
    """Files a deploy over the build before must upload; None when there is none to
    compare with."""
    changed_bytes: int | None = None


def listing(folder: Path) -> Listing:
    """Every regular file under `folder` (links not followed)."""
    files: Listing = {}
    if not folder.is_dir():
        return files
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            files[path.relative_to(folder).as_posix()] = (
                hashlib.sha256(data).hexdigest()[:16], len(data))
    return files


def footprint(now: Listing, before: Listing | None) -> Footprint:
    size = sum(entry[1] for entry in now.values())
    if before is None:
        return Footprint(files=len(now), bytes=size)
    changed = [entry for name, entry in now.items() if before.get(name) != entry]
    return Footprint(files=len(now), bytes=size, changed_files=len(changed),
                     changed_bytes=sum(entry[1] for entry in changed))


def load_listing(path: Path) -> Listing | None:
    """The listing saved at `path`; None when there is none or it does not read."""
    try:
        data = json.loads(read_regular(path, max_bytes=LISTING_MAX_BYTES))
    except (OSError, ValueError):  # none yet, or not ours: the next build writes one
        return None
    if not isinstance(data, dict) or data.get("version") != LISTING_VERSION \
            or not isinstance(data.get("files"), dict):
        return None
    files: Listing = {}
    for name, entry in data["files"].items():
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                and isinstance(entry[1], int)):
            return None
        files[name] = (entry[0], entry[1])
    return files


def save_listing(path: Path, files: Listing) -> None:
    body = {"version": LISTING_VERSION, "files": {k: list(v) for k, v in files.items()}}
    atomic_write(path, json.dumps(body, separators=(",", ":")).encode("utf-8"))
