"""Where every benchmark records its figures: bench/results/<name>.json and .md.

The committed JSON holds the figures a results file is read for. Raw per-request
lists (`RAW_KEYS`: each file a browser's warm pass fetched, thousands of entries) go
with the whole figures to the git-ignored `bench/.cache/results/<name>.json`; the
committed file keeps their summary beside them (`warm_parts`: bytes and files by kind).
"""

from __future__ import annotations

import json
from pathlib import Path

DETAIL = Path(__file__).resolve().parent / ".cache" / "results"
"""Where the whole figures of a run go, raw lists included (git-ignored)."""
RAW_KEYS = frozenset({"warm_files"})
"""Keys of raw per-request lists, left out of the committed figures at any depth."""


def committed(figures):
    """`figures` without the `RAW_KEYS` entries, at any depth."""
    if isinstance(figures, dict):
        return {k: committed(v) for k, v in figures.items() if k not in RAW_KEYS}
    if isinstance(figures, list):
        return [committed(v) for v in figures]
    return figures


def has_raw(figures) -> bool:
    if isinstance(figures, dict):
        return any(k in RAW_KEYS or has_raw(v) for k, v in figures.items())
    if isinstance(figures, list):
        return any(has_raw(v) for v in figures)
    return False


def write_detail(name: str, text: str) -> Path:
    """`text`, the whole figures of `name` as JSON, into `DETAIL`."""
    DETAIL.mkdir(parents=True, exist_ok=True)
    path = DETAIL / f"{name}.json"
    path.write_text(text, encoding="utf-8")
    return path


def write_results(out: Path, name: str, figures: dict, markdown: str) -> None:
    """Write `figures` as <name>.json (without raw lists: `committed`; the whole figures
    into `DETAIL` when they have any) and `markdown` as <name>.md into `out`, and print
    the markdown."""
    out.mkdir(parents=True, exist_ok=True)
    if has_raw(figures):
        write_detail(name, json.dumps(figures, indent=2) + "\n")
    (out / f"{name}.json").write_text(json.dumps(committed(figures), indent=2) + "\n")
    (out / f"{name}.md").write_text(markdown)
    print(markdown)
