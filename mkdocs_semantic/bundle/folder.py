"""The bundle folder belongs to the bundle: what in it this package wrote, and the check
that it never writes into (or deletes from) a folder that holds anything else."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..constants import CATALOG_COPY
from .format import MANIFEST, BundleError
from .names import CATALOG_NAME, PayloadError, check_name

PAYLOAD_FOLDERS = ("pages", "facets", "index", "fragments", "text", "vectors", "lexical", "table",
                   "model", "vocabulary", "pieces", "words", "parts")
API_ENTRY = "semantic.js"
"""The stable entry point of the browser client's JavaScript API (written by pages/theme.py)."""
DROP_IN = "ui.js"
"""The one-line drop-in for a site no plugin built (pages/drop_in.py)."""
CLIENT_FOLDER = "client"
"""Where pages/theme.py copies the browser client, one `<hash>/` folder per client build."""
OLD_PAYLOAD = re.compile(r"^(index|chunks|text|lexical|model|tokenizer)\.[0-9a-f]{12}\.\w+$")
_TEMPORARY = re.compile(r"^\.[\w.]+-\w+$")
_CLIENT_HASH = re.compile(r"^[0-9a-f]{12}$")
_OWN_MANIFEST = re.compile(r'^\{\s*"format":\s*\d+,\s*"generator":\s*"mkdocs-semantic-search ')
_OWN_API_ENTRY = re.compile(r'export \* from "\./client/[0-9a-f]{12}/semantic\.js";\n\Z|'
                            r"/\* mkdocs-semantic-search: the browser client's API \(client "
                            r"[0-9a-f]{12}\) \*/\n")
_OWN_CATALOG = re.compile(r'^\{"model":\{"id":')
_OWN_DROP_IN = re.compile(r"// mkdocs-semantic-search: the one-line drop-in ")
OWN_PLAIN_NAMES = {MANIFEST: _OWN_MANIFEST.search, API_ENTRY: _OWN_API_ENTRY.match,
                   CATALOG_COPY: _OWN_CATALOG.search, DROP_IN: _OWN_DROP_IN.match}
"""The bundle's files whose names do not say they are ours: how each one's start does."""


def site_folder(value: str) -> str:
    """The bundle folder option as the site-relative POSIX path MkDocs writes files to
    (`./semantic/` and `semantic\\` are `semantic`); "" for the site root."""
    return "/".join(p for p in PurePosixPath(value.replace("\\", "/")).parts
                    if p not in (".", "/"))


def bundle_dir_problem(value: str) -> str | None:
    """Why `value` cannot be the bundle folder inside a site, or None when it can.

    The bundle folder must be a folder of its own: the writer replaces what it wrote
    there before, so it must never share a folder with pages or the site root.
    """
    path = PurePosixPath(value.replace("\\", "/"))
    if path.is_absolute() or Path(value).is_absolute() or ".." in path.parts:
        return "a relative folder inside the site, such as 'semantic'"
    if not site_folder(value):
        return "a folder of its own inside the site, not the site root; e.g. 'semantic'"
    return None


def foreign_entries(out: Path) -> list[str]:
    """Entries in the bundle folder `out` that this package did not write (relative paths).

    The writer deletes and replaces only what this lists as its own, and refuses to
    write into a folder that holds anything else.
    """
    if not out.exists():
        return []
    if not out.is_dir():
        return ["."]
    foreign = []
    for entry in sorted(out.iterdir()):
        plain_dir = entry.is_dir() and not entry.is_symlink()
        if entry.name == CLIENT_FOLDER and plain_dir:
            foreign += [f"{CLIENT_FOLDER}/{child.name}" for child in sorted(entry.iterdir())
                        if not _is_client_copy(child)]
        elif entry.name in PAYLOAD_FOLDERS and plain_dir:
            foreign += [f"{entry.name}/{child.name}" for child in sorted(entry.iterdir())
                        if not _is_own_payload(entry.name, child)]
        elif not (entry.is_file() and not entry.is_symlink() and _is_own_file(entry)):
            foreign.append(entry.name + ("/" if entry.is_dir() else ""))
    return foreign


def claim_bundle_dir(out: Path) -> None:
    """Fail, naming what is there, unless `out` is missing or holds only bundle files."""
    foreign = foreign_entries(out)
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5
                                           else "")
        raise BundleError(
            f"{out} holds files this plugin did not write ({shown}); it writes its bundle "
            "only into a folder of its own, so nothing was written or deleted. Choose a "
            "bundle folder that no page or other plugin uses, or remove those files"
        )


def _is_own_file(path: Path) -> bool:
    """Ours by name; the plain names (a PWA has a manifest.json too) also by content."""
    name = path.name
    if name in OWN_PLAIN_NAMES:
        return OWN_PLAIN_NAMES[name](_head(path)) is not None
    # a write killed half way leaves atomic_write's temporary file behind
    return any(p.match(name) for p in (CATALOG_NAME, OLD_PAYLOAD, _TEMPORARY))


def _is_own_payload(folder: str, path: Path) -> bool:
    if not path.is_file() or path.is_symlink():
        return False
    try:
        check_name(f"{folder}/{path.name}")
        return True
    except PayloadError:
        return _TEMPORARY.match(path.name) is not None


def _is_client_copy(path: Path) -> bool:
    return (path.is_dir() and not path.is_symlink()
            and _CLIENT_HASH.match(path.name) is not None)


def _head(path: Path, size: int = 512) -> str:
    try:
        with path.open("rb") as fh:
            return fh.read(size).decode("utf-8", errors="replace")
    except OSError:
        return ""


@dataclass(frozen=True)
class InstalledClient:
    """What the browser client adds to a built site, beside the bundle's own files."""

    files: int
    bytes: int


def installed_client(bundle_root: Path) -> InstalledClient | None:
    """The client a build copied into `bundle_root` (`client/<hash>/` and the
    `semantic.js` entry point); None when there is none, as in a downloaded bundle."""
    found = [p for p in (bundle_root / CLIENT_FOLDER).rglob("*") if p.is_file()]
    found += [entry for entry in (bundle_root / API_ENTRY, bundle_root / DROP_IN)
              if entry.is_file()]
    if not found:
        return None
    return InstalledClient(files=len(found), bytes=sum(p.stat().st_size for p in found))


