"""Page-level relevance on fastapi-docs: lexical, vector and hybrid, side by side.

Builds ../shared/corpora/fastapi-docs with `plugins: [search, semantic]` (or
reuses a built site with --site-dir), runs the queries of
bench/relevance/fastapi-{paraphrase,exact}.tsv in each mode and reports MRR@10
and Recall@5 over pages (a page's first section counts; later ones are skipped).
Writes bench/results/relevance.{json,md}.

    python bench/relevance.py [--site-dir SITE]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from results_file import write_results  # bench/results_file.py

from mkdocs_semantic.constants import SEARCH_MODES as MODES
from mkdocs_semantic.search.searcher import Searcher

HERE = Path(__file__).resolve().parent
SETS = ("paraphrase", "exact")


def read_queries(path: Path) -> list[tuple[str, list[str]]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            query, _, urls = line.partition("\t")
            rows.append((query, urls.split()))
    return rows


def ranked_pages(searcher: Searcher, query: str, mode: str) -> list[str]:
    pages: list[str] = []
    for result in searcher.search(query, top_k=100, mode=mode):
        if result.url not in pages:
            pages.append(result.url)
    return pages


def largest_page(searcher: Searcher) -> str:
    urls = [c.url for c in searcher.bundle.chunks]
    return max(set(urls), key=urls.count)


def measure(searcher: Searcher, queries: list[tuple[str, list[str]]], mode: str) -> dict:
    reciprocal, recall, misses = [], [], []
    largest, largest_in_top5 = largest_page(searcher), 0
    for query, expected in queries:
        pages = ranked_pages(searcher, query, mode)
        largest_in_top5 += largest in pages[:5] and largest not in expected
        first = next((i for i, p in enumerate(pages[:10], 1) if p in expected), None)
        reciprocal.append(1 / first if first else 0.0)
        recall.append(len(set(pages[:5]) & set(expected)) / len(expected))
        if first is None or first > 5:
            misses.append({"query": query, "expected": expected, "got": pages[:3]})
    n = len(queries)
    return {"mrr@10": round(sum(reciprocal) / n, 4), "recall@5": round(sum(recall) / n, 4),
            "queries": n, "largest_page": largest, "largest_page_in_top5": largest_in_top5,
            "misses": misses}


def build_site(corpus: Path, workdir: Path) -> Path:
    project = workdir / "fastapi"
    shutil.copytree(corpus, project)
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace(
        "\n  - search\n", "\n  - search\n  - semantic\n"), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config), "-d",
                    str(project / "site")], check=True)
    return project / "site"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path,
                        default=HERE.parent.parent / "shared/corpora/fastapi-docs")
    parser.add_argument("--site-dir", type=Path, help="a site already built with the plugin")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    queries = {name: read_queries(HERE / "relevance" / f"fastapi-{name}.tsv") for name in SETS}
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site_dir or build_site(args.corpus, Path(tmp))
        searcher = Searcher.open(site)
        sizes = {
            "lexical_index_bytes": searcher.bundle.size_of("lexical/"),
            "mkdocs_search_index_bytes": (site / "search" / "search_index.json").stat().st_size,
        }
        results = {
            mode: {name: measure(searcher, rows, mode) for name, rows in
                   [*queries.items(), ("all", [r for rows in queries.values() for r in rows])]}
            for mode in MODES
        }
    results["sizes"] = sizes
    write_results(args.out, "relevance", results, render(results))
    return 0


def render(results: dict) -> str:
    rows = []
    for mode in ("lexical", "vector", "hybrid"):
        cells = []
        for name in (*SETS, "all"):
            r = results[mode][name]
            cells += [f"{r['mrr@10']:.3f}", f"{r['recall@5']:.3f}"]
        rows.append(f"| {mode} | " + " | ".join(cells) + " |")
    misses = "\n".join(
        f"- {mode}: \"{m['query']}\" expected {' '.join(m['expected'])}, got "
        f"{', '.join(m['got']) or 'nothing'}"
        for mode in ("hybrid",) for m in results[mode]["all"]["misses"]
    ) or "- none"
    count = results["hybrid"]["all"]["queries"]
    largest = results["hybrid"]["all"]["largest_page"]
    crowding = ", ".join(f"{mode} {results[mode]['all']['largest_page_in_top5']}"
                         for mode in ("lexical", "vector", "hybrid"))
    sizes = results["sizes"]
    return f"""# Relevance on fastapi-docs (page level)

Reproduce: `python bench/relevance.py`. {count} queries from bench/relevance/:
paraphrases that avoid the target's heading words, and identifiers or exact phrases.

| mode | paraphrase MRR@10 | paraphrase R@5 | exact MRR@10 | exact R@5 | all MRR@10 | all R@5 |
|---|---|---|---|---|---|---|
{chr(10).join(rows)}

Queries with the site's largest page (`{largest}`, not expected) in the top 5:
{crowding} of {count}.

Lexical index: {sizes['lexical_index_bytes']:,} bytes, beside {sizes['mkdocs_search_index_bytes']:,}
bytes for MkDocs' own `search/search_index.json` of the same site.

Hybrid queries whose expected page is not in the top 5:
{misses}
"""


if __name__ == "__main__":
    sys.exit(main())
