"""A built page's own search box, read from its HTML, and the changes that hand it to
our client (after which the theme's own index is never downloaded).

- `material`: Material for MkDocs (its `md-search__form` and `__config`): Material
  renders our results, from our worker;
- `readthedocs`, `mkdocs`: the search plugin's box (`#rtd-search-form`,
  `#mkdocs-search-query`): our client answers in it, and the plugin's main.js (lunr
  and its index) goes;
- `zensical`: Zensical's header search button, `/` and Ctrl-K open our search. Its
  own search is a closed app fed by its whole index (search.json), so the button is
  taken from it: Zensical then mounts no search and fetches no index.

Each change is made on the tag alone, the rest of the page kept byte for byte, and
none does anything to a page it was made to before.
"""

from __future__ import annotations

import re

from .hints import material_config, script_json
from .theme import SEARCH_PLUGIN_SCRIPT, point_material_search, skip_material_index

BOXES = ("material", "readthedocs", "mkdocs", "zensical")
MARK = "data-semantic-search"
"""What opens our search on a click (js/src/ui/ui-dialog.js)."""

_ZENSICAL = re.compile(r"""<meta\b[^>]*\bname\s*=\s*["']?generator["']?[^>]*\bcontent\s*=\s*
                           ["']?zensical\b""", re.IGNORECASE | re.VERBOSE)
_ZENSICAL_BOX = re.compile(r"""<div\b[^>]*\bclass\s*=\s*["']?md-search["'\s>][^>]*>""")
_ZENSICAL_COMPONENT = re.compile(r"""\s+data-md-component\s*=\s*["']?search(?=["'\s/>])["']?""")
_ZENSICAL_LABEL = re.compile(r"""<label\b[^>]*\bfor\s*=\s*["']?__search(?=["'\s/>])[^>]*>""")
_MATERIAL_FORM = re.compile(r"<form\b[^>]*\bmd-search__form\b[^>]*>")
_READTHEDOCS = re.compile(r"""\bid\s*=\s*["']?rtd-search-form(?=["'\s/>])""")
_SEARCH_PLUGIN = re.compile(r"""\bid\s*=\s*["']?mkdocs-search-query(?=["'\s/>])""")
_MAIN_JS = re.compile(r"""[ \t]*<script\b[^>]*\bsrc\s*=\s*["']?[^"'\s>]*\b"""
                      + re.escape(SEARCH_PLUGIN_SCRIPT)
                      + r"""["']?[^>]*>\s*</script\s*>[ \t]*\n?""")
HIGHLIGHT = "search.highlight"
"""Zensical's feature that reads its index on every page (to mark `?h=` words)."""


def find_box(page_html: str) -> str | None:
    """Which of `BOXES` the page has, or None (a page without a box we know)."""
    if _ZENSICAL.search(page_html):
        return "zensical" if _ZENSICAL_BOX.search(page_html) else None
    if _MATERIAL_FORM.search(page_html) and material_config(page_html) is not None:
        return "material"
    if _READTHEDOCS.search(page_html):
        return "readthedocs"
    if _SEARCH_PLUGIN.search(page_html):
        return "mkdocs"
    return None


def hand_over(page_html: str, box: str, *, worker_url: str) -> str:
    """`page_html` with its `box` (of `find_box`) answered by our client: `worker_url`
    is our worker as Material's pages name it (theme.material_worker_url)."""
    if box == "material":
        return skip_material_index(point_material_search(page_html, worker_url))
    if box in ("mkdocs", "readthedocs"):
        return _MAIN_JS.sub("", page_html)
    if box == "zensical":
        return _zensical(page_html)
    raise ValueError(f"unknown search box {box!r}: one of {', '.join(BOXES)}")


def _zensical(page_html: str) -> str:
    """Zensical mounts its search on `[data-md-component=search]`, and "/" clicks the
    button inside it: without the attribute neither happens, and the button and the
    small screen's search icon (a label of the `__search` toggle) open ours. Its
    `search.highlight` feature would fetch the index on every page: it goes too."""
    box = _ZENSICAL_BOX.search(page_html)
    if box is not None:
        tag = _ZENSICAL_COMPONENT.sub("", box.group(0), count=1)
        page_html = page_html[:box.start()] + _marked(tag) + page_html[box.end():]
    page_html = _ZENSICAL_LABEL.sub(lambda label: _marked(label.group(0)), page_html)
    found = material_config(page_html)
    if found is not None:
        config, start, end = found
        features = config.get("features")
        if isinstance(features, list) and HIGHLIGHT in features:
            config["features"] = [name for name in features if name != HIGHLIGHT]
            page_html = page_html[:start] + script_json(config) + page_html[end:]
    return page_html


def _marked(tag: str) -> str:
    """An opening tag with our attribute, once."""
    if re.search(rf"\s{MARK}(?=[\s=/>])", tag):
        return tag
    end = len(tag) - (2 if tag.endswith("/>") else 1)
    return tag[:end].rstrip() + f" {MARK}" + tag[end:]
