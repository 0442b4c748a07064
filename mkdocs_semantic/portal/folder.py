"""The data folder `load --index DIR` writes and `serve --index DIR` reads.

    DIR/index.json                  what is loaded: the format, and each site's version
    DIR/sites/NAME/VERSION/         a copy of the site's bundle (payloads by content hash)
    DIR/sites/NAME/VERSION.usearch  the HNSW graph of that version's vectors

A site's VERSION is its manifest's hash. `index.json` is replaced by a rename, the
moment a load of a site commits: before it the site is wholly the old version, after it
wholly the new one. The version before stays on disk until the next load of that site,
so a server that opened it keeps answering.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from ..bundle.format import BundleError
from ..files import atomic_write

FORMAT = "mkdocs-semantic-index"
VERSION = 1
LIST_FILE = "index.json"
SITE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
"""A site's name: it names the site's folder, so no separator and no leading dot."""
VERSION_NAME = re.compile(r"^[0-9a-f]{16}\Z")
LOCK_FILE = ".lock"


class IndexFolderError(BundleError):
    """A data folder that is not one, is of another version, or is damaged."""


@dataclass(frozen=True)
class StoredSite:
    """One loaded site: where its bundle and graph are, and what it came from."""

    name: str
    version: str
    """Its manifest's sha256 (16 hex digits): the folder and graph are named after it."""
    source: str
    base_url: str | None
    pages: int
    chunks: int
    graph: dict
    """The HNSW graph's settings when it was built."""

    def bundle_dir(self, root: Path) -> Path:
        return root / "sites" / self.name / self.version

    def graph_path(self, root: Path) -> Path:
        return root / "sites" / self.name / f"{self.version}.usearch"


class IndexFolder:
    """A data folder: its list of loaded sites, read and committed whole."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    @property
    def list_path(self) -> Path:
        return self.root / LIST_FILE

    def exists(self) -> bool:
        return self.list_path.is_file()

    def sites(self) -> dict[str, StoredSite]:
        """The loaded sites by name (none in a folder not written yet)."""
        if not self.list_path.is_file():
            if self.root.is_dir() and any(p.name != LOCK_FILE for p in self.root.iterdir()):
                raise IndexFolderError(f"{self.root} is not an index folder (it has no "
                                       f"{LIST_FILE}): give an empty or new folder")
            return {}
        try:
            data = json.loads(self.list_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise IndexFolderError(f"{self.list_path} cannot be read ({exc}): load the "
                                   "sites into a new folder") from exc
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise IndexFolderError(f"{self.list_path} is not an index list: give the "
                                   "folder `load --index` wrote")
        if data.get("version") != VERSION:
            raise IndexFolderError(
                f"{self.root} was written by another version of mkdocs-semantic (index "
                f"version {data.get('version')!r}, this one reads {VERSION}): load the "
                "sites into a new folder")
        try:
            sites = {name: StoredSite(name=name, **entry)
                     for name, entry in data["sites"].items()}
        except (KeyError, TypeError, AttributeError) as exc:
            raise IndexFolderError(f"{self.list_path} is damaged ({exc}): load the sites "
                                   "into a new folder") from exc
        for site in sites.values():  # they name folders: none may lead elsewhere
            if not (isinstance(site.name, str) and SITE_NAME.match(site.name)
                    and isinstance(site.version, str) and VERSION_NAME.match(site.version)):
                raise IndexFolderError(
                    f"{self.list_path} lists a site {site.name!r} of version "
                    f"{site.version!r}, which are no site name and version this program "
                    "writes (edited by hand?): load the sites into a new folder")
        return sites

    def commit(self, sites: dict[str, StoredSite]) -> None:
        """Make `sites` what the folder holds, in one rename."""
        entries = {name: {k: v for k, v in asdict(site).items() if k != "name"}
                   for name, site in sorted(sites.items())}
        data = {"format": FORMAT, "version": VERSION, "sites": entries}
        atomic_write(self.list_path, (json.dumps(data, indent=1) + "\n").encode())

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Held while a load writes: a second load of the same folder waits."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / LOCK_FILE, "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def site_dir(self, name: str) -> Path:
        return self.root / "sites" / name

    def sweep(self, name: str, keep: set[str]) -> None:
        """Remove what a site's folder holds besides the versions in `keep` (a killed
        load's unfinished copy, versions older than the one before)."""
        folder = self.site_dir(name)
        if not folder.is_dir():
            return
        for entry in folder.iterdir():
            version = entry.name.removesuffix(".usearch")
            if version in keep:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
