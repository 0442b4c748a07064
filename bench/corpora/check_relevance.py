"""Check a generated corpus's relevance files against its MkDocs project.

Every URL must map to a page of the project (`man1/tar/` -> docs/man1/tar.md or
docs/man1/tar/index.md), and every query of the `-exact` file must occur
(case-insensitively) on every page listed for it. Runs no search.

    python bench/corpora/check_relevance.py manpages bench/.cache/man-pages/source
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

RELEVANCE = Path(__file__).resolve().parent.parent / "relevance"


def page_file(docs: Path, url: str) -> Path | None:
    stem = url.strip("/")
    for candidate in (docs / f"{stem}.md", docs / stem / "index.md"):
        if candidate.is_file():
            return candidate
    return None


def check(prefix: str, project: Path) -> list[str]:
    """The problems found; an empty list when all is well."""
    docs = project / "docs"
    problems = []
    for group in ("paraphrase", "exact"):
        path = RELEVANCE / f"{prefix}-{group}.tsv"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            query, tab, urls = line.partition("\t")
            if not tab or not urls.split() or len(urls.split()) > 3:
                problems.append(f"{path.name}:{number}: want `query<TAB>1-3 urls`")
                continue
            for url in urls.split():
                page = page_file(docs, url)
                if page is None:
                    problems.append(f"{path.name}:{number}: no page for {url}")
                elif group == "exact" and query.lower() not in page.read_text(
                        encoding="utf-8").lower():
                    problems.append(f"{path.name}:{number}: {query!r} not on {url}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefix", help="the relevance files' prefix, e.g. manpages")
    parser.add_argument("project", type=Path, help="the generated MkDocs project")
    args = parser.parse_args()
    problems = check(args.prefix, args.project)
    for problem in problems:
        print(problem)
    if not problems:
        print(f"{args.prefix}: every URL is a page, every exact query is on its pages")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
