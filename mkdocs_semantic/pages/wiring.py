"""`mkdocs-semantic index --ui`: the browser client wired into the pages of a site that
is already built, as the plugin wires it while MkDocs builds.

Every indexed page gets the plugin's tags (theme.page_tags: the meta tag with every
hint, and the loader), in place of any an earlier run wrote, and under `auto` its own
search box handed over (boxes.py). Run again, nothing changes.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from ..files import atomic_write
from .boxes import find_box, hand_over
from .hints import PageHints
from .theme import ClientAssets, add_to_head, material_worker_url, page_tags

log = logging.getLogger(__name__)

PAGE_UIS = ("auto", "dialog")
"""The `--ui` values that wire pages (`none` writes the bundle alone)."""
# The tags theme.page_tags writes, as it writes them: an earlier run's, replaced.
_OUR_TAGS = re.compile(r'<meta name="semantic-search" [^>]*>\n'
                       r'(?:<script type="module" src="[^"]*/client/[0-9a-f]{12}/'
                       r'(?:auto|material)\.js"></script>\n)?')


@dataclass(frozen=True)
class Wiring:
    """What every page is given: `ui` (`auto` or `dialog`), where the bundle is (a folder
    of the site), the client copied there and the bundle's hints."""

    ui: str
    bundle_dir: str
    assets: ClientAssets
    hints: PageHints


@dataclass(frozen=True)
class WiredSite:
    """What `wire_pages` did: pages changed, pages already as wired, and one line for
    each page it could not rewrite (each also logged as a warning)."""

    changed: int
    unchanged: int
    problems: tuple[str, ...]


def wire_page(page_html: str, page_url: str, wiring: Wiring) -> str | None:
    """`page_html` wired to our search; None for a page without a `</head>`."""
    bare = _OUR_TAGS.sub("", page_html)
    box = find_box(bare) if wiring.ui == "auto" else None
    if box is not None:
        worker = material_worker_url(page_url=page_url, bundle_dir=wiring.bundle_dir,
                                     assets=wiring.assets, hints=wiring.hints)
        bare = hand_over(bare, box, worker_url=worker)
    tags = page_tags(page_url=page_url, bundle_dir=wiring.bundle_dir, assets=wiring.assets,
                     ui=box or "dialog", hints=wiring.hints)
    tagged = add_to_head(bare, tags)
    return None if tagged == bare else tagged


def wire_pages(pages: list[tuple[Path, str]], wiring: Wiring) -> WiredSite:
    """Wire each of `pages` ((file, URL) pairs), reading and writing bytes: a page's
    file is replaced whole, and only when its bytes change. A page that cannot be
    rewritten is left as it is, with a warning naming it."""
    changed = unchanged = 0
    problems = []
    for path, url in pages:
        try:
            if _wire_file(path, url, wiring):
                changed += 1
            else:
                unchanged += 1
        except UnicodeDecodeError:
            problems.append(f"{path}: it is not UTF-8 text")
        except _NoHead:
            problems.append(f"{path}: it has no </head> to put the search tags in")
        except OSError as exc:
            problems.append(f"{path}: it could not be rewritten ({exc.strerror or exc}); "
                            "make it writable and run index again")
        else:
            continue
        log.warning("no search in %s", problems[-1])
    return WiredSite(changed=changed, unchanged=unchanged, problems=tuple(problems))


class _NoHead(ValueError):
    """A page with no </head>."""


def _wire_file(path: Path, url: str, wiring: Wiring) -> bool:
    """Whether the page's file changed."""
    data = path.read_bytes()
    wired = wire_page(data.decode("utf-8"), url, wiring)
    if wired is None:
        raise _NoHead(path)
    new = wired.encode("utf-8")
    if new == data:
        return False
    atomic_write(path.resolve(), new, shared=True)
    return True
