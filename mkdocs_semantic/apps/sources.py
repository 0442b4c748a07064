"""Sources: a local site or bundle directory, or the URL of a deployed site.

A URL's bundle is downloaded into a user cache directory keyed by the URL:
the manifest every time (it is small and never cached long), then the catalog and
the payloads of the bundle (bundle.walk_levels: those it lists, then those its
directories and other payloads name, a level at a time, the files of a level fetched
together), each only when the cache lacks a copy with the hash its name carries.
Payload names are content-hashed, so a redeployed site costs only its changed files.
The shards a query reads a few of (bundle.ON_DEMAND: keyword, query-table, excerpt and
text shards, vector partitions) are fetched (and kept) when a query first needs them
(`payload_fetcher`), unless the caller asks for everything up front.

A fetch is bounded: the manifest may be at most `MAX_MANIFEST_BYTES`, a payload
file no larger than the catalog says, and the whole fetch must finish within
its deadline (default `FETCH_DEADLINE`), however slowly the server sends. A fetch
that fails leaves the cache folder as it was before.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import os
import re
import socket
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import platformdirs

from ..bundle.format import MANIFEST, BundleError, Manifest, check_catalog
from ..bundle.load_once import in_parallel
from ..bundle.names import PayloadError, self_checked, verify
from ..bundle.packs import PayloadRange
from ..bundle.reader import (
    ON_DEMAND,
    PayloadFetch,
    find_bundle_dir,
    parse_json,
    read_or_fetch_again,
    walk_levels,
)
from ..constants import MAX_MANIFEST_BYTES, __version__
from ..files import atomic_write, sha256_file

log = logging.getLogger("mkdocs_semantic")
CACHE_ENV = "MKDOCS_SEMANTIC_CACHE"
CACHE_NAME = "mkdocs-semantic"
"""The folder in the user cache folder that keeps downloaded bundles."""
FETCH_TIMEOUT_ENV = "MKDOCS_SEMANTIC_FETCH_TIMEOUT"
TIMEOUT = 30.0
"""Seconds one connect or read may wait for the server."""
FETCH_DEADLINE = 120.0
"""Seconds a whole fetch (manifest and every payload file) may take."""
USER_AGENT = f"mkdocs-semantic-search/{__version__}"
SOURCE_FILE = "source.json"
"""In a downloaded bundle's folder: where it came from (URL, manifest URL, site URL)."""
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

    @property
    def fetch(self) -> PayloadFetch | None:
        """For a URL's bundle: what downloads a payload a query first needs."""
        return payload_fetcher(self.bundle_dir)

    @property
    def fetch_range(self) -> PayloadRange | None:
        """For a URL's bundle: what reads one record of a pack by a range request."""
        return range_fetcher(self.bundle_dir)


def is_url(text: str) -> bool:
    return urllib.parse.urlsplit(text).scheme in ("http", "https")


def open_source(source: str, *, cache_dir: Path | None = None,
                fetch_timeout: float | None = None, everything: bool = False) -> Source:
    """Resolve a site directory, a bundle directory or an http(s) URL to a local bundle.

    `fetch_timeout`: seconds a URL's whole fetch may take (default: $MKDOCS_SEMANTIC_FETCH_TIMEOUT,
    else `FETCH_DEADLINE`). `everything`: download every payload now, vector partitions
    included (otherwise each is fetched when a query first needs it).
    """
    if is_url(source):
        bundle_dir, base_url = fetch_bundle(source, cache_dir=cache_dir,
                                            fetch_timeout=fetch_timeout,
                                            everything=everything)
        return Source(bundle_dir=bundle_dir, base_url=base_url)
    path = Path(source)
    bundle_dir = find_bundle_dir(path)
    site_dir = path if bundle_dir.resolve() != path.resolve() else None
    return Source(bundle_dir=bundle_dir, site_dir=site_dir)


def env_seconds(name: str, default: float) -> float:
    """Environment variable `name` as seconds above 0, else `default`; ValueError naming
    the variable and a value to set when it is something else."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:
        raise ValueError(f"{name}={text!r} is not a number of seconds above 0: "
                         f"set it to, for example, {default:g}")
    return seconds


def default_fetch_timeout() -> float:
    """$MKDOCS_SEMANTIC_FETCH_TIMEOUT (seconds), else `FETCH_DEADLINE`."""
    try:
        return env_seconds(FETCH_TIMEOUT_ENV, FETCH_DEADLINE)
    except ValueError as exc:
        raise RemoteError(str(exc)) from None


def user_cache_dir() -> Path:
    """$MKDOCS_SEMANTIC_CACHE, else the platform's user cache folder (platformdirs)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    return Path(platformdirs.user_cache_dir(CACHE_NAME, appauthor=False))


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
                 fetch_timeout: float | None = None,
                 everything: bool = False) -> tuple[Path, str]:
    """Download (or refresh) the bundle of a deployed site; returns (folder, site URL).

    Vector partitions are left for `payload_fetcher` (a query fetches the few it probes)
    unless `everything`. The whole fetch ends within `fetch_timeout` seconds or fails; a
    failed fetch leaves the cache folder as it was.
    """
    root = cache_dir or user_cache_dir()
    target = cache_folder(url, root)
    seconds = default_fetch_timeout() if fetch_timeout is None else fetch_timeout
    with _Deadline(seconds, url) as deadline:
        opener = _opener(deadline)
        try:
            manifest_url, raw = _find_manifest(url, opener, deadline)
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
        base_url = urllib.parse.urljoin(manifest_url, "../")
        with _undone_on_failure(target):
            target.mkdir(parents=True, exist_ok=True)
            entry = manifest.catalog
            _fetch(manifest_url, target, entry.name, size=entry.bytes, sha256=entry.sha256,
                   opener=opener, deadline=deadline, listed_by="manifest")
            catalog = check_catalog(parse_json((target / entry.name).read_bytes(),
                                               target / entry.name), manifest, manifest_url)
            payloads = []

            def here(payload) -> bool:
                """Fetched now, or kept from an earlier fetch (then what it names is kept)."""
                return (everything or not payload.name.startswith(ON_DEMAND)
                        or (target / payload.name).is_file())

            def fetch(name: str, size: int) -> None:
                """One payload into the cache, unless a copy with its hash is there."""
                _fetch(manifest_url, target, name, size=size, sha256=_hash_in_name(name),
                       opener=opener, deadline=deadline)

            # a level is fetched (its files at the same time) before the walk reads what
            # they name (a damaged cached copy is fetched again); names were checked: no
            # "..", no other folders
            for level in walk_levels(
                    catalog, lambda name, size: read_or_fetch_again(target, name, size, fetch),
                    expand=here):
                payloads += level
                in_parallel(partial(fetch, payload.name, payload.bytes)
                            for payload in level
                            if everything or not payload.name.startswith(ON_DEMAND))
            _write_if_changed(target / SOURCE_FILE, json.dumps({
                "url": url, "manifest": manifest_url, "base_url": base_url}).encode())
            _write_if_changed(target / MANIFEST, raw)
    keep = {p.name for p in payloads} | {manifest.catalog.name, MANIFEST, SOURCE_FILE}
    for old in sorted(target.rglob("*"), reverse=True):
        name = old.relative_to(target).as_posix()
        # a name with a leading dot is a temporary file, maybe another fetch's
        if old.is_file() and name not in keep and not old.name.startswith("."):
            old.unlink(missing_ok=True)
        elif old.is_dir() and not any(old.iterdir()):
            old.rmdir()
    return target, base_url


def _manifest_url(root: Path) -> str | None:
    """The manifest URL of a bundle folder that `fetch_bundle` filled; None for another."""
    try:
        manifest_url = json.loads((root / SOURCE_FILE).read_text(encoding="utf-8"))["manifest"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return manifest_url if isinstance(manifest_url, str) and is_url(manifest_url) else None


def downloaded(root: Path) -> bool:
    """Whether `fetch_bundle` filled the bundle folder at `root`: its shards come from a
    URL as queries first need them."""
    return _manifest_url(root) is not None


def range_fetcher(root: Path) -> PayloadRange | None:
    """For a bundle folder that `fetch_bundle` filled: a function that reads `size` bytes
    of a payload at `offset` with one range request (None when the site answers with the
    whole file: the caller then fetches it whole). None for any other folder."""
    manifest_url = _manifest_url(root)
    if manifest_url is None:
        return None

    def fetch_range(name: str, offset: int, size: int) -> bytes | None:
        url = urllib.parse.urljoin(manifest_url, name)
        with _Deadline(default_fetch_timeout(), manifest_url) as deadline, \
                _open(url, _opener(deadline), deadline,
                      byte_range=(offset, offset + size - 1)) as response:
            if response.status != 206:
                return None  # the whole file: not read here
            data = b"".join(_blocks(response, url, deadline, limit=size + 1))
        if len(data) != size:
            raise RemoteError(f"{url} sent {len(data):,} bytes for a range of {size:,}: "
                              f"{_MISMATCH}")
        return data

    return fetch_range


def payload_fetcher(root: Path) -> Callable[[str, int], None] | None:
    """For a bundle folder that `fetch_bundle` filled: a function that downloads one
    payload it lacks (verified by size and hash, within `default_fetch_timeout`). None
    for any other folder."""
    manifest_url = _manifest_url(root)
    if manifest_url is None:
        return None

    def fetch(name: str, size: int) -> None:
        with _Deadline(default_fetch_timeout(), manifest_url) as deadline:
            _fetch(manifest_url, root, name, size=size, sha256=_hash_in_name(name),
                   opener=_opener(deadline), deadline=deadline)

    return fetch


def _hash_in_name(name: str) -> str | None:
    """The sha256 prefix a payload's name carries (names.NAME); None for a self-checked
    payload (named from its set's hash: names.self_checked), whose bytes end with their
    check."""
    return None if self_checked(name) else name.rsplit(".", 2)[-2]


def _fetch(manifest_url: str, target: Path, name: str, *, size: int, sha256: str | None,
           opener: urllib.request.OpenerDirector, deadline: _Deadline,
           listed_by: str = "catalog") -> None:
    """Download one file of the bundle unless the cached copy already matches (`sha256`
    None: a self-checked payload, checked as names.verify checks it)."""
    local = target / name
    local.parent.mkdir(parents=True, exist_ok=True)
    if not _matches(local, size, sha256, name):
        _download(urllib.parse.urljoin(manifest_url, name), local, name=name, size=size,
                  sha256=sha256, opener=opener, deadline=deadline, listed_by=listed_by)


@contextmanager
def _undone_on_failure(target: Path) -> Iterator[None]:
    """If the block fails, remove what it added under `target` and the folders it made.

    Files that were there before stay: they belong to an earlier, complete fetch.
    """
    made: list[Path] = []
    folder = target
    while not folder.exists():
        made.append(folder)  # deepest first
        folder = folder.parent
    before = set(target.rglob("*")) if target.is_dir() else set()
    try:
        yield
    except BaseException:
        if target.is_dir():
            for path in sorted(set(target.rglob("*")) - before, reverse=True):
                if path.is_dir():
                    with suppress(OSError):
                        path.rmdir()
                elif not path.name.startswith(".tmp-"):
                    path.unlink(missing_ok=True)
        for folder in made:
            try:
                folder.rmdir()
            except OSError:  # not empty: someone else put something there
                break
        raise


class _Deadline:
    """The end of one fetch.

    Each connect and read waits at most until then, and when it passes every
    connection the fetch opened is shut down, which ends a read that a server keeps
    alive with a byte now and then (a socket timeout alone never fires on those).
    """

    def __init__(self, seconds: float, url: str) -> None:
        self.seconds = seconds
        self.url = url
        self.ends = time.monotonic() + seconds
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._passed = False
        self._timer = threading.Timer(seconds, self._pass)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    @property
    def passed(self) -> bool:
        return self._passed or time.monotonic() >= self.ends

    def check(self, cause: BaseException | None = None) -> None:
        """Raise the deadline's error if it has passed."""
        if self.passed:
            raise RemoteError(
                f"fetching the search bundle of {self.url} took longer than {self.seconds:g} s "
                "and was stopped; nothing new was kept: the server is slow or stalled; try "
                f"again later, or allow more time with --fetch-timeout or {FETCH_TIMEOUT_ENV}"
            ) from cause

    def socket_timeout(self) -> float:
        """What one socket wait may take: `TIMEOUT`, or less if the deadline is nearer."""
        self.check()
        return max(0.05, min(TIMEOUT, self.ends - time.monotonic()))

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self._passed:
                _shut(sock)

    def _pass(self) -> None:
        with self._lock:
            self._passed = True
            for sock in self._sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    # the plain socket's shutdown, also under TLS: it wakes a blocked read at once
    with suppress(OSError):  # already closed
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _Watching(urllib.request.AbstractHTTPHandler):
    """Registers every connection it opens with the fetch's deadline."""

    deadline: _Deadline

    def do_open(self, http_class, req, **kwargs):
        deadline = self.deadline

        class Watched(http_class):  # type: ignore[valid-type,misc]  # urllib's class
            def connect(self) -> None:
                super().connect()
                deadline.watch(self.sock)

        return super().do_open(Watched, req, **kwargs)


class _SameHost(urllib.request.HTTPRedirectHandler):
    """Follows redirects within the site's host only: a bundle is read from where its
    site is, never from wherever a server points."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        new = urllib.parse.urljoin(req.full_url, newurl)
        if urllib.parse.urlsplit(new).hostname != urllib.parse.urlsplit(req.full_url).hostname:
            fp.close()  # the redirect's own response: nothing more is read from it
            raise RemoteError(f"{req.full_url} redirects to another host ({new}): give that "
                              "URL instead if you trust it")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _opener(deadline: _Deadline) -> urllib.request.OpenerDirector:
    http = type("HTTP", (_Watching, urllib.request.HTTPHandler), {"deadline": deadline})
    https = type("HTTPS", (_Watching, urllib.request.HTTPSHandler), {"deadline": deadline})
    return urllib.request.build_opener(http, https, _SameHost)


def _write_if_changed(path: Path, data: bytes) -> None:
    """Write `data` unless `path` holds it already (a cache that is read-only then works)."""
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    atomic_write(path, data)


def _read_base(target: Path) -> str:
    try:
        return json.loads((target / SOURCE_FILE).read_text(encoding="utf-8"))["base_url"]
    except (OSError, ValueError, KeyError):
        return ""


def _find_manifest(url: str, opener: urllib.request.OpenerDirector,
                   deadline: _Deadline) -> tuple[str, bytes]:
    candidates = manifest_candidates(url)
    for candidate in candidates:
        try:
            return candidate, _read_manifest(candidate, opener, deadline)
        except _NotFound:
            continue
    raise _NotFound(f"no search bundle at {url} (tried {', '.join(candidates)}): check the "
                    "URL, and that the site was built with plugins: [semantic]")


def _read_manifest(url: str, opener: urllib.request.OpenerDirector,
                   deadline: _Deadline) -> bytes:
    """The manifest's bytes, refused past `MAX_MANIFEST_BYTES` without reading the rest."""
    limit = MAX_MANIFEST_BYTES

    def too_large() -> RemoteError:
        return RemoteError(
            f"manifest at {url} is larger than {limit // 2**20} MB, so it was not read: a "
            "search manifest is a few kB; check that the URL points at a site built with the "
            "semantic plugin")

    data = bytearray()
    with _open(url, opener, deadline, no_cache=True) as response:
        if (_content_length(response) or 0) > limit:
            raise too_large()
        for block in _blocks(response, url, deadline, limit=limit + 1):
            data += block
    if len(data) > limit:
        raise too_large()
    return bytes(data)


def _open(url: str, opener: urllib.request.OpenerDirector, deadline: _Deadline, *,
          no_cache: bool = False, byte_range: tuple[int, int] | None = None):
    headers = {"User-Agent": USER_AGENT}
    if no_cache:
        headers["Cache-Control"] = "no-cache"
    if byte_range is not None:
        headers["Range"] = f"bytes={byte_range[0]}-{byte_range[1]}"
    try:
        return opener.open(urllib.request.Request(url, headers=headers),
                           timeout=deadline.socket_timeout())
    except RemoteError:
        raise
    except urllib.error.HTTPError as exc:
        if exc.code in (404, 410):
            raise _NotFound(f"{url} answered HTTP {exc.code}") from exc
        if 300 <= exc.code < 400:  # urllib gave up following: a loop, or too many
            exc.close()
            raise RemoteError(f"{url} redirects in a loop (HTTP {exc.code}): check the URL, "
                              "or the site's redirects") from exc
        reason = " ".join(str(exc.reason).split())
        raise RemoteError(f"{url} answered HTTP {exc.code} {reason}: try again later, "
                          "or check the URL") from exc
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
        deadline.check(exc)
        cause = getattr(exc, "reason", exc)
        raise RemoteError(f"cannot reach {url} ({cause}): check the URL and the network "
                          "connection") from exc


def _content_length(response) -> int | None:
    try:
        return int(response.headers.get("Content-Length", ""))
    except ValueError:
        return None


def _blocks(response, url: str, deadline: _Deadline, *, limit: int) -> Iterator[bytes]:
    """The body as it arrives, at most `limit` bytes, each read bounded by the deadline."""
    got = 0
    while got < limit:
        deadline.check()
        try:
            block = response.read1(min(_BLOCK, limit - got))
        except (OSError, http.client.HTTPException) as exc:
            deadline.check(exc)  # the deadline shut the socket
            raise RemoteError(f"download of {url} broke off ({exc}): try again") from exc
        if not block:
            deadline.check()  # a socket shut by the deadline reads as the end
            return
        got += len(block)
        yield block


_MISMATCH = "the site may be mid-deploy, try again; if it persists, rebuild and redeploy the site"


def _download(url: str, dest: Path, *, name: str, size: int, sha256: str | None,
              opener: urllib.request.OpenerDirector, deadline: _Deadline,
              listed_by: str = "catalog") -> None:
    """Stream `url` into `dest`, keeping it only if size and sha256 match the manifest
    (`sha256` None: payload `name` is self-checked, kept only if its check bytes hold).

    Reads at most one byte more than the listing declares: a larger file is
    refused at that point, not after it has filled the disk.
    """
    digest = hashlib.sha256()
    got = 0
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as out, _open(url, opener, deadline) as response:
            declared = _content_length(response)
            if declared is not None and declared > size:
                raise RemoteError(f"{url} is {declared:,} bytes, larger than the {size:,} its "
                                  f"{listed_by} declares, so it was not downloaded: {_MISMATCH}")
            for block in _blocks(response, url, deadline, limit=size + 1):
                got += len(block)
                if got > size:
                    raise RemoteError(f"{url} is larger than the {size:,} bytes its {listed_by} "
                                      f"declares, so the download was stopped: {_MISMATCH}")
                digest.update(block)
                out.write(block)
        if sha256 is None:
            good, expected = _row_holds(name, Path(tmp).read_bytes(), size), "its check bytes"
        else:
            good, expected = digest.hexdigest().startswith(sha256), f"{sha256[:12]}…"
        if got != size or not good:
            raise RemoteError(
                f"{url} does not match its {listed_by} ({got} bytes, sha256 "
                f"{digest.hexdigest()[:12]}…; expected {size} bytes, {expected}): {_MISMATCH}"
            )
        os.replace(tmp, dest)
    except OSError as exc:
        raise RemoteError(f"download of {url} broke off ({exc}): try again") from exc
    finally:
        Path(tmp).unlink(missing_ok=True)


def _matches(path: Path, size: int, sha256: str | None, name: str) -> bool:
    if not (path.is_file() and path.stat().st_size == size):
        return False
    if sha256 is not None:
        return sha256_file(path).startswith(sha256)
    return _row_holds(name, path.read_bytes(), size)


def _row_holds(name: str, data: bytes, size: int) -> bool:
    """Whether `data` is the table row `name` promises (names.verify)."""
    try:
        verify(name, data, size=size)
    except PayloadError:
        return False
    return True
