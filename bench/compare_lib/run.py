"""Compare this plugin with Material's built-in search (lunr) and Pagefind on fastapi-docs.

Run through `bench/compare`, which installs what this needs first. Builds
../shared/corpora/fastapi-docs at 1x, 4x and 16x its size (see sites.py) four
ways, times every build, measures every system in headless Chromium against the
site served from 127.0.0.1 (browser.mjs), scores every system on the queries of
bench/relevance/ with bench/relevance.py's page-level MRR@10 and Recall@5, and
writes bench/results/compare.{json,md} (and compare.png, drawn by plot.py).

    python bench/compare_lib/run.py [--scales 1,4,16] [--keep-cache]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent
REPO = BENCH.parent
sys.path.insert(0, str(HERE))

import report  # noqa: E402
import sites  # noqa: E402

# Bound by snapshot_package(): the plugin as it was when the run started.
relevance = semantic_client = Searcher = MODES = None

PREFIX = "/fastapi/"
STARTED = time.perf_counter()
# Files that belong to a search system, by URL path (the rest is the page itself).
SEARCH_PATHS = ("/search/", "/assets/javascripts/workers/", "/assets/javascripts/lunr/",
                "/semantic/", "/pagefind/")


def say(message: str) -> None:
    print(f"[compare {time.perf_counter() - STARTED:6.0f} s] {message}", file=sys.stderr,
          flush=True)


def snapshot_package(work: Path) -> Path:
    """Copy the package (code, model, built client) and import it from the copy.

    A run takes a quarter of an hour; rebuilding the client or editing the code in
    the meantime must not mix two versions into one run (a build that copies client
    files listed a moment earlier fails). Every build and the Python searcher use the
    copy, through PYTHONPATH, which comes before the editable install's finder.
    """
    global relevance, semantic_client, Searcher, MODES
    target = work / "package"
    source = REPO / "mkdocs_semantic"
    for attempt in range(10):
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(source, target / "mkdocs_semantic",
                        ignore=shutil.ignore_patterns("__pycache__"))
        if client_consistent(target / "mkdocs_semantic" / "assets"):
            break
        say(f"the client in {source.name}/assets is being rebuilt; copying again ({attempt + 1})")
        time.sleep(3)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(target), *filter(None, [os.environ.get("PYTHONPATH")])])
    sys.path.insert(0, str(target))
    sys.path.insert(1, str(BENCH))
    import relevance as relevance_module  # bench/relevance.py: queries and page-level scoring

    from mkdocs_semantic import client as client_module
    from mkdocs_semantic.search import MODES as modes
    from mkdocs_semantic.search import Searcher as searcher_class

    relevance, semantic_client, Searcher, MODES = (relevance_module, client_module,
                                                   searcher_class, modes)
    return target


def client_consistent(assets: Path) -> bool:
    """No client at all, or every file its client.json lists: not half a rebuild."""
    listing = assets / "client.json"
    if not listing.exists():
        return True
    try:
        files = json.loads(listing.read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError):
        return False
    return all((assets / name).is_file() for name in files)


def client_status() -> dict:
    """Is the plugin's browser client built into the package? Checked at run time."""
    if os.environ.get("COMPARE_PRETEND_NO_CLIENT") == "1":
        return {"present": False, "reason": "COMPARE_PRETEND_NO_CLIENT=1 was set"}
    try:
        assets = semantic_client.ClientAssets.load()
    except semantic_client.ClientError as exc:
        return {"present": False, "reason": str(exc)}
    return {"present": True, "hash": assets.hash, "files": len(assets.files)}


class Ranked:
    """Rankings seen in the browser, shaped like a Searcher for bench/relevance.py."""

    def __init__(self, queries: list[str], lists: list[list[str]], bundle) -> None:
        self.lists = dict(zip(queries, lists))
        self.bundle = bundle

    def search(self, query: str, top_k: int = 100, mode: str = "") -> list:
        return [SimpleNamespace(url=url) for url in self.lists.get(query, [])[:top_k]]


def score(searcher, sets: dict, mode: str = "hybrid") -> dict:
    """bench/relevance.py's measure() on each query set and on all of them."""
    rows = {**sets, "all": [r for rows in sets.values() for r in rows]}
    out = {}
    for name, queries in rows.items():
        m = relevance.measure(searcher, queries, mode)
        out[name] = {"mrr@10": m["mrr@10"], "recall@5": m["recall@5"], "queries": m["queries"]}
        if name == "all":
            out[name]["misses"] = len(m["misses"])
    return out


class Gzip:
    """gzip -6 sizes of served files (what a host that compresses responses would send)."""

    def __init__(self) -> None:
        self.memo: dict[Path, int] = {}

    def __call__(self, root: Path, files: list) -> int:
        total = 0
        for path, size in files:
            local = root / path[len(PREFIX):] if path.startswith(PREFIX) else None
            if local is not None and local.is_dir():
                local = local / "index.html"
            if local is None or not local.is_file():
                total += size
                continue
            if local not in self.memo:
                raw = local.read_bytes()
                self.memo[local] = min(len(raw), len(gzip.compress(raw, 6)))
            total += self.memo[local]
        return total


def browse(plan: dict, work: Path, limit_s: int) -> dict:
    plan = {**plan, "prefix": PREFIX, "limitMs": limit_s * 1000}
    plan_file = work / "plan.json"
    plan_file.write_text(json.dumps(plan), encoding="utf-8")
    proc = subprocess.run(["node", str(HERE / "browser.mjs"), str(plan_file)], cwd=BENCH,
                          capture_output=True, text=True, timeout=limit_s + 60)
    for line in proc.stderr.splitlines():
        say(line)
    if proc.returncode != 0:
        raise SystemExit(f"browser.mjs failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def browser_figures(seen: dict, root: Path, gz: Gzip) -> dict:
    """Bytes and milliseconds of one system's browser run."""
    if "failed" in seen:
        return {"failed": seen["failed"]}
    load, cold, warm = seen["load"], seen["cold"], seen["warm"]
    search_load = [f for f in load["files"] if any(p in f[0] for p in SEARCH_PATHS)]
    return {
        "load_bytes": load["bytes"],
        "load_gzip_bytes": gz(root, load["files"]),
        "load_requests": load["requests"],
        "load_search_bytes": sum(b for _, b in search_load),
        "load_search_files": search_load,
        "cold_ms": round(cold["ms"], 1),
        "cold_bytes": cold["bytes"],
        "cold_gzip_bytes": gz(root, cold["files"]),
        "cold_requests": cold["requests"],
        "cold_files": cold["files"],
        "warm_p50_ms": round(percentile(warm["ms"], 50), 2),
        "warm_p95_ms": round(percentile(warm["ms"], 95), 2),
        "warm_max_ms": round(max(warm["ms"]), 2),
        # Pagefind: search() alone, before data() of the top 10.
        **({"warm_search_only_p50_ms": round(percentile(warm["searchMs"], 50), 2),
            "warm_search_only_p95_ms": round(percentile(warm["searchMs"], 95), 2)}
           if warm.get("searchMs") else {}),
        "warm_queries": len(warm["ms"]),
        "warm_bytes": warm["bytes"],
        "warm_files": warm.get("files", []),
        "warm_zero_result_queries": sum(1 for n in warm["counts"] if n == 0),
        "rendered_list_disagrees_with_worker": warm.get("disagree", 0),
        "not_found": seen.get("notFound", [])[:8],
        # Blocked web fonts and the corpus' missing images (404, listed in not_found)
        # are the same for every system; anything else is kept.
        "errors": [e for e in seen["errors"] if "ERR_NAME_NOT_RESOLVED" not in e
                   and "status of 404" not in e][:5],
        "blocked_external_requests": sum(1 for e in seen["errors"]
                                         if "ERR_NAME_NOT_RESOLVED" in e),
        "browser_seconds": round(seen["seconds"], 1),
    }


def semantic_build(project: Path, config: str, cache_dir: Path) -> sites.Build:
    """`mkdocs build` with the plugin; its facts say whether it fitted the query table
    (the table cache is rewritten only by a fit; a build whose chunks match it reuses it)."""
    table = cache_dir / "query_table.npz"

    def stamp() -> int | None:
        return table.stat().st_mtime_ns if table.is_file() else None

    before = stamp()
    build = sites.mkdocs_build(project, config, "site-semantic", "semantic")
    if build.ok:
        build.facts["query_table_fitted"] = stamp() not in (None, before)
    return build


def machine() -> dict:
    def version(cmd: list[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return "unknown"

    def npm_version(name: str) -> str:
        try:
            manifest = BENCH / "node_modules" / name / "package.json"
            return json.loads(manifest.read_text(encoding="utf-8"))["version"]
        except (OSError, ValueError, KeyError):
            return "unknown"

    from importlib.metadata import version as dist_version
    return {
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "node": version(["node", "--version"]),
        "chromium": version([os.environ.get("CHROMIUM", "/usr/bin/chromium"), "--version"]),
        "mkdocs": dist_version("mkdocs"),
        "mkdocs-material": dist_version("mkdocs-material"),
        "mkdocs-semantic-search": dist_version("mkdocs-semantic-search"),
        "pagefind": npm_version("pagefind"),
        "playwright-core": npm_version("playwright-core"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path,
                        default=REPO.parent / "shared" / "corpora" / "fastapi-docs")
    parser.add_argument("--scales", default="1,4,16",
                        help="comma-separated multiples of the corpus; the first must be 1")
    parser.add_argument("--out", type=Path, default=BENCH / "results")
    parser.add_argument("--work", type=Path, default=BENCH / ".cache" / "compare")
    parser.add_argument("--keep-cache", action="store_true",
                        help="reuse the embedding cache of an earlier run (the 1x first build "
                             "is then not cold)")
    parser.add_argument("--keep-sites", action="store_true", help="leave the built sites")
    args = parser.parse_args()
    scales = [int(s) for s in args.scales.split(",")]
    if scales[0] != 1:
        parser.error("--scales must start with 1 (quality and the cold build are measured there)")
    if not (args.corpus / "mkdocs.yml").is_file():
        parser.error(f"no mkdocs.yml in {args.corpus}: pass --corpus")
    pagefind_bin = BENCH / "node_modules" / ".bin" / "pagefind"
    if not pagefind_bin.exists():
        raise SystemExit("bench/node_modules has no pagefind: run bench/compare (it installs it)")

    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    snapshot = snapshot_package(work)
    say(f"measuring a copy of the plugin: {semantic_client.__file__} "
        f"({'ok' if str(snapshot) in semantic_client.__file__ else 'NOT THE COPY'})")
    cache_dir = work / "embeddings"
    if not args.keep_cache and cache_dir.exists():
        shutil.rmtree(cache_dir)
    seeded = cache_dir / "embeddings.npz"
    cache_at_start = {"bytes": seeded.stat().st_size} if seeded.is_file() else None
    if cache_at_start:
        say(f"the embedding cache is not empty ({cache_at_start['bytes']:,} bytes): "
            "the 1x first build is not a cold build")
    sets = {name: relevance.read_queries(BENCH / "relevance" / f"fastapi-{name}.tsv")
            for name in relevance.SETS}
    queries = [q for rows in sets.values() for q, _ in rows]
    client = client_status()
    say("browser client: " + ("built" if client["present"] else f"ABSENT ({client['reason']})"))
    gz = Gzip()
    out = {
        "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "client": client,
        "corpus": "fastapi-docs",
        "queries": {name: len(rows) for name, rows in sets.items()},
        "first_query": queries[0],
        "embedding_cache_at_start": cache_at_start,
        "pagefind_exclude_selectors": sites.PAGEFIND_EXCLUDE,
        "scales": {},
    }

    for scale in scales:
        project = work / f"x{scale}"
        say(f"{scale}x: writing the project")
        facts = sites.make_project(args.corpus, project, scale)
        configs = sites.write_configs(project, cache_dir)
        builds = {}
        say(f"{scale}x: mkdocs build, plugins: []")
        builds["nosearch"] = sites.mkdocs_build(project, configs["nosearch"], "site-nosearch",
                                                "nosearch")
        say(f"{scale}x: mkdocs build, plugins: [search] (plain)")
        builds["plain"] = sites.mkdocs_build(project, configs["plain"], "site-plain", "plain")
        # Only embeddings are reused between the semantic builds: the chunk cache
        # goes, so every build parses and chunks all its pages.
        (cache_dir / "chunks.json").unlink(missing_ok=True)
        if client["present"]:
            say(f"{scale}x: mkdocs build, plugins: [search, semantic]")
            first = semantic_build(project, configs["semantic"], cache_dir)
            if scale == 1:
                builds["semantic_first"] = first
                (cache_dir / "chunks.json").unlink(missing_ok=True)
                say("1x: mkdocs build, plugins: [search, semantic] again (vectors cached)")
                builds["semantic"] = semantic_build(project, configs["semantic"], cache_dir)
            else:
                builds["semantic"] = first
        else:
            say(f"{scale}x: no client: mkdocs-semantic index over the plain site")
            first = sites.semantic_index(project, "site-plain", "site-semantic", cache_dir)
            if scale == 1:
                builds["semantic_first"] = first
                builds["semantic"] = sites.semantic_index(project, "site-plain",
                                                          "site-semantic", cache_dir)
            else:
                builds["semantic"] = first
        say(f"{scale}x: pagefind")
        builds["pagefind"] = sites.pagefind(project, "site-nosearch", pagefind_bin)
        failed = {k: b.error for k, b in builds.items() if not b.ok}
        for name, error in failed.items():
            say(f"{scale}x: build {name} FAILED:\n{error}")
        if "plain" in failed or "nosearch" in failed:
            raise SystemExit("the baseline builds failed; nothing to compare")

        nosearch, plain = project / "site-nosearch", project / "site-plain"
        semantic_site = project / "site-semantic"
        have_semantic = builds["semantic"].ok and (semantic_site / "semantic").is_dir()
        sizes = {
            "nosearch": sites.tree_bytes(nosearch) - sites.tree_bytes(nosearch / "pagefind"),
            "plain": sites.tree_bytes(plain),
            "material_search_dir": sites.tree_bytes(plain / "search"),
            "pagefind_dir": sites.tree_bytes(nosearch / "pagefind"),
        }
        if have_semantic:
            sizes["semantic"] = sites.tree_bytes(semantic_site)
            sizes["semantic_parts"] = sites.semantic_parts(semantic_site)
        record = {
            **facts,
            "builds": {k: sites.as_dict(b) for k, b in builds.items()},
            "sizes": sizes,
        }
        if have_semantic:
            record["chunks"] = sizes["semantic_parts"]["manifest_counts"]["chunks"]

        runs = [{"name": "material", "kind": "material", "root": str(plain)},
                {"name": "pagefind", "kind": "pagefind", "root": str(nosearch)}]
        can_browse = have_semantic and client["present"] and (
            semantic_site / "semantic" / "semantic.js").is_file()
        if can_browse:
            runs.append({"name": "plugin", "kind": "semantic", "root": str(semantic_site)})
        say(f"{scale}x: browser runs: {', '.join(r['name'] for r in runs)}")
        seen = browse({"queries": queries, "firstQuery": queries[0], "rank": scale == 1,
                       "timeoutMs": 240_000, "runs": runs}, work, limit_s=1200)
        roots = {r["name"]: Path(r["root"]) for r in runs}
        record["browser"] = {name: browser_figures(s, roots[name], gz) for name, s in seen.items()}
        if not can_browse:
            record["browser"]["plugin"] = {"absent": (
                client["reason"] if not client["present"] else "the plugin build failed")}

        if scale == 1:
            record["quality"] = quality(seen, sets, queries, semantic_site if have_semantic
                                        else None, plain)
        out["scales"][str(scale)] = record
        if not args.keep_sites:
            shutil.rmtree(project)

    out["seconds"] = round(time.perf_counter() - STARTED, 1)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "compare.json").write_text(portable(json.dumps(out, indent=1)) + "\n",
                                           encoding="utf-8")
    (args.out / "compare.md").write_text(portable(report.render(out)), encoding="utf-8")
    say(f"wrote {args.out / 'compare.json'} and compare.md")
    plot_python = os.environ.get("COMPARE_PLOT_PYTHON")
    if plot_python:
        proc = subprocess.run([plot_python, str(HERE / "plot.py"), str(args.out / "compare.json")],
                              capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            say(f"plot.py failed:\n{proc.stderr[-2000:]}")
            return 1
        say(proc.stdout.strip())
    else:
        say("no COMPARE_PLOT_PYTHON: compare.png not redrawn (bench/compare sets it)")
    return 0


def quality(seen: dict, sets: dict, queries: list[str], semantic_site: Path | None,
            plain_site: Path) -> dict:
    """Page-level MRR@10 / Recall@5 of every system on the same queries."""
    out = {}
    searcher = Searcher.open(semantic_site) if semantic_site else None
    if searcher is not None:
        bundle = searcher.bundle
    else:  # relevance.measure() wants the site's sections to name its largest page
        docs = json.loads((plain_site / "search" / "search_index.json").read_text())["docs"]
        bundle = SimpleNamespace(chunks=[SimpleNamespace(url=d["location"].split("#")[0])
                                         for d in docs])
    for name in ("material", "pagefind", "plugin"):
        if name in seen and "ranked" in seen[name]:
            out[f"{name}-browser"] = score(Ranked(queries, seen[name]["ranked"], bundle), sets)
    if searcher is not None:
        for mode in MODES:
            out[f"plugin-{mode}"] = score(searcher, sets, mode)
        if searcher.encoder != "transformer":
            # The same bundle with queries embedded by the model the vectors came from:
            # what the shipped (static) query encoder costs in quality, if anything.
            transformer = Searcher(searcher.bundle, encoder="transformer")
            for mode in ("vector", "hybrid"):
                out[f"plugin-{mode}-transformer"] = score(transformer, sets, mode)
        # Which Python ranking the browser client reproduces, page by page (top 10):
        # the three modes, and plain nearest sections (Searcher.search_vector).
        if "plugin" in seen and "ranked" in seen["plugin"]:
            agree = {}
            for mode in MODES:
                agree[mode] = sum(relevance.ranked_pages(searcher, q, mode)[:10] == got[:10]
                                  for q, got in zip(queries, seen["plugin"]["ranked"]))
            agree["nearest"] = sum(nearest_pages(searcher, q)[:10] == got[:10]
                                   for q, got in zip(queries, seen["plugin"]["ranked"]))
            out["client_agreement_top10"] = {"queries": len(queries), **agree}
    return out


def portable(text: str) -> str:
    """No machine paths in the results: the checkout's path becomes relative."""
    return text.replace(str(REPO) + os.sep, "").replace(str(REPO), ".")


def nearest_pages(searcher, query: str) -> list[str]:
    pages: list[str] = []
    for result in searcher.search_vector(searcher.embed(query), top_k=100):
        if result.url not in pages:
            pages.append(result.url)
    return pages


if __name__ == "__main__":
    sys.exit(main())
