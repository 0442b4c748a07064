"""The sites `load` put in a data folder or a PostgreSQL database, as a server searches
them: following later loads, without a restart.

A thread looks at what is loaded every `FOLLOW_SECONDS` (the folder's `index.json`, the
database's list of sites). A site loaded again is opened at its new version and answers
from the next query on; a site loaded for the first time is added, a dropped one left
out. Until the thread has looked, the version opened before answers: `load` keeps one
version before the latest. Each change is said in the log.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..bundle.format import BundleError
from ..model.spec import ModelError
from .merged_sites import Site, SiteSet, SitesService, open_sites
from .service import (
    DATABASE_ENV,
    EF_SEARCH_ENV,
    INDEX_ENV,
    SITES_ENV,
    AppConfig,
    SiteDir,
    bundle_service,
    create_app,
    open_service,
    settings_from_env,
)
from .site_runner import source_wait

log = logging.getLogger("mkdocs_semantic")

FOLLOW_SECONDS = 1.0
"""How often a server looks at what is loaded."""


class Listing(Protocol):
    """A loaded site as its store lists it (portal's StoredSite or PgSite)."""

    name: str
    version: str
    base_url: str | None


class Store(Protocol):
    """Where `load` put the sites: what it lists now, and how one listed site opens."""

    def listed(self) -> dict[str, Any]: ...

    def open(self, entry: Any) -> Site: ...


@dataclass(frozen=True)
class FolderStore:
    """A data folder (`load --index DIR`)."""

    root: Path
    ef_search: int | None = None
    threads: int = 0
    encoder: str | None = None

    def listed(self) -> dict[str, Any]:
        from ..portal.read import loaded_sites

        return {site.name: site for site in loaded_sites(self.root)}

    def open(self, entry: Any) -> Site:
        service = open_service(entry.bundle_dir(self.root), threads=self.threads,
                               graph=entry.graph_path(self.root), ef_search=self.ef_search,
                               name=entry.name, encoder=self.encoder)
        return Site(entry.name, service, entry.base_url)


@dataclass(frozen=True)
class DatabaseStore:
    """A PostgreSQL database (`load --db URL`); `folder` keeps this process's copies of
    the payloads it reads, a folder per site version."""

    database: Any
    folder: Path
    threads: int = 0
    encoder: str | None = None

    def listed(self) -> dict[str, Any]:
        return {site.name: site for site in self.database.sites()}

    def open(self, entry: Any) -> Site:
        from ..portal.pg_read import database_bundle

        bundle = database_bundle(self.database, entry,
                                 self.folder / entry.name / entry.version)
        return Site(entry.name, bundle_service(bundle, threads=self.threads,
                                               encoder=self.encoder), entry.base_url,
                    wait=source_wait())


class Follower:
    """Keeps a site set what its store lists (`look`), on a thread of its own (`start`)."""

    def __init__(self, sites: SiteSet, store: Store, versions: dict[str, str]) -> None:
        self.sites = sites
        self.store = store
        self.versions = dict(versions)
        """The version each served site was opened at."""
        self.problem: str | None = None
        """Why the last look could not read the store, or None."""
        self._stop = threading.Event()

    def look(self) -> None:
        """One look at the store: the sites loaded again, added or dropped since the last
        one are served as they are now. A site whose new load cannot be opened keeps
        answering from the version before (and is tried again at the next look)."""
        listed: dict[str, Listing] = self.store.listed()
        if {name: entry.version for name, entry in listed.items()} == self.versions:
            return
        served = self.sites.by_name
        sites: list[Site] = []
        for name, entry in listed.items():
            old = served.get(name)
            if old is not None and self.versions.get(name) == entry.version:
                sites.append(old)
                continue
            try:
                sites.append(self.store.open(entry))
            except (BundleError, ModelError, OSError) as exc:
                log.warning("site %r was loaded again but cannot be opened (%s): %s", name,
                            exc, "answering from the version before" if old else "left out")
                if old is not None:
                    sites.append(old)
                continue
            log.info("site %r was %s: answering from version %s", name,
                     "loaded again" if name in self.versions else "loaded", entry.version)
            self.versions[name] = entry.version
        for name in sorted(set(self.versions) - set(listed)):
            log.info("site %r was dropped: no longer searched", name)
            del self.versions[name]
        if sites:
            self.sites.replace(sites)

    def start(self) -> Follower:
        threading.Thread(target=self._run, name="follow-loads", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(FOLLOW_SECONDS):
            try:
                self.look()
                if self.problem is not None:
                    log.info("what is loaded can be read again")
                self.problem = None
            except (BundleError, OSError) as exc:  # a folder or database not readable now
                if self.problem is None:  # once an outage, not every second of it
                    log.warning("what is loaded could not be read (%s): answering from "
                                "the sites opened before", exc)
                self.problem = f"what is loaded could not be read ({exc})"
            except Exception:  # never stop following: say it, and look again
                log.exception("looking at what is loaded failed: answering from the sites "
                              "opened before")


def following(store: Store) -> SitesService:
    """A service over the sites `store` lists now, each query encoder loaded, following
    later loads on a thread of its own."""
    listed: dict[str, Listing] = store.listed()
    sites = SiteSet([store.open(entry) for entry in listed.values()])
    follower = Follower(sites, store,
                        {name: entry.version for name, entry in listed.items()}).start()
    return SitesService(sites, problem=lambda: follower.problem)


def open_index_sites(root: Path, *, ef_search: int | None = None, threads: int = 0,
                     encoder: str | None = None) -> SitesService:
    """A service over the sites `load --index` put in the data folder at `root`."""
    return following(FolderStore(root, ef_search=ef_search, threads=threads, encoder=encoder))


def open_database_sites(url: str, *, ef_search: int | None = None, threads: int = 0,
                        encoder: str | None = None) -> SitesService:
    """A service over the sites `load --db` put in the PostgreSQL database at `url`."""
    from ..portal.pg_read import open_database, scratch_folder

    database = open_database(url, ef_search=ef_search)
    return following(DatabaseStore(database, scratch_folder(), threads=threads,
                                   encoder=encoder))


def app_from_env():
    """App factory for uvicorn's workers when a server searches several sites:
    MKDOCS_SEMANTIC_DATABASE (a PostgreSQL URL) or MKDOCS_SEMANTIC_INDEX (a data folder),
    each with MKDOCS_SEMANTIC_EF_SEARCH, or MKDOCS_SEMANTIC_SITES (JSON: [[name, bundle
    folder, base URL or null], ...]), and the variables service.app_from_env reads
    besides its SOURCE."""
    ef_search = int(os.environ.get(EF_SEARCH_ENV) or 0) or None
    settings = settings_from_env()
    opened = {"threads": settings["threads"], "encoder": settings["query_encoder"]}
    if url := os.environ.get(DATABASE_ENV):
        return create_app(AppConfig(database=url, ef_search=ef_search, **settings),
                          open_database_sites(url, ef_search=ef_search, **opened))
    if folder := os.environ.get(INDEX_ENV):
        return create_app(AppConfig(index_dir=Path(folder), ef_search=ef_search, **settings),
                          open_index_sites(Path(folder), ef_search=ef_search, **opened))
    text = os.environ.get(SITES_ENV)
    if not text:
        raise RuntimeError(f"set {SITES_ENV}, {INDEX_ENV} or {DATABASE_ENV} to the sites to "
                           "search")
    sites = tuple(SiteDir(name, Path(folder), base) for name, folder, base in json.loads(text))
    config = AppConfig(sites=sites, **settings)
    return create_app(config, open_sites(sites, threads=config.threads,
                                         encoder=config.query_encoder))
