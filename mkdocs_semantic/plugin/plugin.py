"""The MkDocs plugin: hooks only, the work is done by the modules they call."""

from __future__ import annotations

import fnmatch
import html
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority

from ..bundle.folder import bundle_dir_problem, installed_client, site_folder
from ..bundle.format import BundleError, BundleWriteError
from ..bundle.reader import browser_forward_pass
from ..bundle.wordpieces import keyed_pieces_hash
from ..chunk import Chunk, PageFacts
from ..constants import MAX_TOP_K, site_encoders
from ..files import sha256_file
from ..indexing.indexer import BuildStats, Indexer, IndexOptions
from ..indexing.progress import Progress
from ..logs import build_log as log
from ..model.onnx import TokenCounter
from ..model.spec import ModelError, ModelSpec, default_model_spec, verify_default_model
from ..pages import theme
from ..pages.hints import PageHints, bundle_hints, rewrite_pages
from .config import MAX_THREADS, SemanticConfig

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.nav import Navigation
    from mkdocs.structure.pages import Page
    from mkdocs.utils.templates import TemplateContext

SEARCH_PAGE = "search.html"  # the search plugin's page, in themes that have one


class SemanticPlugin(BasePlugin[SemanticConfig]):
    """Chunks and embeds every page, then writes the search bundle into the site."""

    supports_multiple_instances = False

    def __init__(self) -> None:
        self.indexer: Indexer | None = None
        self.page_order: list[str] = []
        self.page_chunks: dict[str, list[Chunk]] = {}
        self.page_progress: Progress | None = None
        self._verified: set[Path] = set()
        self.last_build: BuildStats | None = None
        self.client: theme.ClientAssets | None = None
        self.ui = "none"
        self.pieces_hash: str | None = None
        self.written_pages: list[Path] = []  # what gets the late hints (hints.py)
        self.site_pages: list[Path] = []  # every page's file: a dirty build's too
        self.dirty = False
        self.rendered: set[str] = set()
        """Source pages rendered this build (a dirty build skips unchanged ones)."""
        self.command: str | None = None
        """`build`, `gh-deploy` or `serve`, when MkDocs says (on_startup)."""

    @property
    def _indexer(self) -> Indexer:
        """What on_config made: every later hook runs only when it ran (enabled)."""
        assert self.indexer is not None
        return self.indexer

    @property
    def _client(self) -> theme.ClientAssets:
        """The built client on_config found (see `_indexer`)."""
        assert self.client is not None
        return self.client

    def on_startup(self, *, command: str, dirty: bool) -> None:
        """Defining this hook makes MkDocs keep this instance for every `mkdocs serve`
        rebuild, so the model and caches stay loaded."""
        self.command = command
        self.dirty = dirty

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig | None:
        if not self.config.enabled:
            return None
        self._validate_options()
        config_dir = Path(config.config_file_path or ".").resolve().parent
        spec = self._resolve_model(config_dir)
        cache_path = None
        if self.config.cache:
            # the folder resolved, never the file: a link planted as a cache file is
            # replaced when the cache is written, never written through
            cache_path = (config_dir / self.config.cache_dir).resolve() / "embeddings.npz"
        options = IndexOptions(
            heading_levels=self.config.heading_levels,
            max_tokens=self.config.max_tokens,
            min_tokens=self.config.min_tokens,
            dtype=self.config.dtype,
            threads=self.config.threads,
            batch_size=self.config.batch_size,
            search=(("top_k", self.config.top_k), ("min_score", self.config.min_score)),
            query_encoder=self.config.query_encoder,
            vector_layout=self.config.vector_layout,
        )
        # Under `mkdocs serve` the same instance sees every rebuild: keep model and cache.
        if self.indexer is None or not self.indexer.matches(spec, options, cache_path):
            self.indexer = Indexer(spec, options, cache_path=cache_path)
            self.page_chunks = {}
        self.indexer.preview = self.command == "serve"
        self.indexer.embed_early = True
        self._validate_model()
        self._setup_client(config)
        # what the pages tell the browser, so that a first query names its words' files
        self.pieces_hash = (keyed_pieces_hash(spec.tokenizer_path)
                            if "static" in site_encoders(self.config.query_encoder) else None)
        return config

    def _setup_client(self, config: MkDocsConfig) -> None:
        """Find the built browser client (failing now, not after embedding) and pick the UI."""
        try:
            self.client = theme.ClientAssets.load()
        except theme.ClientError as exc:
            raise PluginError(f"semantic: {exc}") from exc
        self.ui = theme.choose_ui(self.config.ui, theme=config.theme.name,
                                   has_search_box=any(name.split("/")[-1] == "search"
                                                      for name in config.plugins))

    def _validate_options(self) -> None:
        cfg = self.config
        model_max = cfg.model.max_tokens
        checks = [
            ("heading_levels", cfg.heading_levels, 1 <= cfg.heading_levels <= 6,
             "a number from 1 to 6"),
            ("model.max_tokens", model_max, model_max >= 16, "at least 16"),
            ("max_tokens", cfg.max_tokens, 16 <= cfg.max_tokens <= model_max,
             f"between 16 and model.max_tokens ({model_max})"),
            ("min_tokens", cfg.min_tokens, 0 <= cfg.min_tokens < cfg.max_tokens,
             "at least 0 and below max_tokens"),
            ("batch_size", cfg.batch_size, cfg.batch_size >= 1, "at least 1"),
            ("top_k", cfg.top_k, 1 <= cfg.top_k <= MAX_TOP_K, f"between 1 and {MAX_TOP_K}"),
            ("min_score", cfg.min_score, cfg.min_score is None or -1 <= cfg.min_score <= 1,
             "a relevance between 0 and 1 (below 0 keeps everything), or unset"),
            ("threads", cfg.threads, 0 <= cfg.threads <= MAX_THREADS,
             f"from 0 (one per core) to {MAX_THREADS}"),
            ("bundle_dir", cfg.bundle_dir, bundle_dir_problem(cfg.bundle_dir) is None,
             bundle_dir_problem(cfg.bundle_dir)),
            ("vector_layout", cfg.vector_layout,
             cfg.vector_layout != "partitioned" or cfg.dtype == "i8",
             f"auto or exact with dtype {cfg.dtype!r} (the partitioned layout stores i8)"),
        ]
        for option, value, ok, expected in checks:
            if not ok:
                raise PluginError(
                    f"semantic: option '{option}' is {value!r}; it must be {expected}. "
                    "Fix it under 'plugins: - semantic:' in mkdocs.yml"
                )

    def _validate_model(self) -> None:
        """Load the model now, so that a model.max_tokens above what it reads or a wrong
        model.dim fails before any page is built (later rebuilds reuse the loaded model)."""
        try:
            _ = self._indexer.embedder.dim
        except ModelError as exc:
            raise model_problem(exc) from exc

    def _resolve_model(self, config_dir: Path) -> ModelSpec:
        m = self.config.model
        try:
            if m.path is None:
                if m.tokenizer is not None:
                    raise PluginError(
                        "semantic: option 'model.tokenizer' is set without 'model.path': "
                        "set both to use your own model, or neither for the bundled one"
                    )
                spec = default_model_spec(max_tokens=m.max_tokens)
                if spec.model_path not in self._verified:
                    verify_default_model(spec)
                    self._verified.add(spec.model_path)
                return ModelSpec(**{**spec.__dict__, "pooling": m.pooling,
                                    "normalize": m.normalize,
                                    "query_prefix": m.query_prefix,
                                    "document_prefix": m.document_prefix,
                                    "dim": m.dim or spec.dim})
            model_path = _existing_file(config_dir, m.path, "model.path")
            if m.tokenizer is None:
                raise PluginError(
                    "semantic: option 'model.path' needs 'model.tokenizer' too: "
                    "point it at the model's tokenizer.json"
                )
            tokenizer_path = _existing_file(config_dir, m.tokenizer, "model.tokenizer")
            TokenCounter(tokenizer_path)  # fail now, naming the option, if unreadable
            return ModelSpec(
                id=model_path.name,
                model_path=model_path,
                tokenizer_path=tokenizer_path,
                sha256=sha256_file(model_path),
                pooling=m.pooling,
                normalize=m.normalize,
                max_tokens=m.max_tokens,
                query_prefix=m.query_prefix,
                document_prefix=m.document_prefix,
                dim=m.dim,
            )
        except ModelError as exc:
            raise model_problem(exc) from exc

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        """Where our search takes over the search plugin's box, leave out its main.js,
        which would download lunr and search/search_index.json on every page. The index
        is still written: other tools may read it. This runs after every plugin's
        on_config, whichever order `plugins:` lists them in."""
        if not self.config.enabled or self.ui not in theme.SEARCH_PLUGIN_BOXES:
            return
        config.extra_javascript[:] = theme.without_search_plugin_script(config.extra_javascript)

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files | None:
        if not self.config.enabled:
            return None
        self.page_order = [f.src_uri for f in files.documentation_pages()]
        self.rendered = set()
        self.written_pages = []
        self.site_pages = [Path(f.abs_dest_path) for f in files.documentation_pages()]
        self._refuse_shared_bundle_dir(files)
        # MkDocs renders pages without a word: a long build still says where it is. Log
        # lines, not a redrawn one: MkDocs' own warnings arrive between them.
        self.page_progress = Progress("reading pages", items=len(self.page_order),
                                      tokens=len(self.page_order), interactive=False,
                                      summary=False)
        self._indexer.start_build()
        return files

    def _refuse_shared_bundle_dir(self, files: Files) -> None:
        """The bundle folder is rewritten on every build: no page may live in it."""
        folder = site_folder(self.config.bundle_dir)
        clashes = [f for f in files if f.dest_uri == folder
                   or f.dest_uri.startswith(folder + "/")]
        if clashes:
            first = clashes[0]
            more = f" (and {len(clashes) - 1} more files)" if len(clashes) > 1 else ""
            raise PluginError(
                f"semantic: option 'bundle_dir' is {self.config.bundle_dir!r}, but MkDocs "
                f"writes {first.dest_uri} there (from {first.src_uri}){more}. The bundle "
                "folder is rewritten on every build, so it must be a folder of its own: set "
                "bundle_dir to a folder that no page or theme file uses (e.g. '_semantic'), "
                "or move the page"
            )

    @event_priority(-100)
    def on_page_context(self, context: TemplateContext, *, page: Page, config: MkDocsConfig,
                        nav: Navigation) -> TemplateContext | None:
        """Chunk the page as it will be published: after every plugin's (and hook's)
        on_page_content, and, being last, after their on_page_context too. MkDocs' own
        search plugin reads the page here as well."""
        if not self.config.enabled:
            return None
        if self.page_progress is not None:
            self.page_progress.advance(1, 1)
        src = page.file.src_uri
        self.rendered.add(src)
        if self._excluded(page):
            self.page_chunks.pop(src, None)
            self._indexer.excluded(src)
            return context
        # MkDocs gives a title from the page's h1 as HTML (`Cookies &amp; sessions`)
        facts = PageFacts(url=page.url, title=html.unescape(page.title or page.file.name),
                          section=top_section(page), facets=self._facets(page.meta),
                          boost=search_boost(page.meta))
        try:
            self.page_chunks[src] = self._indexer.chunk(page.content or "", facts, source=src)
        except ValueError as exc:
            raise PluginError(f"semantic: cannot chunk {src}: {exc}") from exc
        return context

    def _facets(self, meta: Mapping) -> dict[str, list[str]]:
        """`tags` and the configured facet keys of a page, as lists of strings."""
        facets = {}
        for key in ["tags", *self.config.facets]:
            value = meta.get(key)
            if value is None or value == [] or value == "":
                continue
            values = value if isinstance(value, list) else [value]
            facets[key] = [str(v) for v in values]
        return facets

    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str | None:
        if not self.config.enabled:
            return output
        hints = PageHints(pieces=self.pieces_hash)
        if self.ui == "material":
            url = theme.material_worker_url(page_url=page.url, bundle_dir=self.config.bundle_dir,
                                            assets=self._client, hints=hints)
            output = theme.point_material_search(output, url)
            output = theme.skip_material_index(output)
        tagged = theme.add_to_head(output, self._tags(page.url, hints))
        if tagged != output:  # a page without a <head> gets no search, and no hints
            self.written_pages.append(Path(page.file.abs_dest_path))
        return tagged

    def _tags(self, page_url: str, hints: PageHints) -> str:
        return theme.page_tags(page_url=page_url, bundle_dir=self.config.bundle_dir,
                               assets=self._client, ui=self.ui, hints=hints)

    def on_post_template(self, output_content: str, *, template_name: str,
                         config: MkDocsConfig) -> str | None:
        """The readthedocs theme's search page (a static template, not a page): its
        search box is the one the theme's sidebar box submits to."""
        if not self.config.enabled or template_name != SEARCH_PAGE \
                or self.ui not in theme.SEARCH_PLUGIN_BOXES:
            return output_content
        tagged = theme.add_to_head(output_content,
                                   self._tags(SEARCH_PAGE, PageHints(pieces=self.pieces_hash)))
        if tagged != output_content:
            self.written_pages.append(Path(config.site_dir) / SEARCH_PAGE)
        return tagged

    def _excluded(self, page: Page) -> bool:
        meta = page.meta.get("search")
        if isinstance(meta, dict) and meta.get("exclude"):
            return True
        return self._excluded_by_glob(page.file.src_uri)

    def _excluded_by_glob(self, src: str) -> bool:
        return any(fnmatch.fnmatch(src, pattern) for pattern in self.config.exclude)

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if self.page_progress is not None:
            self.page_progress.close()
            self.page_progress = None
        if not self.config.enabled:
            return
        if self.dirty:
            self._add_unbuilt_pages()
        chunks = [c for src in self.page_order for c in self.page_chunks.get(src, [])]
        self.page_chunks = {src: self.page_chunks[src] for src in self.page_order
                            if src in self.page_chunks}
        out = Path(config.site_dir) / self.config.bundle_dir
        try:
            stats = self._indexer.write(out, chunks, pages=len(self.page_chunks))
            self._client.install(Path(config.site_dir), self.config.bundle_dir,
                                forward=browser_forward_pass(out))
            installed = installed_client(out)
            self.last_build = stats.with_files(self._indexer.footprint(out),
                                               client_bytes=installed.bytes if installed else 0)
        except ModelError as exc:
            raise model_problem(exc) from exc
        except BundleWriteError as exc:
            raise PluginError(f"semantic: {exc}") from exc
        except BundleError as exc:
            raise PluginError(f"semantic: option 'bundle_dir' is {self.config.bundle_dir!r}: "
                              f"{exc}") from exc
        except OSError as exc:  # the client's copy, on a disk that filled up meanwhile
            raise PluginError(f"semantic: could not write the search client into {out} "
                              f"({exc.strerror or exc}): free space on that disk (or make "
                              "it writable) and build again") from exc
        self._add_late_hints(out)
        if not chunks:
            why = (f"all {len(self.page_order)} pages are excluded or have no text"
                   if self.page_order else "the site has no pages")
            log.warning("no page was indexed (%s): the search box finds nothing. Check the "
                        "plugin's 'exclude' option and pages' 'search: {exclude: true}'", why)
        log.info(self.last_build.summary())

    def _add_unbuilt_pages(self) -> None:
        """A dirty build renders changed pages only: the others keep the sections the
        build before cut (under `mkdocs serve`, still in memory; else from the chunk
        cache), or the build stops rather than publish an index without them."""
        unknown = []
        for src in self.page_order:
            if src in self.rendered or src in self.page_chunks:
                continue
            chunks = self._indexer.unbuilt_chunks(src)
            if chunks is None:
                unknown.append(src)
            elif chunks and not self._excluded_by_glob(src):
                self.page_chunks[src] = chunks
        if unknown:
            why = ("the embedding cache is off (cache: false)" if not self.config.cache
                   else f"the cache in {self.config.cache_dir!r} does not hold their sections")
            more = f" and {len(unknown) - 1} more" if len(unknown) > 1 else ""
            raise PluginError(
                f"semantic: this --dirty build left {unknown[0]}{more} unbuilt, and {why}, "
                "so the search index would lose them: run `mkdocs build` without --dirty "
                "once (later dirty builds then keep every page)")

    def _add_late_hints(self, bundle: Path) -> None:
        """Every page written this build gets the hints known only now (hints.py); in a
        dirty build, also those written before. The site is built either way: a failure
        here costs readers a round trip, and says so."""
        try:
            hints = bundle_hints(bundle, pieces=self.pieces_hash)
        except (BundleError, OSError, KeyError, TypeError) as exc:
            log.warning("could not add the search hints to the pages (%s): a first query "
                        "takes a round trip more; rebuild to try again", exc)
            return
        rewrite_pages(self.written_pages, hints, others=self.site_pages if self.dirty else [])

    def on_build_error(self, *, error: Exception) -> None:
        """A failed build stops the chunks embedding in the background: the process
        ends without waiting for their queue. (MkDocs does not call this on Ctrl-C;
        then the few batches queued, early.AHEAD per thread, finish first.)"""
        if self.indexer is not None:
            self.indexer.stop_early()


def model_problem(exc: ModelError) -> PluginError:
    """The build's error for a model that cannot be used, naming the option it blames."""
    blame = f"option '{exc.option}': " if exc.option else ""
    return PluginError(f"semantic: {blame}{exc}")


def search_boost(meta: Mapping) -> float:
    """Material's page meta `search: {boost: N}`; 1 when absent or not a positive number."""
    search = meta.get("search")
    boost = search.get("boost") if isinstance(search, dict) else None
    try:
        value = float(boost) if boost is not None else 1.0
    except (TypeError, ValueError):
        log.warning("ignoring search.boost %r: it must be a positive number", boost)
        return 1.0
    return value if value > 0 else 1.0


def top_section(page) -> str:
    """Title of the page's top-level navigation section ("" at the top level)."""
    node = page.parent
    while node is not None and node.parent is not None:
        node = node.parent
    return node.title if node is not None else ""


def _existing_file(config_dir: Path, value: str, option: str) -> Path:
    path = (config_dir / value).resolve()
    if not path.is_file():
        raise PluginError(
            f"semantic: option '{option}' is {value!r}, but {path} does not exist: "
            "fix the path (relative to mkdocs.yml)"
            + (" or remove model.path to use the bundled model" if option == "model.path" else "")
        )
    return path
