"""The browser client: its built files, copying them into a site, wiring them into pages.

`js/` builds the client into `assets/` (`npm run build`), with `client.json`
naming the files and a hash of them all. A build copies them to
`<site>/<bundle_dir>/client/<hash>/`, so browsers may cache them forever, writes
`<bundle_dir>/semantic.js`, a stable entry point for the JavaScript API, and adds
to every page a `<meta name="semantic-search">` (where the manifest and the site
root are, relative to the page, and the hints of hints.py) and the module script that
reads it.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..bundle.folder import API_ENTRY, CLIENT_FOLDER, claim_bundle_dir
from .hints import NO_HINTS, WORKER, PageHints, material_config, script_json

ASSETS = Path(__file__).parent.parent / "assets"
CLIENT_JSON = "client.json"
UI_CHOICES = ("auto", "dialog", "none")
_HEAD_END = re.compile(r"</head\s*>", re.IGNORECASE)
# Material's search form: `<form class="md-search__form" name="search">`.
_MATERIAL_FORM = re.compile(r"<form\b[^>]*\bmd-search__form\b[^>]*>")
_NAME_SEARCH = re.compile(r"""\s+name\s*=\s*(?:"search"|'search'|search(?=[\s>/]))""")
# Themes whose search box is the search plugin's (#mkdocs-search-query): the plugin's
# main.js loads lunr and the index into it on every page.
SEARCH_PLUGIN_BOXES = ("mkdocs", "readthedocs")
SEARCH_PLUGIN_SCRIPT = "search/main.js"
# The client's files for running the model, copied only into a site whose browsers run it
# (`ClientAssets.install`'s `forward`): the forward pass of its own (`model-`), or
# onnxruntime-web's WebAssembly runtime (14 MB) and the code that runs it (`ort-`).
FORWARD_PREFIXES = {"bert": "model-", "onnx": "ort-"}


class ClientError(RuntimeError):
    """The built client is missing or incomplete; the message says how to build it."""


@dataclass(frozen=True)
class ClientAssets:
    """The built client files in the package."""

    root: Path
    hash: str
    files: tuple[str, ...]
    entry: str
    """The site's stable API entry as built for this client (client.json `entry`)."""

    @classmethod
    def load(cls, root: Path = ASSETS) -> ClientAssets:
        listing = root / CLIENT_JSON
        try:
            data = json.loads(listing.read_text(encoding="utf-8"))
            assets = cls(root=root, hash=str(data["hash"]), files=tuple(data["files"]),
                         entry=str(data["entry"]))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ClientError(
                f"the browser client is not built ({listing} is missing or unreadable: {exc}). "
                "In a source checkout run `npm ci && npm run build` in js/ (Node.js 20+ with "
                "npm), or reinstall mkdocs-semantic-search"
            ) from exc
        missing = [name for name in (*assets.files, assets.entry)
                   if not (root / name).is_file()]
        if missing:
            raise ClientError(
                f"the browser client in {root} is incomplete (missing {', '.join(missing)}): "
                "run `npm run build` in js/, or reinstall mkdocs-semantic-search"
            )
        return assets

    def folder(self, bundle_dir: str) -> str:
        """Where the client goes in the site, relative to the site root."""
        return posixpath.join(bundle_dir.strip("/"), CLIENT_FOLDER, self.hash)

    def install(self, site_dir: Path, bundle_dir: str, *, forward: str | None) -> Path:
        """Copy the client into the site (unchanged files are kept) and drop older copies.

        `forward`: how the site's browsers run its model (bundle/reader.py
        `browser_forward_pass`: `bert`, `onnx` or None), whose files alone are copied
        of FORWARD_PREFIXES'. Raises BundleError, writing nothing, if the bundle folder
        holds files this package did not write.
        """
        claim_bundle_dir(site_dir / bundle_dir)
        target = site_dir / self.folder(bundle_dir)
        target.mkdir(parents=True, exist_ok=True)
        unwanted = tuple(p for kind, p in FORWARD_PREFIXES.items() if kind != forward)
        wanted = [name for name in self.files if not name.startswith(unwanted)]
        for name in wanted:
            source, dest = self.root / name, target / name
            dest.parent.mkdir(parents=True, exist_ok=True)  # licenses/
            if not (dest.is_file() and dest.stat().st_size == source.stat().st_size
                    and dest.stat().st_mtime >= source.stat().st_mtime):
                shutil.copy2(source, dest)
        for stale in set(self.files) - set(wanted):  # left by a build of another encoder
            (target / stale).unlink(missing_ok=True)
        for old in target.parent.iterdir():
            if old != target:  # claim_bundle_dir found only client copies here
                shutil.rmtree(old)
        # the page API itself, one module for an import of its stable name (auto.js
        # imports it too, so a page's script and an API user share it)
        entry = site_dir / bundle_dir / API_ENTRY
        data = (self.root / self.entry).read_bytes()
        if not (entry.is_file() and entry.read_bytes() == data):
            entry.write_bytes(data)
        return target


def choose_ui(option: str, *, theme: str | None, has_search_box: bool) -> str:
    """`mkdocs`, `readthedocs` or `material` (take over the theme's search box),
    `dialog`, or `none`."""
    if option != "auto":
        return option
    if has_search_box and theme in ("material", *SEARCH_PLUGIN_BOXES):
        return theme
    return "dialog"


def without_search_plugin_script(scripts: list) -> list:
    """`extra_javascript` without the search plugin's main.js (lunr and its index).

    Entries may be strings or MkDocs' ExtraScriptValue, whose str() is its path.
    """
    return [script for script in scripts if str(script) != SEARCH_PLUGIN_SCRIPT]


def relative_url(target: str, page_url: str) -> str:
    """`target` (relative to the site root) as seen from the page at `page_url`."""
    page_dir = page_url if page_url.endswith("/") else posixpath.dirname(page_url)
    rel = posixpath.relpath(target or ".", page_dir.strip("/") or ".")
    return rel + "/" if target.endswith("/") or not target else rel


def loader_of(ui: str) -> str:
    """The client file every page loads: Material's pages their own (Material renders
    our results), the other themes' `auto.js` (our own search box or dialog)."""
    return "material.js" if ui == "material" else "auto.js"


def page_tags(*, page_url: str, bundle_dir: str, assets: ClientAssets, ui: str,
              hints: PageHints = NO_HINTS) -> str:
    """What every page gets in its <head>: where the bundle is, the `hints` that name
    the files a first query reads first, and (unless `ui` is `none`) the loader that
    wires the search box."""
    manifest = relative_url(posixpath.join(bundle_dir.strip("/"), "manifest.json"), page_url)
    root = relative_url("", page_url)
    loader = relative_url(posixpath.join(assets.folder(bundle_dir), loader_of(ui)), page_url)
    named = "".join(f' data-{key}="{_attr(value)}"' for key, value in hints.items())
    meta = (f'<meta name="semantic-search" content="{_attr(manifest)}" '
            f'data-site-root="{_attr(root)}" data-ui="{_attr(ui)}"{named}>\n')
    if ui == "none":
        return meta
    return meta + f'<script type="module" src="{_attr(loader)}"></script>\n'


def _attr(value: str) -> str:
    return html.escape(value, quote=True)


def add_to_head(page_html: str, tags: str) -> str:
    match = _HEAD_END.search(page_html)
    if match is None:
        return page_html
    return page_html[: match.start()] + tags + page_html[match.start():]


def material_worker_url(*, page_url: str, bundle_dir: str, assets: ClientAssets,
                        hints: PageHints = NO_HINTS) -> str:
    """Material's `__config.search` value: our worker, told where the manifest is and
    the `hints` that name the files a first query reads first."""
    folder = assets.folder(bundle_dir)
    manifest = posixpath.relpath(posixpath.join(bundle_dir.strip("/"), "manifest.json"), folder)
    return relative_url(posixpath.join(folder, WORKER), page_url) + \
        f"?manifest={manifest}" + "".join(f"&{key}={value}" for key, value in hints.items())


def skip_material_index(page_html: str) -> str:
    """Keep Material from downloading its own search index.

    Material fetches search/search_index.json on every page load when the page has a
    form named `search` (`document.forms.namedItem("search")`), and hands the index to
    its search worker. Our worker needs none of it: without the name Material fetches
    nothing, and the form still works (Material finds it by its components).
    """
    match = _MATERIAL_FORM.search(page_html)
    if match is None:
        return page_html
    tag = _NAME_SEARCH.sub("", match.group(0), count=1)
    return page_html[: match.start()] + tag + page_html[match.end():]


def point_material_search(page_html: str, worker_url: str) -> str:
    """Point Material's search worker (the `search` key of `__config`) at ours."""
    found = material_config(page_html)
    if found is None:
        return page_html
    config, start, end = found
    config["search"] = worker_url
    return page_html[:start] + script_json(config) + page_html[end:]
