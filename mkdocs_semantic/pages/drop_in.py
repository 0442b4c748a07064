"""The one-line drop-in for a site no plugin built: `<bundle_dir>/ui.js`, a module that
gives the page the meta tag the plugin would have written (where the bundle is, the
bundle's hints) and loads the client's dialog. A page needs one line in its <head>:

    <script type="module" src="/semantic/ui.js"></script>

It is written by `mkdocs-semantic index --ui script`, anew at every run (the hints
change with the bundle); no page is rewritten.
"""

from __future__ import annotations

import json
import posixpath
from pathlib import Path

from ..bundle.folder import CLIENT_FOLDER, DROP_IN
from ..files import atomic_write
from .hints import PageHints
from .theme import ClientAssets, loader_of

HEADER = "// mkdocs-semantic-search: the one-line drop-in "


def drop_in_module(assets: ClientAssets, hints: PageHints) -> str:
    """The text of ui.js for the client `assets` and the bundle's `hints`: the bundle is
    the folder ui.js sits in, the site root the folder above it."""
    loader = "./" + posixpath.join(CLIENT_FOLDER, assets.hash, loader_of("dialog"))
    return f"""{HEADER}(client {assets.hash})
// <script type="module" src=".../{DROP_IN}"></script> in a page's <head> adds semantic
// search in a dialog (a search button, "/" and Ctrl-K). Written by mkdocs-semantic index.
if (!document.querySelector('meta[name="semantic-search"]')) {{
  const meta = document.createElement("meta");
  meta.name = "semantic-search";
  meta.content = new URL("manifest.json", import.meta.url).href;
  Object.assign(meta.dataset, {json.dumps({"ui": "dialog", **dict(hints.items())})});
  meta.dataset.siteRoot = new URL("../", import.meta.url).href;
  document.head.append(meta);
}}
import({json.dumps(loader)});
"""


def write_drop_in(bundle: Path, assets: ClientAssets, hints: PageHints) -> Path:
    """Write ui.js into the `bundle` folder (beside the installed client); its path."""
    path = bundle / DROP_IN
    text = drop_in_module(assets, hints).encode("utf-8")
    if not (path.is_file() and path.read_bytes() == text):
        atomic_write(path, text, shared=True)
    return path
