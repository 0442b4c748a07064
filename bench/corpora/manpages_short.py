"""Build the `man-short` corpus: the man-pages corpus cut to one short page a command.

A site of thousands of tiny pages, like a one-command cheat-sheet site: each page of
bench/.cache/man-pages/source (made by manpages.py first when missing) keeps its title,
its NAME line and the start of its DESCRIPTION section (whole paragraphs until 60
words, at most 120 words), as `## Description`. Options, examples and everything else
are left out, so the identifier queries of manpages-exact.tsv mostly lose their terms;
the set uses manpages-paraphrase.tsv only.

    python bench/corpora/manpages_short.py [--out bench/.cache/man-short/source]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CACHE, log

NAME = "man-short"
LONG = CACHE / "man-pages" / "source"
DESCRIPTION = re.compile(r"^## DESCRIPTION\s*$(.*?)(?=^## |\Z)", re.M | re.S)
ENOUGH_WORDS = 60
MAX_WORDS = 120


def short_page(markdown: str) -> str:
    """Title and NAME line (all before the first `## ` heading), then the description's
    first paragraphs."""
    head = markdown.split("\n## ", 1)[0].rstrip()
    found = DESCRIPTION.search(markdown)
    if not found:
        return head + "\n"
    kept: list[str] = []
    words = 0
    for paragraph in re.split(r"\n\s*\n", found.group(1).strip()):
        if not paragraph.strip() or paragraph.lstrip().startswith("#"):
            continue
        kept.append(paragraph.strip())
        words += len(paragraph.split())
        if words >= ENOUGH_WORDS:
            break
    body = " ".join(" ".join(kept).split()[:MAX_WORDS])
    return f"{head}\n\n## Description\n\n{body}\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=CACHE / NAME / "source")
    args = parser.parse_args()
    if not (LONG / "mkdocs.yml").exists():
        log(f"{NAME}: making {LONG} first")
        subprocess.run([sys.executable, str(Path(__file__).with_name("manpages.py"))],
                       check=True)
    if args.out.exists():
        shutil.rmtree(args.out)
    (args.out / "docs").mkdir(parents=True)
    shutil.copy(LONG / "mkdocs.yml", args.out / "mkdocs.yml")
    pages = 0
    for page in sorted((LONG / "docs").rglob("*.md")):
        target = args.out / "docs" / page.relative_to(LONG / "docs")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(short_page(page.read_text(encoding="utf-8")), encoding="utf-8")
        pages += 1
    if (LONG / "SOURCES.md").exists():
        shutil.copy(LONG / "SOURCES.md", args.out / "SOURCES.md")
    log(f"{NAME}: {pages} pages in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
