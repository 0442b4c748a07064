"""Semantic search in the browser on a real site: bytes and milliseconds, as served.

Builds ../shared/corpora/fastapi-docs (Material theme) with its default config plus
the plugin (`plugins: [search, semantic]`) into a temporary folder, serves it on
127.0.0.1 under /fastapi/ with js/tools/server.mjs compressing as GitHub Pages does
(gzip for html, css, js, json, svg, txt, xml; .bin, .i8 and other binaries as they
are), and drives headless Chromium with js/tools/drive.mjs (playwright-core, Debian's
chromium, a fresh profile per run, so the HTTP cache starts empty). Records:

- page load: what a page fetches before the search box gets focus, ours (the files
  under semantic/) and in all, raw and as sent, and whether the theme's own search
  index (search/search_index.json) was fetched;
- first semantic result: the first query typed key by key (Playwright's
  keyboard.type, each key held TYPE_DELAY_MS, the next pressed on its release), the files
  fetched from the first keystroke until Material shows the hybrid results, raw and as
  sent, and the ms from pressing (and from releasing) the last key; again with the
  query filled in at once (so nothing loads while typing);
- that no model file was requested (the static query encoder);
- warm query latency (the public `search()` API: worker round trip, embedding, exact
  scan, ranking, shards a query needs loaded by need) over the 50 queries of
  bench/relevance/fastapi-*.tsv, a first pass and a second.

Then issue #13's reader (bench/browser_typing.py): the example site with the transformer
query model, in the mkdocs, readthedocs and material themes, a query typed at 120 ms a
key at 20 Mbit/s in a fresh profile; the ms from the last key to keyword results for the
whole query, and to the hybrid results.

Writes bench/results/browser.{json,md}, then screenshots of each theme's search UI
into bench/results/screens/ (bench/screens.py). Needs what `scripts/setup` installs.

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

import browser_typing  # bench/browser_typing.py
import numpy as np
from drive_plan import drive_plan  # bench/drive_plan.py
from results_file import write_results  # bench/results_file.py
from screens import save_screens  # bench/screens.py

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
QUERY_FILES = ("fastapi-paraphrase.tsv", "fastapi-exact.tsv")
PREFIX = "/fastapi/"
BUNDLE = "semantic"
TYPE_DELAY_MS = 100  # each key held 100 ms, the next pressed on its release
MODEL_SUFFIXES = (".wasm", ".onnx", "/model-embed.js")
MODEL_PAYLOADS = ("/model/layers.", "/model/words.")
THEME_INDEX = f"{PREFIX}search/"  # search_index.json, and lunr for the mkdocs themes
TARGETS = {  # the product's targets for the first semantic result and after
    "first_result_sent_bytes": 1_500_000,
    "first_result_ms_after_last_key": 400,
    "warm_p95_ms": 25,
    "page_load_ours_sent_bytes": 15_000,
}


def load_queries() -> list[str]:
    queries = []
    for name in QUERY_FILES:
        for line in (HERE / "relevance" / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                queries.append(line.split("\t", 1)[0])
    return queries


def build_site(source: Path, work: Path, cache_dir: Path,
               options: dict[str, str] | None = None) -> tuple[Path, float]:
    """`source` built with `plugins: [search, semantic]` (and the plugin's `options`) in
    `work`; the site folder and the build's seconds."""
    project = work / "site-src"
    shutil.copytree(source, project)
    config = (project / "mkdocs.yml").read_text(encoding="utf-8")
    if "\n  - search\n" not in config:
        raise SystemExit("expected '  - search' under plugins: in the site's mkdocs.yml")
    semantic = f"\n  - search\n  - semantic:\n      cache_dir: {json.dumps(str(cache_dir))}\n" + \
        "".join(f"      {key}: {value}\n" for key, value in (options or {}).items())
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
    return drive_plan("bench", plan, work / "plan.json")


def ours(files: list) -> list:
    return [f for f in files if f[0].startswith(f"{PREFIX}{BUNDLE}/")]


def totals(files: list) -> dict:
    return {"requests": len(files), "bytes": sum(f[1] for f in files),
            "sent": sum(f[2] for f in files)}


def first_result(seen: dict) -> dict:
    first = seen["first"]
    return {"ms_after_last_key": round(first["fromLastKeyMs"]),
            "ms_after_last_key_up": round(first["fromLastKeyUpMs"]),
            "ms_after_first_key": round(first["fromFirstKeyMs"]),
            "keys": first["keys"], "all": totals(first["files"]),
            "ours": totals(ours(first["files"])), "files": first["files"]}


def latency(*, ms: list[float], requests: int) -> dict:
    values = np.asarray(ms)
    return {"count": int(values.size), "requests": requests,
            "p50_ms": round(float(np.percentile(values, 50)), 1),
            "p95_ms": round(float(np.percentile(values, 95)), 1),
            "max_ms": round(float(values.max()), 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=REPO.parent / "shared/corpora/fastapi-docs")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    if not (args.site / "mkdocs.yml").exists():
        parser.error(f"no mkdocs.yml in {args.site}: pass --site")
    queries = load_queries()
    load_average = round(os.getloadavg()[0], 1)  # ms figures grow on a busy machine
    plan = {"prefix": PREFIX, "theme": "material", "start": "", "bundleDir": BUNDLE,
            "query": queries[0]}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        site, build_seconds = build_site(args.site, work, HERE / ".cache" / "browser")
        manifest = json.loads((site / BUNDLE / "manifest.json").read_text(encoding="utf-8"))
        theme_index = (site / "search" / "search_index.json").stat().st_size
        typed = drive({**plan, "site": str(site), "typeDelayMs": TYPE_DELAY_MS,
                       "queries": queries}, work)
        pasted = drive({**plan, "site": str(site)}, work)
        typing = browser_typing.run(work)
    requested = [f[0] for run in (typed, pasted) for f in run["served"]["files"]]
    load = typed["load"]["files"]
    figures = {
        "site": "fastapi-docs",
        "pages": manifest["counts"]["pages"],
        "chunks": manifest["counts"]["chunks"],
        "query_encoder": manifest["query_encoder"],
        "build_seconds": round(build_seconds, 1),
        "cpus": os.cpu_count(),
        "load_average": load_average,
        "type_delay_ms": TYPE_DELAY_MS,
        "first_query": queries[0],
        "page_load": {"all": totals(load), "ours": totals(ours(load)), "files": ours(load)},
        "first_result": {"typed": first_result(typed), "at_once": first_result(pasted)},
        "theme_index": {"bytes_written": theme_index,
                        "fetched": sorted({p for p in requested if p.startswith(THEME_INDEX)})},
        "model_files_fetched": sorted({p for p in requested if p.endswith(MODEL_SUFFIXES)
                                        or any(m in p for m in MODEL_PAYLOADS)}),
        "warm_queries": {"first_pass": latency(**typed["warm"]["first"]),
                         "second_pass": latency(**typed["warm"]["again"])},
        "errors": [*typed["pageErrors"], *pasted["pageErrors"]],
        "typing": typing,
    }
    figures["targets"] = check_targets(figures)
    write_results(args.out, "browser", figures, render(figures))
    save_screens(args.out / "screens")  # each theme's results, selection and dialog
    return 0


def check_targets(f: dict) -> list[dict]:
    typed, warm = f["first_result"]["typed"], f["warm_queries"]
    rows = [
        ("first semantic result, bytes sent (typed, fresh profile)",
         typed["all"]["sent"], TARGETS["first_result_sent_bytes"]),
        ("first semantic result, ms after the last key was pressed (typed)",
         typed["ms_after_last_key"], TARGETS["first_result_ms_after_last_key"]),
        ("warm query p95 ms, its shards in memory (second pass)",
         warm["second_pass"]["p95_ms"], TARGETS["warm_p95_ms"]),
        ("warm query p95 ms, its shards fetched by need (first pass)",
         warm["first_pass"]["p95_ms"], TARGETS["warm_p95_ms"]),
        ("page load, our bytes sent", f["page_load"]["ours"]["sent"],
         TARGETS["page_load_ours_sent_bytes"]),
        ("model files requested", len(f["model_files_fetched"]), 0),
        ("theme index requests (search/...)", len(f["theme_index"]["fetched"]), 0),
        *browser_typing.target_rows(f["typing"]),
    ]
    return [{"what": what, "measured": value, "target": target,
             "met": value is not None and value <= target} for what, value, target in rows]


def _n(value: int | None) -> str:
    return "never" if value is None else f"{value:,}"


def short(path: str) -> str:
    return path.split(f"/{BUNDLE}/", 1)[-1]


def kind_of(path: str) -> str:
    """`vectors`, `table`, `lexical`, `fragments`, `tokenizer`, `client`, or the file
    name (manifest, catalog)."""
    name = short(path)
    if name.startswith("model/tokenizer."):
        return "tokenizer"
    return name.split("/", 1)[0] if "/" in name else name.split(".", 1)[0]


def by_kind(*runs: list) -> list:
    """[(kind, [files, raw, sent] of each run)], by bytes sent in the first run."""
    tallies = []
    for files in runs:
        tally: dict[str, list[int]] = {}
        for path, raw, sent, _ in files:
            row = tally.setdefault(kind_of(path), [0, 0, 0])
            row[0] += 1
            row[1] += raw
            row[2] += sent
        tallies.append(tally)
    kinds = sorted({k for t in tallies for k in t}, key=lambda k: -tallies[0].get(k, [0] * 3)[2])
    return [(k, *(t.get(k, [0, 0, 0]) for t in tallies)) for k in kinds]


def render(f: dict) -> str:
    typed, at_once = f["first_result"]["typed"], f["first_result"]["at_once"]
    load, warm = f["page_load"], f["warm_queries"]
    targets = "\n".join(
        f"| {t['what']} | {_n(t['measured'])} | ≤ {_n(t['target'])} | "
        f"{'yes' if t['met'] else '**no**'} |" for t in f["targets"])
    kinds = "\n".join(
        f"| {kind} | {typed_n[0]} / {_n(typed_n[2])} | {once_n[0]} / {_n(once_n[2])} |"
        for kind, typed_n, once_n in by_kind(typed["files"], at_once["files"]))
    files = "\n".join(
        f"| `{short(path)}` | {_n(raw)} | {_n(sent)} | {ms:,.0f} |"
        for path, raw, sent, ms in at_once["files"])
    load_files = "\n".join(f"| `{short(path)}` | {_n(raw)} | {_n(sent)} |"
                            for path, raw, sent, _ in load["files"])
    fetched = ", ".join(f"`{p}`" for p in f["theme_index"]["fetched"]) or "none"
    per_query = warm["first_pass"]["requests"] / warm["first_pass"]["count"]
    spread = lambda w: f"{w['p50_ms']} / {w['p95_ms']} / {w['max_ms']}"  # noqa: E731
    rows = [
        ("page load, before the search box gets focus, whole page", load["all"], ""),
        (f"of which ours ({load['ours']['requests']} files)", load["ours"], ""),
        (f"first semantic result, typed ({typed['keys']} keys, each held {f['type_delay_ms']} "
         "ms, the next pressed on its release): from the first key",
         typed["all"], _n(typed["ms_after_first_key"])),
        ("... after the last key was pressed", None, _n(typed["ms_after_last_key"])),
        (f"... after it was released ({f['type_delay_ms']} ms later; Material reads the box "
         "on key release)", None, _n(typed["ms_after_last_key_up"])),
        ("first semantic result, the query filled in at once", at_once["all"],
         _n(at_once["ms_after_last_key"])),
        (f"warm query p50 / p95 / max, first pass ({warm['first_pass']['count']} queries, "
         f"{warm['first_pass']['requests']} files fetched)", None, spread(warm["first_pass"])),
        (f"warm query p50 / p95 / max, second pass ({warm['second_pass']['requests']} files "
         "fetched)", None, spread(warm["second_pass"])),
    ]
    figures = "\n".join(
        ["| what | raw bytes | sent bytes | ms |", "|---|---|---|---|"]
        + [f"| {what} | {_n(b['bytes']) if b else ''} | {_n(b['sent']) if b else ''} | {ms} |"
           for what, b, ms in rows])
    return f"""# Browser search on fastapi-docs

Reproduce: `python bench/browser.py` (after `scripts/setup`). One run in headless
Debian Chromium, a fresh profile per run, on this machine: {f['cpus']} CPUs, load
average {f['load_average']} when the run began (other jobs; the ms figures grow with it).
The site is served from 127.0.0.1 over HTTP/1.1 (no network latency; at most six
files in flight at once) and compressed as GitHub Pages compresses: gzip for text
types, binary payloads as they are. Material theme, the site's own config plus
`semantic` (`plugins: [search, semantic]`), {f['pages']} pages, {f['chunks']} chunks,
query encoder `{f['query_encoder']}`. "Sent" is the response body on the wire (headers
not counted); "raw" is the file's size.

| target | measured | target | met |
|---|---|---|---|
{targets}

{figures}

Theme index (`search/search_index.json`, {_n(f['theme_index']['bytes_written'])} bytes, still
written by MkDocs' search plugin) fetched: {fetched}. Model files (the model's, onnxruntime-web's)
fetched: {', '.join(f['model_files_fetched']) or 'none'}.

Warm queries go through the public `search()` API (worker round trip, query
embedding, exact scan, ranking, excerpts) after one query has loaded the engine;
the first pass also loads the lexical, table and fragment shards each query needs
that no query before it needed; the second pass has them all. The first pass is
bound by those downloads, not by computing: a query needs one table shard per new
token, one lexical shard per new term, then the fragments of the pages it shows, in
two rounds ({per_query:.0f} files a query on average here, up to twenty), which over
HTTP/1.1 go six at a time.

With the query filled in at once nothing has loaded before the keystroke, and the
path is long: the worker imports its code, then manifest, catalog, then the
tokenizer (466 kB to parse and build a tokenizer from) before the table shards can be
asked for, while the vector parts and lexical shards take the six connections.
Typed, all of that happens under the first keys, and the last key costs one shard.

First query: "{f['first_query']}". Files fetched for its first semantic result, by
kind (files / bytes sent); typing fetches more shards than the query alone needs,
because every prefix of the query is searched as it is typed:

| kind | typed | filled in at once |
|---|---|---|
{kinds}

Each file for the query filled in at once, with when the server began to send it
(ms after the keystroke; the server is HTTP/1.1, so the browser fetches at most six
files at a time):

| file | raw | sent | at ms |
|---|---|---|---|
{files}

Our files on page load:

| file | raw | sent |
|---|---|---|
{load_files}

{browser_typing.render(f["typing"])}"""


if __name__ == "__main__":
    sys.exit(main())
