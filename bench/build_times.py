"""Build times on a real site: plain MkDocs against builds with the semantic plugin.

On a copy of ../shared/corpora/fastapi-docs, measures in one run, in this order:
plain `mkdocs build` (search plugin only); a first build with `query_encoder:
transformer` (no query table) and a first build with `query_encoder: static` (the
table fitted), each with its own empty cache; then, on the static build's cache, a
rebuild with nothing changed and a rebuild after editing one section of one page.
For each: seconds of the whole process, chunks embedded, and what the query table
cost (from the plugin's build log line: fitted or reused, texts and tokens embedded
for it, seconds). Writes bench/results/build_times.{json,md}.

    python bench/build_times.py [--site ../shared/corpora/fastapi-docs]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUMMARY = re.compile(
    r"semantic: (?P<pages>\d+) pages, (?P<chunks>\d+) chunks, (?P<embedded>\d+) embedded, "
    r"(?P<reused>\d+) reused; bundle (?P<bundle>[\d.]+ [KMG]?B)"
    r"(?: \+ model (?P<model>[\d.]+ [KMG]?B))?(?: \+ client (?P<client>[\d.]+ [KMG]?B))?"
    r"(?:; query table (?P<table>fitted|reused) \((?P<table_embedded>\d+) embedded, "
    r"(?P<table_seconds>[\d.]+) s\))?; (?P<plugin_seconds>[\d.]+) s"
)
INTEGERS = ("pages", "chunks", "embedded", "reused", "table_embedded")
FLOATS = ("table_seconds", "plugin_seconds")
EDITED_PAGE = "tutorial/first-steps.md"
EDIT = "\n\n## Checking the setup\n\nA short paragraph added by the benchmark to change one page.\n"
FIT_LIMIT = 0.30
HEADER = ("| build | config | seconds | ratio to plain | chunks embedded | reused | chunks "
          "| query table | embedded for it | its seconds | bundle |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|")


def build(project: Path, config: str) -> dict:
    site = "site-" + config.removesuffix(".yml")
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-f", config, "-d", site],
        cwd=project, capture_output=True, text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"mkdocs build -f {config} failed:\n{proc.stderr[-3000:]}")
    figures: dict = {"config": config, "seconds": round(seconds, 2)}
    match = SUMMARY.search(proc.stderr)
    if match:
        found = {k: v for k, v in match.groupdict().items() if v is not None}
        figures.update({k: int(v) if k in INTEGERS else float(v) if k in FLOATS else v
                        for k, v in found.items()})
        figures["log"] = match.group(0)
    elif config != "plain.yml":
        raise SystemExit(f"mkdocs build -f {config}: no semantic summary line in its log")
    return figures


def write_configs(project: Path) -> None:
    original = (project / "mkdocs.yml").read_text(encoding="utf-8")
    if "\n  - search\n" not in original:
        raise SystemExit("expected '  - search' under plugins: in the site's mkdocs.yml")
    (project / "plain.yml").write_text(original, encoding="utf-8")
    for encoder in ("transformer", "static"):
        plugin = (f"\n  - search\n  - semantic:\n      query_encoder: {encoder}\n"
                  f"      cache_dir: .cache-{encoder}\n")
        (project / f"{encoder}.yml").write_text(original.replace("\n  - search\n", plugin),
                                               encoding="utf-8")


def page_chunks(site: Path, url: str) -> int:
    from mkdocs_semantic.bundle import read_bundle

    return sum(1 for c in read_bundle(site).chunks if c.url == url)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path,
                        default=HERE.parent.parent / "shared/corpora/fastapi-docs")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    if not (args.site / "mkdocs.yml").exists():
        parser.error(f"no mkdocs.yml in {args.site}: pass --site")

    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "site-src"
        shutil.copytree(args.site, project)
        write_configs(project)
        runs = {"plain": build(project, "plain.yml")}
        for encoder in ("transformer", "static"):
            print(f"first build, query_encoder: {encoder}", file=sys.stderr)
            runs[f"first_{encoder}"] = build(project, f"{encoder}.yml")
        runs["no_change"] = build(project, "static.yml")
        edited = project / "docs" / EDITED_PAGE
        edited.write_text(edited.read_text(encoding="utf-8") + EDIT, encoding="utf-8")
        runs["one_page_edit"] = build(project, "static.yml")
        runs["one_page_edit"]["edited_page"] = EDITED_PAGE
        runs["one_page_edit"]["edited_page_chunks"] = page_chunks(
            project / "site-static", "tutorial/first-steps/")
    plain = runs["plain"]["seconds"]
    for run in runs.values():
        run["ratio_to_plain"] = round(run["seconds"] / plain, 2)
    transformer, static = runs["first_transformer"], runs["first_static"]
    results = {
        "runs": runs,
        "fit": {
            "first_build_added": round(static["seconds"] / transformer["seconds"] - 1, 3),
            "table_share_of_first_static_build": round(
                static["table_seconds"] / static["seconds"], 3),
            "limit": FIT_LIMIT,
            "no_change_table": runs["no_change"]["table"],
            "no_change_table_embedded": runs["no_change"]["table_embedded"],
            "no_change_embedded": runs["no_change"]["embedded"],
            "no_change_table_seconds": runs["no_change"]["table_seconds"],
        },
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "build_times.json").write_text(json.dumps(results, indent=2) + "\n")
    (args.out / "build_times.md").write_text(render(results))
    print(render(results))
    return 0


def render(results: dict) -> str:
    runs, fit = results["runs"], results["fit"]
    rows = "\n".join(
        f"| {name.replace('_', ' ')} | {r['config']} | {r['seconds']} | {r['ratio_to_plain']} "
        f"| {r.get('embedded', '-')} | {r.get('reused', '-')} | {r.get('chunks', '-')} "
        f"| {r.get('table', '-')} | {r.get('table_embedded', '-')} "
        f"| {r.get('table_seconds', '-')} | {r.get('bundle', '-')} |"
        for name, r in runs.items()
    )
    edit = runs["one_page_edit"]
    added = fit["first_build_added"]
    verdict = "within" if added <= fit["limit"] else "OVER"
    return f"""# Build times on fastapi-docs

Reproduce: `python bench/build_times.py`. One run, builds in this order on one copy
of the site; each first build starts from its own empty cache. Times are whole
`mkdocs build` processes on this machine (2 cores, shared), so read the ratios
within this run. The query table columns come from the plugin's build log line.

{HEADER}
{rows}

Fitting the static query encoder's table added **{added:.0%}** to the first build
(static first build against the transformer's, same run; limit {fit['limit']:.0%}: {verdict}).
The table step took {fit['table_share_of_first_static_build']:.0%} of the static first build.
A rebuild with nothing changed: query table {fit['no_change_table']},
{fit['no_change_table_embedded']} texts or tokens embedded for it,
{fit['no_change_embedded']} chunks embedded; the step (picking the training texts
and checking the cached table) took {fit['no_change_table_seconds']} s.

The edit appends one section to `{edit['edited_page']}`, a page of
{edit['edited_page_chunks']} chunks after the edit. Any changed chunk changes the
table's key, so that rebuild solves the table again: only the new training texts
and tokens are embedded.
"""


if __name__ == "__main__":
    sys.exit(main())
