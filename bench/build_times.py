"""Build times on a real site: plain MkDocs against builds with the semantic plugin.

On a copy of ../shared/corpora/fastapi-docs, measures in one run, in this order:
plain `mkdocs build` (search plugin only); a first build with `query_encoder:
transformer` (no query table); a first build with `query_encoder: static` by the
package as it was at `--baseline` (a git ref) and one by the package as it is, each
with its own empty cache; then, on the static build's cache, a rebuild with nothing
changed and a rebuild after editing one section of one page.
For each: seconds and peak memory (RSS) of the whole process, chunks embedded, what
the query table cost (from the plugin's build log line), the longest silence in its
log (no terminal, as in CI), and how far the time left shown at 10 % of the chunk
embedding was from the real time left. Writes bench/results/build_times.{json,md}.

    python bench/build_times.py [--site ../shared/corpora/fastapi-docs] [--baseline REF]
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from io import BytesIO
from pathlib import Path

from results_file import write_results  # bench/results_file.py

HERE = Path(__file__).resolve().parent
SUMMARY = re.compile(
    r"semantic: (?P<pages>\d+) pages, (?P<chunks>\d+) chunks, (?P<embedded>\d+) embedded, "
    r"(?P<reused>\d+) reused; bundle (?P<bundle>[\d.]+ [KMG]?B)"
    r"(?: \+ model (?P<model>[\d.]+ [KMG]?B))?(?: \+ client (?P<client>[\d.]+ [KMG]?B))?"
    r"(?:, (?P<files>[\d,]+) files(?:; (?P<upload_files>[\d,]+) to upload since the last "
    r"build \((?P<upload>[\d.]+ [KMG]?B)\))?)?"
    r"(?:; query table (?P<table>fitted|reused) \((?P<table_embedded>\d+) embedded, "
    r"(?P<table_seconds>[\d.]+) s\)(?:, fitted before (?P<drift>[\d,]+) of [\d,]+ section "
    r"texts changed \(refit past \d+%\))?(?:, (?P<agreement>\d+)% of top-10 chunks as the "
    r"model's \(cosine (?P<cosine>[\d.]+)\))?)?; (?P<plugin_seconds>[\d.]+) s"
)
INTEGERS = ("pages", "chunks", "embedded", "reused", "table_embedded")
FLOATS = ("table_seconds", "plugin_seconds")
EDITED_PAGE = "tutorial/first-steps.md"
EDIT = "\n\n## Checking the setup\n\nA short paragraph added by the benchmark to change one page.\n"
FIT_LIMIT = 0.30
BASELINE_REF = "65aaf00"
"""main before token-sized batches and the progress lines: 32 chunks per batch, sorted by
characters."""
SPEEDUP_LIMIT = 0.6
RSS_LIMIT_MB = 700
GAP_LIMIT = 15.0
ETA_TOLERANCE = 0.30
PROGRESS = re.compile(r"semantic: embedding chunks [\d,]+/[\d,]+ \((?P<share>\d+)%\).*?about "
                      r"(?P<left>[^,]+?) left")
DONE = re.compile(r"semantic: embedding chunks [\d,]+/[\d,]+ done in")
HEADER = ("| build | config | seconds | ratio to plain | peak RSS MB | longest silence s "
          "| chunks embedded | reused | chunks | query table | embedded for it | its seconds "
          "| bundle | load before / after |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def build(project: Path, config: str, *, pythonpath: Path | None = None,
          name: str | None = None) -> dict:
    """One `mkdocs build` with its log piped (no terminal, as in CI), each line stamped
    with when it arrived."""
    site = "site-" + (name or config.removesuffix(".yml"))
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "build", "-f", config, "-d", site],
        cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    lines: list[tuple[float, str]] = []
    reader = threading.Thread(target=lambda: lines.extend(
        (time.perf_counter() - started, line.rstrip("\n")) for line in proc.stderr))
    reader.start()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    reader.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    log = "\n".join(line for _, line in lines)
    if proc.returncode != 0:
        raise SystemExit(f"mkdocs build -f {config} failed:\n{log[-3000:]}")
    figures: dict = {"config": config, "seconds": round(seconds, 2),
                     "peak_rss_mb": round(usage.ru_maxrss / 1024),
                     # The machine is shared: its 1-minute load average around the build.
                     "load_1min": [round(load_before, 1), round(os.getloadavg()[0], 1)],
                     "longest_silence_s": longest_silence(lines, seconds)}
    figures.update(eta_check(lines))
    match = SUMMARY.search(log)
    if match:
        found = {k: v for k, v in match.groupdict().items() if v is not None}
        figures.update({k: int(v) if k in INTEGERS else float(v) if k in FLOATS else v
                        for k, v in found.items()})
        figures["log"] = match.group(0)
    elif config != "plain.yml":
        raise SystemExit(f"mkdocs build -f {config}: no semantic summary line in its log")
    return figures


def longest_silence(lines: list[tuple[float, str]], seconds: float) -> float:
    """The longest time without a log line, from the start to the process's end."""
    stamps = [0.0] + [t for t, _ in lines] + [seconds]
    return round(max(b - a for a, b in itertools.pairwise(stamps)), 1)


def parse_duration(text: str) -> float:
    """`42 s`, `3 min 05 s`, `1 h 02 min` (progress.duration's words) in seconds."""
    units = {"h": 3600, "min": 60, "s": 1}
    return float(sum(int(n) * units[u] for n, u in re.findall(r"(\d+) (h|min|s)\b", text)))


def eta_check(lines: list[tuple[float, str]]) -> dict:
    """The first progress line of the chunk embedding at 10 % or more: the time left it
    showed against the time the step really took from there."""
    done = next((t for t, line in lines if DONE.search(line)), None)
    for stamp, line in lines:
        match = PROGRESS.search(line)
        if match and int(match["share"]) >= 10 and done is not None:
            shown, real = parse_duration(match["left"]), done - stamp
            return {"eta_at_share": int(match["share"]), "eta_shown_s": shown,
                    "eta_real_s": round(real, 1),
                    "eta_error": round((shown - real) / real, 3) if real > 0 else None}
    return {}


def baseline_package(ref: str, into: Path) -> Path:
    """The package as it was at `ref` (git archive), with the browser client built now
    (the client is not what this times). Returns the folder to put on PYTHONPATH."""
    archive = subprocess.run(["git", "archive", "--format=tar", ref, "mkdocs_semantic"],
                             cwd=HERE.parent, capture_output=True, check=False)
    if archive.returncode != 0:
        raise SystemExit(f"--baseline {ref}: git archive failed: "
                         f"{archive.stderr.decode(errors='replace').strip()}")
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    assets = HERE.parent / "mkdocs_semantic" / "assets"
    shutil.copytree(assets, into / "mkdocs_semantic" / "assets", dirs_exist_ok=True)
    return into


def write_configs(project: Path) -> None:
    original = (project / "mkdocs.yml").read_text(encoding="utf-8")
    if "\n  - search\n" not in original:
        raise SystemExit("expected '  - search' under plugins: in the site's mkdocs.yml")
    (project / "plain.yml").write_text(original, encoding="utf-8")
    for name, encoder in (("transformer", "transformer"), ("static", "static"),
                          ("baseline", "static")):
        plugin = (f"\n  - search\n  - semantic:\n      query_encoder: {encoder}\n"
                  f"      cache_dir: .cache-{name}\n")
        (project / f"{name}.yml").write_text(original.replace("\n  - search\n", plugin),
                                            encoding="utf-8")


def page_chunks(site: Path, url: str) -> int:
    from mkdocs_semantic.bundle.reader import read_bundle

    return sum(1 for c in read_bundle(site).chunks if c.url == url)


def parse_site_args(parser: argparse.ArgumentParser) -> argparse.Namespace:
    """Add --site (a MkDocs project, fastapi-docs by default) and --out to a parser that
    holds the script's own options, parse, and check that the site is one."""
    parser.add_argument("--site", type=Path,
                        default=HERE.parent.parent / "shared/corpora/fastapi-docs")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    if not (args.site / "mkdocs.yml").exists():
        parser.error(f"no mkdocs.yml in {args.site}: pass --site")
    return args


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=BASELINE_REF,
                        help=f"git ref of the package to compare first builds with "
                             f"(default {BASELINE_REF})")
    args = parse_site_args(parser)

    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "site-src"
        shutil.copytree(args.site, project)
        write_configs(project)
        baseline = baseline_package(args.baseline, Path(tmp) / "baseline")
        runs = {"plain": build(project, "plain.yml")}
        print("first build, query_encoder: transformer", file=sys.stderr)
        runs["first_transformer"] = build(project, "transformer.yml")
        print(f"first build, query_encoder: static, package at {args.baseline}",
              file=sys.stderr)
        runs["first_static_baseline"] = build(project, "baseline.yml", pythonpath=baseline)
        print("first build, query_encoder: static", file=sys.stderr)
        runs["first_static"] = build(project, "static.yml")
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
            # The table step against the rest of the same build: free of the run-to-run
            # noise between two builds (their identical chunk embedding differs too).
            "table_step_added": round(
                static["table_seconds"] / (static["seconds"] - static["table_seconds"]), 3),
            "table_share_of_first_static_build": round(
                static["table_seconds"] / static["seconds"], 3),
            "limit": FIT_LIMIT,
            "no_change_table": runs["no_change"]["table"],
            "no_change_table_embedded": runs["no_change"]["table_embedded"],
            "no_change_embedded": runs["no_change"]["embedded"],
            "no_change_table_seconds": runs["no_change"]["table_seconds"],
        },
        "first_build": {
            "baseline": args.baseline,
            "ratio_to_baseline": round(
                static["seconds"] / runs["first_static_baseline"]["seconds"], 3),
            "limit": SPEEDUP_LIMIT,
            "peak_rss_mb": static["peak_rss_mb"],
            "baseline_peak_rss_mb": runs["first_static_baseline"]["peak_rss_mb"],
            "rss_limit_mb": RSS_LIMIT_MB,
            "longest_silence_s": static["longest_silence_s"],
            "baseline_longest_silence_s": runs["first_static_baseline"]["longest_silence_s"],
            "silence_limit_s": GAP_LIMIT,
            "eta_error": static.get("eta_error"),
            "eta_tolerance": ETA_TOLERANCE,
        },
    }
    write_results(args.out, "build_times", results, render(results))
    return 0


def render(results: dict) -> str:
    runs, fit = results["runs"], results["fit"]
    rows = "\n".join(
        f"| {name.replace('_', ' ')} | {r['config']} | {r['seconds']} | {r['ratio_to_plain']} "
        f"| {r['peak_rss_mb']} | {r['longest_silence_s']} | {r.get('embedded', '-')} "
        f"| {r.get('reused', '-')} | {r.get('chunks', '-')} "
        f"| {r.get('table', '-')} | {r.get('table_embedded', '-')} "
        f"| {r.get('table_seconds', '-')} | {r.get('bundle', '-')} "
        f"| {' / '.join(str(x) for x in r['load_1min'])} |"
        for name, r in runs.items()
    )
    edit = runs["one_page_edit"]
    first, static = results["first_build"], runs["first_static"]
    eta = ("no progress line at 10 % or more" if first["eta_error"] is None else
           f"at {static['eta_at_share']} % it showed {static['eta_shown_s']:.0f} s left; "
           f"the step took {static['eta_real_s']:.0f} s more ({first['eta_error']:+.0%})")

    def check(ok: bool) -> str:
        return "within" if ok else "OVER"

    added = fit["first_build_added"]
    verdict = "within" if added <= fit["limit"] else "OVER"
    if added < 0:
        verdict += ("; below zero, so the load differed between the two builds by more "
                    "than the table costs: read the figure within the static build")
    return f"""# Build times on fastapi-docs

Reproduce: `python bench/build_times.py`. One run, builds in this order on one copy
of the site; each first build starts from its own empty cache. Times are whole
`mkdocs build` processes on this machine (2 cores, shared), so read the ratios
within this run; the last column is the machine's 1-minute load average when each
build started and ended. The query table columns come from the plugin's build log line.

{HEADER}
{rows}

First build with the static encoder against the package at `{first['baseline']}`
(before token-sized batches), same run:
- time **{first['ratio_to_baseline']:.2f}x** the baseline's (limit {first['limit']}:
  {check(first['ratio_to_baseline'] <= first['limit'])});
- peak RSS **{first['peak_rss_mb']} MB** (baseline {first['baseline_peak_rss_mb']} MB; limit
  {first['rss_limit_mb']} MB: {check(first['peak_rss_mb'] <= first['rss_limit_mb'])});
- longest silence in its log (no terminal) **{first['longest_silence_s']} s** (baseline
  {first['baseline_longest_silence_s']} s; limit {first['silence_limit_s']:.0f} s:
  {check(first['longest_silence_s'] <= first['silence_limit_s'])});
- time left shown by the chunk embedding's progress: {eta} (tolerance
  ±{first['eta_tolerance']:.0%}: {check(first['eta_error'] is not None
  and abs(first['eta_error']) <= first['eta_tolerance'])}).

Fitting the static query encoder's table added **{added:.0%}** to the first build
(static first build against the transformer's, same run; limit {fit['limit']:.0%}: {verdict}).
Measured within the static build, its table step took {fit['table_step_added']:.0%} on top of
the rest of that build (limit {fit['limit']:.0%}: {check(fit['table_step_added'] <= fit['limit'])}).
The two builds embed the same chunks (each starts on some while pages are read), so
their chunk embedding's time after its first progress line at 10 % or more shows the
noise between them: {static.get('eta_real_s', '-')} s against
{runs['first_transformer'].get('eta_real_s', '-')} s.
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
