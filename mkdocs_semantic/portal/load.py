"""Loading one site's bundle into a data folder (portal/folder.py), all or nothing.

A site whose manifest is the one loaded is left as it is: nothing is written. Otherwise
its new version is put together beside the old one: each payload the old version has
(same content-hashed name, same size) is linked, not copied, the rest copied; the copy
is read back and verified, its HNSW graph built, and only then does `index.json` name
it. A load killed at any point leaves the site as it was; the next load clears what it
left.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from ..bundle.format import MANIFEST as MANIFEST_NAME
from ..bundle.reader import read_bundle
from .folder import IndexFolder, StoredSite
from .hnsw import HnswError, HnswSettings, build_hnsw, open_hnsw

log = logging.getLogger("mkdocs_semantic.portal")

VERSION_CHARS = 16


@dataclass(frozen=True)
class LoadOutcome:
    """What a load did to one site."""

    name: str
    state: str
    """`unchanged` (nothing written), `new` or `changed`."""
    chunks: int
    payloads_copied: int = 0
    payloads_linked: int = 0
    bytes_copied: int = 0
    seconds: float = 0.0


def manifest_version(bundle_dir: Path) -> str:
    data = (bundle_dir / MANIFEST_NAME).read_bytes()
    return hashlib.sha256(data).hexdigest()[:VERSION_CHARS]


def load_site(folder: IndexFolder, name: str, bundle_dir: Path, *, source: str,
              base_url: str | None = None, settings: HnswSettings | None = None,
              progress: Callable[[str], None] | None = None) -> LoadOutcome:
    """Load the bundle at `bundle_dir` (every payload present) as site `name`; commits
    `index.json` once the site's new version is whole. Call it holding `folder.locked()`."""
    settings = settings or HnswSettings()
    say = progress or (lambda text: None)
    started = time.perf_counter()
    sites = folder.sites()
    old = sites.get(name)
    version = manifest_version(bundle_dir)
    if (old is not None and old.version == version and old.source == source
            and old.base_url == base_url and old.bundle_dir(folder.root).is_dir()
            and old.graph_path(folder.root).is_file()):
        return LoadOutcome(name, "unchanged", old.chunks)
    keep = {version} | ({old.version} if old is not None else set())
    folder.sweep(name, keep)  # what a killed load left
    bundle = read_bundle(bundle_dir)  # verified before anything is written
    site_dir = folder.site_dir(name)
    site_dir.mkdir(parents=True, exist_ok=True)
    target = site_dir / version
    graph = site_dir / f"{version}.usearch"
    previous = old.bundle_dir(folder.root) if old is not None else None
    copied = linked = copied_bytes = 0
    if not target.is_dir():
        staging = Path(tempfile.mkdtemp(prefix=f".{version}.", dir=site_dir))
        names = [p.name for p in bundle.files]
        say(f"{name}: copying {len(names)} payloads")
        for payload in bundle.files:
            how = _place(bundle_dir / payload.name, staging / payload.name, payload.bytes,
                         previous / payload.name if previous is not None else None)
            if how == "linked":
                linked += 1
            else:
                copied += 1
                copied_bytes += payload.bytes
        shutil.copyfile(bundle_dir / MANIFEST_NAME, staging / MANIFEST_NAME)
        read_bundle(staging)  # the copy is whole and verified
        os.replace(staging, target)
    # `target` is only ever a verified copy of these same bytes: the graph and the
    # counts come from the source bundle, read once
    if not _graph_fits(graph, bundle.vectors):
        say(f"{name}: building the HNSW graph of {bundle.vectors.rows:,} chunks")
        staging_graph = site_dir / f".{version}.usearch.tmp"
        build_hnsw(bundle.vectors, staging_graph, settings,
                   progress=_every_tenth(lambda done, total: say(
                       f"{name}: graph {done:,} of {total:,} chunks")))
        os.replace(staging_graph, graph)
    sites[name] = StoredSite(name=name, version=version, source=source, base_url=base_url,
                             pages=bundle.manifest.counts["pages"],
                             chunks=bundle.manifest.counts["chunks"], graph=asdict(settings))
    folder.commit(sites)
    folder.sweep(name, keep)
    return LoadOutcome(name, "new" if old is None else "changed", sites[name].chunks,
                       payloads_copied=copied, payloads_linked=linked,
                       bytes_copied=copied_bytes,
                       seconds=round(time.perf_counter() - started, 2))


def _place(source: Path, target: Path, size: int, previous: Path | None) -> str:
    """Link the old version's copy of a payload (its name holds its hash) or copy it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if previous is not None and previous.is_file() and previous.stat().st_size == size:
        try:
            os.link(previous, target)
            return "linked"
        except OSError:
            pass  # another file system, or no hard links: copy
    shutil.copyfile(source, target)
    return "copied"


def _graph_fits(graph: Path, vectors) -> bool:
    """Whether a graph left by an earlier load of this version is whole and fits."""
    if not graph.is_file():
        return False
    try:
        open_hnsw(graph, vectors, expansion_search=HnswSettings().expansion_search)
    except HnswError:
        return False
    return True


PROGRESS_FROM = 10_000
"""Chunks from which a graph's building is reported as it goes (a smaller one takes
seconds: its start line is enough)."""


def _every_tenth(report: Callable[[int, int], None]) -> Callable[[int, int], None]:
    """A progress callback that passes on about ten reports per graph of
    `PROGRESS_FROM` chunks or more, and none for a smaller one."""
    last = [-1]

    def call(done: int, total: int) -> None:
        step = total // 10 or 1
        if total >= PROGRESS_FROM and done // step != last[0] and done < total:
            last[0] = done // step
            report(done, total)

    return call


def drop_site(folder: IndexFolder, name: str) -> bool:
    """Remove site `name` from the folder (committed first, then its files); False when
    it was not loaded."""
    sites = folder.sites()
    if name not in sites:
        return False
    del sites[name]
    folder.commit(sites)
    shutil.rmtree(folder.site_dir(name), ignore_errors=True)
    return True
