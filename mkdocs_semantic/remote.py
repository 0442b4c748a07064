"""Sources: a local site or bundle directory, or the URL of a deployed site.

A URL's bundle is downloaded into a user cache directory keyed by the URL:
the manifest every time (it is small and never cached long), a payload file only
when the cache lacks a copy with the manifest's sha256. Payload names are
content-hashed, so a redeployed site costs only its changed files.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from . import __version__
from .bundle import MANIFEST, BundleError, Manifest, find_bundle_dir

log = logging.getLogger("mkdocs_semantic")
CACHE_ENV = "MKDOCS_SEMANTIC_CACHE"
TIMEOUT = 30.0
USER_AGENT = f"mkdocs-semantic-search/{__version__}"
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]*$")
_BLOCK = 1 << 20


class RemoteError(BundleError):
    """A URL source cannot be used; the message names the URL and what to do."""


class _NotFound(RemoteError):
    pass


@dataclass(frozen=True)
class Source:
    """Where a bundle is, and what it belongs to."""

    bundle_dir: Path
    site_dir: Path | None = None
    """The local site directory holding the bundle (served at / by `serve`)."""
    base_url: str | None = None
    """The deployed site's URL, for absolute links."""


def is_url(text: str) -> bool:
    return urllib.parse.urlsplit(text).scheme in ("http", "https")


def open_source(source: str, *, cache_dir: Path | None = None,
                timeout: float = TIMEOUT) -> Source:
    """Resolve a site directory, a bundle directory or an http(s) URL to a local bundle."""
    if is_url(source):
        bundle_dir, base_url = fetch_bundle(source, cache_dir=cache_dir, timeout=timeout)
        return Source(bundle_dir=bundle_dir, base_url=base_url)
    path = Path(source)
    bundle_dir = find_bundle_dir(path)
    site_dir = path if bundle_dir.resolve() != path.resolve() else None
    return Source(bundle_dir=bundle_dir, site_dir=site_dir)


def user_cache_dir() -> Path:
    """$MKDOCS_SEMANTIC_CACHE, else the platform's user cache folder."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = home / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache")
    return base / "mkdocs-semantic"


def cache_folder(url: str, root: Path) -> Path:
    """One folder per URL: a readable slug plus a hash of the whole URL."""
    parts = urllib.parse.urlsplit(url)
    slug = re.sub(r"[^A-Za-z0-9]+", "-", parts.netloc + parts.path).strip("-")[:48]
    return root / f"{slug}-{hashlib.sha256(url.encode()).hexdigest()[:12]}"


def manifest_candidates(url: str) -> list[str]:
    """A site URL holds `semantic/manifest.json`; a bundle URL holds `manifest.json`."""
    if urllib.parse.urlsplit(url).path.endswith(".json"):
        return [url]
    base = url if url.endswith("/") else url + "/"
    return [base + "semantic/" + MANIFEST, base + MANIFEST]


def fetch_bundle(url: str, *, cache_dir: Path | None = None,
                 timeout: float = TIMEOUT) -> tuple[Path, str]:
    """Download (or refresh) the bundle of a deployed site; returns (folder, site URL)."""
    root = cache_dir or user_cache_dir()
    target = cache_folder(url, root)
    try:
        manifest_url, raw = _find_manifest(url, timeout)
    except RemoteError as exc:
        if isinstance(exc, _NotFound) or not (target / MANIFEST).is_file():
            raise
        log.warning("%s; using the copy downloaded before, in %s", exc, target)
        return target, _read_base(target)
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise RemoteError(f"{manifest_url} is not JSON ({exc}): is this a site built with "
                          "the semantic plugin?") from exc
    manifest = Manifest.from_json(data, manifest_url)  # refuses unknown formats by name
    target.mkdir(parents=True, exist_ok=True)
    for entry in manifest.files.values():
        if not _SAFE_NAME.match(entry.name):
            raise RemoteError(f"{manifest_url} lists an unsafe file name {entry.name!r}")
        local = target / entry.name
        if not _matches(local, entry.bytes, entry.sha256):
            _download(urllib.parse.urljoin(manifest_url, entry.name), local, entry.bytes,
                      entry.sha256, timeout)
    base_url = urllib.parse.urljoin(manifest_url, "../")
    _write_atomic(target / "source.json", json.dumps({"url": url, "manifest": manifest_url,
                                                      "base_url": base_url}).encode())
    _write_atomic(target / MANIFEST, raw)
    keep = {e.name for e in manifest.files.values()} | {MANIFEST, "source.json"}
    for old in target.iterdir():
        if old.name not in keep and not old.name.startswith(".tmp-"):
            old.unlink(missing_ok=True)
    return target, base_url


def _read_base(target: Path) -> str:
    try:
        return json.loads((target / "source.json").read_text(encoding="utf-8"))["base_url"]
    except (OSError, ValueError, KeyError):
        return ""


def _find_manifest(url: str, timeout: float) -> tuple[str, bytes]:
    candidates = manifest_candidates(url)
    for candidate in candidates:
        try:
            return candidate, _get(candidate, timeout, no_cache=True)
        except _NotFound:
            continue
    raise _NotFound(f"no search bundle at {url} (tried {', '.join(candidates)}): check the "
                    "URL, and that the site was built with plugins: [semantic]")


def _open(url: str, timeout: float, *, no_cache: bool = False):
    headers = {"User-Agent": USER_AGENT}
    if no_cache:
        headers["Cache-Control"] = "no-cache"
    try:
        return urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                      timeout=timeout)
    except urllib.error.HTTPError as exc:
        if exc.code in (404, 410):
            raise _NotFound(f"{url} answered HTTP {exc.code}") from exc
        raise RemoteError(f"{url} answered HTTP {exc.code} {exc.reason}: try again later, "
                          "or check the URL") from exc
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise RemoteError(f"cannot reach {url} ({reason}): check the URL and the network "
                          "connection") from exc


def _get(url: str, timeout: float, *, no_cache: bool = False) -> bytes:
    with _open(url, timeout, no_cache=no_cache) as response:
        try:
            return response.read()
        except OSError as exc:
            raise RemoteError(f"download of {url} broke off ({exc}): try again") from exc


def _download(url: str, dest: Path, size: int, sha256: str, timeout: float) -> None:
    """Stream `url` into `dest`, keeping it only if size and sha256 match the manifest."""
    digest = hashlib.sha256()
    got = 0
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as out, _open(url, timeout) as response:
            while block := response.read(_BLOCK):
                digest.update(block)
                got += len(block)
                out.write(block)
        if got != size or digest.hexdigest() != sha256:
            raise RemoteError(
                f"{url} does not match its manifest ({got} bytes, sha256 "
                f"{digest.hexdigest()[:12]}…; expected {size} bytes, {sha256[:12]}…): the site "
                "may be mid-deploy, try again; if it persists, rebuild and redeploy the site"
            )
        os.replace(tmp, dest)
    except OSError as exc:
        raise RemoteError(f"download of {url} broke off ({exc}): try again") from exc
    finally:
        Path(tmp).unlink(missing_ok=True)


def _matches(path: Path, size: int, sha256: str) -> bool:
    if not path.is_file() or path.stat().st_size != size:
        return False
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest() == sha256


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
