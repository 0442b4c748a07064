"""Semantic search in the browser on a real site: bytes and milliseconds.

Builds ../shared/corpora/fastapi-docs (Material theme) with `plugins: [search,
semantic]` into a temporary folder, serves it on 127.0.0.1 under /fastapi/ and
drives headless Chromium with js/tools/drive.mjs (playwright-core, Debian's
chromium, a fresh profile, so the HTTP cache starts empty). Records:

- bytes fetched on page load, before the search box gets focus;
- bytes and milliseconds from typing the first query to Material showing results;
- warm query latency (the public `search()` API: embed + exact scan in the worker,
  round trip included) over the 50 queries of bench/relevance/.

Writes bench/results/browser.{json,md}. Needs what `scripts/setup` installs.

    python bench/browser.py [--site ../shared/corpora/fastapi-docs]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DRIVER = REPO / "js" / "tools" / "drive.mjs"
QUERY_FILES = ("fastapi-paraphrase.tsv", "fastapi-exact.tsv")
PREFIX = "/fastapi/"


def load_queries() -> list[str]:
    queries = []
    for name in QUERY_FILES:
        for line in (HERE / "relevance" / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                queries.append(line.split("\t", 1)[0])
    return queries


def build_site(source: Path, work: Path, cache_dir: Path) -> tuple[Path, float]:
    project = work / "site-src"
    shutil.copytree(source, project)
    config = (project / "mkdocs.yml").read_text(encoding="utf-8")
    if "\n  - search\n" not in config:
        raise SystemExit("expected '  - search' under plugins: in the site's mkdocs.yml")
    semantic = f"\n  - search\n  - semantic:\n      cache_dir: {json.dumps(str(cache_dir))}\n"
    (project / "semantic.yml").write_text(config.replace("\n  - search\n", semantic),
                                          encoding="utf-8")
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", "semantic.yml", "-d", "site"],
        cwd=project, capture_output=True, text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    if proc.returncode != 0:
        raise SystemExit(f"mkdocs build failed:\n{proc.stderr[-3000:]}")
    return project / "site", time.perf_counter() - started


def drive(plan: dict, work: Path) -> dict:
    plan_file = work / "plan.json"
    plan_file.write_text(json.dumps(plan), encoding="utf-8")
    proc = subprocess.run(["node", str(DRIVER), "bench", str(plan_file)], cwd=DRIVER.parent,
                          capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise SystemExit(f"{DRIVER.name} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=REPO.parent / "shared/corpora/fastapi-docs")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    if not (args.site / "mkdocs.yml").exists():
        parser.error(f"no mkdocs.yml in {args.site}: pass --site")
    queries = load_queries()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        site, build_seconds = build_site(args.site, work, HERE / ".cache" / "browser")
        manifest = json.loads((site / "semantic" / "manifest.json").read_text(encoding="utf-8"))
        seen = drive({"site": str(site), "prefix": PREFIX, "theme": "material", "start": "",
                      "bundleDir": "semantic", "query": queries[0], "queries": queries}, work)
    warm = np.asarray(seen["warm"]["ms"])
    figures = {
        "site": "fastapi-docs",
        "pages": manifest["counts"]["pages"],
        "chunks": manifest["counts"]["chunks"],
        "build_seconds": round(build_seconds, 1),
        "page_load": seen["load"],
        "first_result": {**seen["cold"], "ms": round(seen["cold"]["ms"])},
        "warm_queries": {
            "count": int(warm.size),
            "p50_ms": round(float(np.percentile(warm, 50)), 1),
            "p95_ms": round(float(np.percentile(warm, 95)), 1),
            "max_ms": round(float(warm.max()), 1),
        },
        "first_query": queries[0],
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "browser.json").write_text(json.dumps(figures, indent=2) + "\n")
    (args.out / "browser.md").write_text(render(figures))
    print(render(figures))
    return 0


def render(f: dict) -> str:
    load, first, warm = f["page_load"], f["first_result"], f["warm_queries"]
    files = "\n".join(f"| `{path.split('/semantic/', 1)[-1]}` | {size:,} |"
                      for path, size in first["files"])
    return f"""# Browser search on fastapi-docs

Reproduce: `python bench/browser.py` (after `scripts/setup`). One run in headless
Debian Chromium on this machine, site served from 127.0.0.1 (no network latency,
no compression), Material theme, {f['pages']} pages, {f['chunks']} chunks.

| what | figure |
|---|---|
| bytes on page load, before focus (whole page) | {load['bytes']:,} |
| of which semantic search | {load['semanticBytes']:,} |
| bytes from first query to first result | {first['bytes']:,} |
| ms from typing the first query to results (cold cache) | {first['ms']:,} |
| warm query latency p50 / p95 ({warm['count']} queries) | {warm['p50_ms']} / {warm['p95_ms']} ms |

First query: "{f['first_query']}". Files fetched for it:

| file | bytes |
|---|---|
{files}
"""


if __name__ == "__main__":
    sys.exit(main())
