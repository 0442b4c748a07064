"""Compare this plugin with Material's built-in search (lunr) and Pagefind on fastapi-docs.

Run through `bench/compare`, which installs what this needs first. Builds
../shared/corpora/fastapi-docs at 1x, 4x, 16x and 64x its size (see sites.py) five
ways (the plugin as shipped and with `vector_layout: exact`), times every build,
measures every system in headless Chromium against the site served from 127.0.0.1
over HTTP/2, gzip as GitHub Pages (browser.mjs), scores every system at 1x on the
queries of bench/relevance/ with bench/relevance.py's page-level MRR@10 and Recall@5,
scores the plugin's two layouts at every scale (hybrid page MRR@10, and recall@10 of
the partitioned vector search against the exact one), and writes
bench/results/compare.{json,md} (and compare.png, drawn by plot.py).

    python bench/compare_lib/run.py [--scales 1,4,16,64] [--keep-cache] [--protocol h2]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent
REPO = BENCH.parent
sys.path.insert(0, str(HERE))

import report  # noqa: E402
import sites  # noqa: E402

sys.path.insert(1, str(BENCH))
import results_file  # noqa: E402  (bench/results_file.py: what the committed JSON keeps)

# Bound by snapshot_package(): the plugin as it was when the run started.
relevance = semantic_client = Searcher = MODES = None

PREFIX = "/fastapi/"
NETWORK = {"mbps": 20, "latencyMs": 40}
"""A reader's network (CDP emulation), as issue 28 models it: 40 ms a round trip."""
COLD_REPEATS = 2
"""A throttled first query is run this many more times, each in a fresh profile: its
rounds vary by one where two of its steps nearly overlap, so the reports take the median."""
STARTED = time.perf_counter()
# Files that belong to a search system, by URL path (the rest is the page itself).
SEARCH_PATHS = ("/search/", "/assets/javascripts/workers/", "/assets/javascripts/lunr/",
                "/semantic/", "/pagefind/")


def say(message: str) -> None:
    print(f"[compare {time.perf_counter() - STARTED:6.0f} s, load {load_average()[0]:.1f}] "
          f"{message}", file=sys.stderr, flush=True)


def load_average() -> list[float]:
    """The machine's 1, 5 and 15 minute load averages (it is shared: ms grow with them)."""
    return [round(x, 2) for x in os.getloadavg()]


def add_pause_argument(parser: argparse.ArgumentParser) -> None:
    """`--pause-ms`: a reader's pause before each warm query (browser.mjs `pauseMs`)."""
    parser.add_argument("--pause-ms", type=int, default=0,
                        help="a reader's pause before each warm query (the client's idle "
                             "time, in which it may prefetch); 0: none")


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

    from mkdocs_semantic.constants import SEARCH_MODES as modes
    from mkdocs_semantic.pages import theme as client_module
    from mkdocs_semantic.search.searcher import Searcher as searcher_class

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


def browse(plan: dict, work: Path, limit_s: int, prefix: str = PREFIX) -> dict:
    """browser.mjs over the plan's runs, each site served under `prefix`; returns its JSON
    (per run, and `protocol`)."""
    plan = {**plan, "prefix": prefix, "limitMs": limit_s * 1000}
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


def spread(values: list[float], digits: int = 1) -> dict:
    """min, p50, p95, mean and max of a list (empty: {})."""
    if not values:
        return {}
    return {"min": round(min(values), digits), "p50": round(percentile(values, 50), digits),
            "p95": round(percentile(values, 95), digits),
            "mean": round(sum(values) / len(values), digits), "max": round(max(values), digits)}


def latency_model(ms: list[float], files: list[int]) -> dict | None:
    """Least squares ms = fixed + per_file * files over the warm queries: what each file a
    query fetched added to its latency here (rounds, which grow with files, are left out
    of the fit: the two together are too collinear to part)."""
    import numpy as np

    if len(ms) < 4 or len(set(files)) < 2:
        return None
    design = np.column_stack([np.ones(len(ms)), files]).astype(float)
    coef, *_ = np.linalg.lstsq(design, np.asarray(ms, dtype=float), rcond=None)
    residual = np.asarray(ms) - design @ coef
    return {"fixed_ms": round(float(coef[0]), 2), "per_file_ms": round(float(coef[1]), 2),
            "residual_ms": round(float(np.sqrt(np.mean(residual ** 2))), 2)}


def warm_fetches(warm: dict) -> dict:
    """What each warm query fetched, and its latency with and without fetching."""
    files, fetch_ms, ms = warm["queryFiles"], warm["queryFetchMs"], warm["ms"]
    rounds = warm["queryRounds"]
    fetching = [m for m, n in zip(ms, files) if n]
    still = [m for m, n in zip(ms, files) if not n]
    return {
        "files": spread(files), "sent_bytes": spread(warm["querySent"], 0),
        "fetch_ms": spread(fetch_ms),
        "fetch_ms_of_fetching": spread([f for f, n in zip(fetch_ms, files) if n]),
        "rounds_of_fetching": spread([r for r, n in zip(rounds, files) if n]),
        "queries_fetching": len(fetching),
        "ms_fetching": spread(fetching), "ms_not_fetching": spread(still),
        "model": latency_model(ms, files),
        "per_query": {"ms": [round(m, 2) for m in ms], "files": files,
                      "sent": warm["querySent"], "fetch_ms": fetch_ms, "rounds": rounds,
                      "server_rounds": warm.get("queryServerRounds"),
                      "rounds_on_server_clock": warm.get("roundsOnServerClock", 0)},
    }


def browser_figures(seen: dict) -> dict:
    """Bytes (file bytes, and bytes sent as GitHub Pages sends them) and milliseconds of one
    system's browser run. File lists: [path, file bytes, bytes sent, ms to the request,
    ms to the response's end] from the start of their phase."""
    if "failed" in seen:
        return {"failed": seen["failed"]}
    load, cold, warm = seen["load"], seen["cold"], seen["warm"]
    search_load = [f for f in load["files"] if any(p in f[0] for p in SEARCH_PATHS)]
    return {
        "load_bytes": load["bytes"],
        "load_sent_bytes": load["sent"],
        "load_requests": load["requests"],
        "load_search_bytes": sum(f[1] for f in search_load),
        "load_search_sent_bytes": sum(f[2] for f in search_load),
        "load_search_files": search_load,
        "cold_ms": round(cold["ms"], 1),
        "cold_fetch_ms": round(cold["fetchMs"], 1),
        "cold_fetch_rounds": cold["rounds"],
        # the first query again in fresh profiles (throttled runs): [{rounds, sent, ms}]
        **({"cold_repeats": cold["repeats"]} if cold.get("repeats") else {}),
        "cold_server_rounds": cold.get("serverRounds"),
        "cold_browser_files": cold.get("browserFiles"),
        "cold_bytes": cold["bytes"],
        "cold_sent_bytes": cold["sent"],
        "cold_requests": cold["requests"],
        "cold_files": cold["files"],
        # the plugin's keyword results, shown before the first query's final ranking
        **({"cold_keyword": {"ms": round(cold["keyword"]["ms"], 1),
                             "rounds": cold["keyword"]["rounds"],
                             "sent_bytes": cold["keyword"]["sent"],
                             "requests": cold["keyword"]["requests"],
                             "browser_files": cold["keyword"].get("browserFiles")}}
           if cold.get("keyword") else {}),
        "warm_p50_ms": round(percentile(warm["ms"], 50), 2),
        "warm_p95_ms": round(percentile(warm["ms"], 95), 2),
        "warm_max_ms": round(max(warm["ms"]), 2),
        # The same queries again, after the warm pass: the engine's time without fetching.
        **({"repeat_p50_ms": round(percentile(warm["repeatMs"], 50), 2),
            "repeat_p95_ms": round(percentile(warm["repeatMs"], 95), 2),
            "repeat_files": warm.get("repeatFetched", 0)} if warm.get("repeatMs") else {}),
        # Pagefind: search() alone, before data() of the top 10.
        **({"warm_search_only_p50_ms": round(percentile(warm["searchMs"], 50), 2),
            "warm_search_only_p95_ms": round(percentile(warm["searchMs"], 95), 2)}
           if warm.get("searchMs") else {}),
        "warm_queries": len(warm["ms"]),
        "warm_bytes": warm["bytes"],
        "warm_sent_bytes": warm["sent"],
        "warm_files": warm.get("files", []),  # left out of the committed figures
        "warm_parts": report.fetched_parts(warm.get("files", [])),
        "warm_fetches": warm_fetches(warm),
        "warm_zero_result_queries": sum(1 for n in warm["counts"] if n == 0),
        "rendered_list_disagrees_with_worker": warm.get("disagree", 0),
        "http_versions": seen.get("httpVersions", {}),
        "refetched": seen.get("refetchedCount", 0),
        "server_start_s": round(seen.get("serverStartMs", 0) / 1000, 1),
        "load_average": seen.get("loadAverage"),
        "not_found": seen.get("notFound", [])[:8],
        # Blocked web fonts and the corpus' missing images (404, listed in not_found)
        # are the same for every system; anything else is kept.
        "errors": [e for e in seen["errors"] if "ERR_NAME_NOT_RESOLVED" not in e
                   and "status of 404" not in e][:5],
        "blocked_external_requests": sum(1 for e in seen["errors"]
                                         if "ERR_NAME_NOT_RESOLVED" in e),
        "browser_seconds": round(seen["seconds"], 1),
    }


def semantic_build(project: Path, config: str, cache_dir: Path,
                   site: str = "site-semantic") -> sites.Build:
    """`mkdocs build` with the plugin; its facts say whether it fitted the query table
    (the table cache is rewritten only by a fit; a build whose chunks match it reuses it).
    Only embeddings are reused between the plugin's builds: the chunk cache goes first, so
    every build parses and chunks all its pages."""
    table = cache_dir / "query_table.npz"

    def stamp() -> int | None:
        return table.stat().st_mtime_ns if table.is_file() else None

    (cache_dir / "chunks.json").unlink(missing_ok=True)
    before = stamp()
    build = sites.mkdocs_build(project, config, site, "semantic")
    if build.ok:
        build.facts["query_table_fitted"] = stamp() not in (None, before)
    return build


def npm_version(name: str, folder: Path = BENCH) -> str:
    """The version of the npm package `name` that `folder`/node_modules holds, or "unknown"."""
    try:
        manifest = folder / "node_modules" / name / "package.json"
        return json.loads(manifest.read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        return "unknown"


def machine() -> dict:
    def version(cmd: list[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
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
        # js/tools/chromium.mjs drives Chromium with the client's own playwright-core
        "playwright-core": npm_version("playwright-core", REPO / "js"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path,
                        default=REPO.parent / "shared" / "corpora" / "fastapi-docs")
    parser.add_argument("--scales", default="1,4,16,64",
                        help="comma-separated multiples of the corpus; the first must be 1")
    parser.add_argument("--out", type=Path, default=BENCH / "results")
    parser.add_argument("--work", type=Path, default=BENCH / ".cache" / "compare")
    parser.add_argument("--protocol", choices=("h2", "http/1.1"), default="h2",
                        help="what the bench's server speaks to Chromium (h2: over TLS with a "
                             "certificate made for the run; http/1.1 when openssl is missing)")
    parser.add_argument("--keep-cache", action="store_true",
                        help="reuse the embedding cache of an earlier run (the 1x first build "
                             "is then not cold)")
    parser.add_argument("--keep-sites", action="store_true", help="leave the built sites")
    add_pause_argument(parser)
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
    out = {
        "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "load_average_at_start": load_average(),
        "client": client,
        "corpus": "fastapi-docs",
        "queries": {name: len(rows) for name, rows in sets.items()},
        "first_query": queries[0],
        "embedding_cache_at_start": cache_at_start,
        "pagefind_exclude_selectors": sites.PAGEFIND_EXCLUDE,
        "protocol_asked": args.protocol,
        "warm_pause_ms": args.pause_ms,
        "scales": {},
    }
    say("what a request costs this Chromium (bench/compare_lib/fetch_cost.mjs)")
    out["fetch_cost"] = browse({"runs": [], "fetchCost": {"profiles": 5},
                                "protocol": args.protocol}, work, limit_s=600)["fetchCost"]
    for scale in scales:
        out["scales"][str(scale)] = one_scale(scale, args, work, cache_dir, client, sets,
                                              queries, pagefind_bin)

    out["seconds"] = round(time.perf_counter() - STARTED, 1)
    out["load_average_at_end"] = load_average()
    args.out.mkdir(parents=True, exist_ok=True)
    # the whole figures (each warm file fetched) to bench/.cache/results, the rest committed
    results_file.write_detail("compare", portable(json.dumps(out, indent=1)) + "\n")
    (args.out / "compare.json").write_text(
        portable(json.dumps(results_file.committed(out), indent=1)) + "\n", encoding="utf-8")
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


def one_scale(scale: int, args: argparse.Namespace, work: Path, cache_dir: Path, client: dict,
              sets: dict, queries: list[str], pagefind_bin: Path) -> dict:
    """Build one scale five ways, browse three systems, score the plugin's two layouts."""
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
    if client["present"]:
        say(f"{scale}x: mkdocs build, plugins: [search, semantic]")
        first = semantic_build(project, configs["semantic"], cache_dir)
        if scale == 1:
            builds["semantic_first"] = first
            say("1x: mkdocs build, plugins: [search, semantic] again (vectors cached)")
            builds["semantic"] = semantic_build(project, configs["semantic"], cache_dir)
        else:
            builds["semantic"] = first
        say(f"{scale}x: mkdocs build, plugins: [search, semantic], vector_layout: exact")
        builds["semantic_exact"] = semantic_build(project, configs["semantic_exact"], cache_dir,
                                                  "site-semantic-exact")
    else:
        say(f"{scale}x: no client: mkdocs-semantic index over the plain site")
        first = sites.semantic_index(project, "site-plain", "site-semantic", cache_dir)
        if scale == 1:
            builds["semantic_first"] = first
            builds["semantic"] = sites.semantic_index(project, "site-plain",
                                                      "site-semantic", cache_dir)
        else:
            builds["semantic"] = first
        # `mkdocs-semantic index` has no vector_layout option: the exact layout needs the
        # plugin, so the layouts are not compared without the client.
        builds["semantic_exact"] = sites.Build(
            "semantic-index", 0.0, ok=False,
            error="not built: `mkdocs-semantic index` has no vector_layout option")
    say(f"{scale}x: pagefind")
    builds["pagefind"] = sites.pagefind(project, "site-nosearch", pagefind_bin)
    failed = {k: b.error for k, b in builds.items() if not b.ok}
    for name, error in failed.items():
        say(f"{scale}x: build {name} FAILED:\n{error}")
    if "plain" in failed or "nosearch" in failed:
        raise SystemExit("the baseline builds failed; nothing to compare")

    nosearch, plain = project / "site-nosearch", project / "site-plain"
    semantic_site = project / "site-semantic"
    exact_site = project / "site-semantic-exact"
    have_semantic = builds["semantic"].ok and (semantic_site / "semantic").is_dir()
    have_exact = builds["semantic_exact"].ok and (exact_site / "semantic").is_dir()
    sizes = {
        "nosearch": sites.tree_bytes(nosearch) - sites.tree_bytes(nosearch / "pagefind"),
        "plain": sites.tree_bytes(plain),
        "material_search_dir": sites.tree_bytes(plain / "search"),
        "pagefind_dir": sites.tree_bytes(nosearch / "pagefind"),
    }
    if have_semantic:
        sizes["semantic"] = sites.tree_bytes(semantic_site)
        sizes["semantic_parts"] = sites.semantic_parts(semantic_site)
    if have_exact:
        sizes["semantic_exact_parts"] = sites.semantic_parts(exact_site)
    record = {
        **facts,
        "builds": {k: sites.as_dict(b) for k, b in builds.items()},
        "sizes": sizes,
    }
    if have_semantic:
        record["chunks"] = sizes["semantic_parts"]["manifest_counts"]["chunks"]
    if have_semantic and have_exact:
        say(f"{scale}x: scoring the two layouts (Python reference searcher)")
        record["layouts"] = layout_quality(semantic_site, exact_site, sets, scale)

    runs = [{"name": "material", "kind": "material", "root": str(plain)},
            {"name": "pagefind", "kind": "pagefind", "root": str(nosearch)}]
    can_browse = have_semantic and client["present"] and (
        semantic_site / "semantic" / "semantic.js").is_file()
    # Pagefind and the plugin again on a reader's network: there a round trip costs 40 ms,
    # and rounds, counted on the browser's clock, are whole steps of the client.
    runs.append({"name": "pagefind-network", "kind": "pagefind", "root": str(nosearch),
                 "throttle": NETWORK})
    if can_browse:
        runs.append({"name": "plugin", "kind": "semantic", "root": str(semantic_site)})
        runs.append({"name": "plugin-network", "kind": "semantic", "root": str(semantic_site),
                     "throttle": NETWORK})
    say(f"{scale}x: browser runs: {', '.join(r['name'] for r in runs)}")
    # The largest sites take minutes per system (Material parses its whole index).
    limit_s = 1200 if scale <= 16 else 5400
    seen = browse({"queries": queries, "firstQuery": queries[0], "rank": scale == 1,
                   "coldRepeats": COLD_REPEATS, "pauseMs": args.pause_ms,
                   "timeoutMs": 240_000 if scale <= 16 else 900_000, "runs": runs,
                   "protocol": args.protocol}, work, limit_s=limit_s)
    record["protocol"] = seen.pop("protocol")
    record["browser"] = {name: browser_figures(s) for name, s in seen.items()}
    if not can_browse:
        record["browser"]["plugin"] = {"absent": (
            client["reason"] if not client["present"] else "the plugin build failed")}

    if scale == 1:
        record["quality"] = quality(seen, sets, queries, semantic_site if have_semantic
                                    else None, plain)
    if not args.keep_sites:
        shutil.rmtree(project)
    return record


COPY = re.compile(r"v(\d+)/")


def canonical(url: str, scale: int) -> str:
    """A versioned copy's page (`v7/tutorial/cors/`) as its original (`tutorial/cors/`)."""
    match = COPY.match(url)
    if match and 2 <= int(match.group(1)) <= scale:
        return url[match.end():]
    return url


def page_scores(searcher, sets: dict, scale: int) -> dict:
    """Hybrid page MRR@10 and Recall@5 where a copy of a relevant page counts as relevant
    (bench/relevance.py's ranking: a page at its first section, over the top 100)."""
    rows = {**sets, "all": [r for rows in sets.values() for r in rows]}
    out = {}
    for name, queries in rows.items():
        reciprocal, recall = [], []
        for query, expected in queries:
            pages = [canonical(p, scale)
                     for p in relevance.ranked_pages(searcher, query, "hybrid")]
            first = next((i for i, p in enumerate(pages[:10], 1) if p in expected), None)
            reciprocal.append(1 / first if first else 0.0)
            recall.append(len(set(pages[:5]) & set(expected)) / len(expected))
        out[name] = {"mrr@10": round(sum(reciprocal) / len(queries), 4),
                     "recall@5": round(sum(recall) / len(queries), 4),
                     "queries": len(queries)}
    return out


def top_chunks(scores, k: int = 10) -> list[int]:
    """The best `k` scored chunks: score descending, ties by chunk number (NaN: not scored)."""
    import numpy as np

    from mkdocs_semantic.search.ranking import chunk_order

    return chunk_order(scores, ~np.isnan(scores))[:k].tolist()


def vector_recall(partitioned, exact, queries: list[str]) -> dict:
    """Recall@10 of the partitioned vector search against the exact one, tie-aware: a
    partitioned result is a hit when its exact score is at least the exact 10th score
    (identical copies tie, and either copy is as right). Also the plain overlap of the two
    top 10s, and checks that both bundles embed the query alike and score a chunk alike."""
    import numpy as np

    recalls, strict, skipped, codes_differ, scores_differ = [], [], 0, 0, 0
    probes: list[dict] = []
    distinct: list[int] = []  # distinct scores in the exact top 10: copies tie
    for query in queries:
        vector = exact.embed(query)
        mine = partitioned.embed(query)
        if vector is None or mine is None:
            skipped += 1
            continue
        codes_differ += not np.array_equal(vector, mine)
        every = exact.scores(vector)
        probed = partitioned.scores(mine)
        want = top_chunks(every)
        got = top_chunks(probed)
        tenth = every[want[-1]]
        distinct.append(len(set(every[want].tolist())))
        recalls.append(sum(bool(every[c] >= tenth) for c in got) / len(want))
        strict.append(len(set(got) & set(want)) / len(want))
        scores_differ += not np.allclose(probed[got], every[got], rtol=0, atol=1e-9)
        if partitioned.bundle.vectors.layout == "partitioned":
            probes.append(probe_facts(partitioned.bundle.vectors, mine))
    n = len(recalls)
    return {"recall@10": round(sum(recalls) / n, 4) if n else None,
            "min": round(min(recalls), 2) if n else None,
            "below_1": sum(r < 1 for r in recalls),
            "overlap@10": round(sum(strict) / n, 4) if n else None,
            "queries": n, "not_embedded": skipped, "query_codes_differ": codes_differ,
            "chunk_scores_differ": scores_differ,
            "distinct_in_exact_top10": spread(distinct),
            "probe": {k: spread([p[k] for p in probes]) for k in probes[0]} if probes else {}}


def probe_facts(vectors, codes) -> dict:
    """What one query reads of a partitioned vector set: the partitions it probes (a bits
    file each), the row blocks holding its candidates (a rows file each), and how many
    distinct vectors its candidates are (identical copies share a vector)."""
    import numpy as np

    probed = vectors.probed(codes)
    holding = vectors.candidate_rows(codes)
    blocks = vectors.candidate_blocks(holding)
    rows = [vectors.partition_rows(number)[at] for number, at in holding]
    distinct = len(np.unique(np.concatenate(rows), axis=0)) if rows else 0
    return {"partitions_probed": len(probed), "rows_probed": int(vectors.sizes[probed].sum()),
            "row_files": len(blocks), "candidates": sum(len(at) for _, at in holding),
            "distinct_candidate_vectors": distinct}


def layout_quality(auto_site: Path, exact_site: Path, sets: dict, scale: int) -> dict:
    """The plugin as shipped (vector_layout: auto) against vector_layout: exact."""
    started = time.perf_counter()
    auto, exact = Searcher.open(auto_site), Searcher.open(exact_site)
    queries = [q for rows in sets.values() for q, _ in rows]
    out = {"layout": {"auto": auto.bundle.vectors.layout, "exact": exact.bundle.vectors.layout},
           "auto": timed(lambda: page_scores(auto, sets, scale)),
           "exact": timed(lambda: page_scores(exact, sets, scale)),
           "vector": vector_recall(auto, exact, queries),
           "copies_count_as_relevant": scale > 1}
    out["seconds"] = round(time.perf_counter() - started, 1)
    out["load_average"] = load_average()
    return out


def timed(work: Callable[[], dict]) -> dict:
    started = time.perf_counter()
    result = work()
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


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
