"""A built page's own search box, read from its HTML, and the changes that hand it to
our client (after which the theme's own index is never downloaded).

- `material`: Material for MkDocs (its `md-search__form` and `__config`): Material
  renders our results, from our worker;
- `readthedocs`, `mkdocs`: the search plugin's box (`#rtd-search-form`,
  `#mkdocs-search-query`): our client answers in it, and the plugin's main.js (lunr
  and its index) goes.

Each change is made on the tag alone, the rest of the page kept byte for byte, and
none does anything to a page it was made to before.
"""

from __future__ import annotations

import re

from .hints import material_config
from .theme import SEARCH_PLUGIN_SCRIPT, point_material_search, skip_material_index

BOXES = ("material", "readthedocs", "mkdocs")
_MATERIAL_FORM = re.compile(r"<form\b[^>]*\bmd-search__form\b[^>]*>")
_READTHEDOCS = re.compile(r"""\bid\s*=\s*["']?rtd-search-form(?=["'\s/>])""")
_SEARCH_PLUGIN = re.compile(r"""\bid\s*=\s*["']?mkdocs-search-query(?=["'\s/>])""")
_MAIN_JS = re.compile(r"""[ \t]*<script\b[^>]*\bsrc\s*=\s*["']?[^"'\s>]*\b"""
                      + re.escape(SEARCH_PLUGIN_SCRIPT)
                      + r"""["']?[^>]*>\s*</script\s*>[ \t]*\n?""")


def find_box(page_html: str) -> str | None:
    """Which of `BOXES` the page has, or None (a page without a box we know)."""
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
    raise ValueError(f"unknown search box {box!r}: one of {', '.join(BOXES)}")
