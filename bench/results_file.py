"""Where every benchmark records its figures: bench/results/<name>.json and .md."""

from __future__ import annotations

import json
from pathlib import Path


def write_results(out: Path, name: str, figures: dict, markdown: str) -> None:
    """Write `figures` as <name>.json and `markdown` as <name>.md into `out`, and print
    the markdown."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(figures, indent=2) + "\n")
    (out / f"{name}.md").write_text(markdown)
    print(markdown)
