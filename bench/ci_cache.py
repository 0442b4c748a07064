"""A second CI-like build with the embedding cache restored, as actions/cache does it.

On a real site (default ../shared/corpora/fastapi-docs), in one run:

1. copy the project into a fresh temporary folder, with no cache, and build it with
   `plugins: [search, semantic]` (the first CI run);
2. save the plugin's cache folder as a gzip tar, as actions/cache saves its `path`;
3. delete the project, as a CI runner is thrown away;
4. copy the project afresh to the same place (the next run's checkout), untar the
   cache into it and build again.

A plain `mkdocs build` of the same copy comes first, for scale. Records the seconds of
each whole `mkdocs build` process, their ratio, the chunks and query-table texts each
embedded (from the plugin's log line), the cache folder's size and its tar's, and
writes bench/results/ci_cache.{json,md}. Builds and configs come from
bench/build_times.py, so both benchmarks build the same way.

    python bench/ci_cache.py [--site ../shared/corpora/fastapi-docs]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from build_times import build, parse_site_args, write_configs  # bench/build_times.py
from results_file import write_results  # bench/results_file.py

HERE = Path(__file__).resolve().parent
CONFIG = "static.yml"
"""build_times.write_configs' config with the default query encoder..."""
CACHE_DIR = ".cache-static"
"""...and its `cache_dir`: the folder a CI cache step would save."""


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def fresh_checkout(site: Path, project: Path) -> None:
    """The project as a new CI runner sees it: the sources, no cache, no built site."""
    if project.exists():
        shutil.rmtree(project)
    shutil.copytree(site, project)
    write_configs(project)


def save_cache(project: Path, tar_path: Path) -> dict:
    cache = project / CACHE_DIR
    if not cache.is_dir():
        raise SystemExit(f"the build wrote no cache folder {cache}: has {CONFIG}'s "
                         "cache_dir changed in bench/build_times.py?")
    with tarfile.open(tar_path, "w:gz") as tar:
        tar.add(cache, arcname=CACHE_DIR)
    return {"files": sorted(p.name for p in cache.iterdir()),
            "folder_bytes": folder_bytes(cache), "tar_gz_bytes": tar_path.stat().st_size}


def restore_cache(project: Path, tar_path: Path) -> None:
    with tarfile.open(tar_path, "r:gz") as tar:
        tar.extractall(project, filter="data")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep-site", type=Path,
                        help="copy the second build's site folder here, to query it")
    args = parse_site_args(parser)

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "site-src"
        tar_path = Path(tmp) / "semantic-cache.tar.gz"
        fresh_checkout(args.site, project)
        plain = build(project, "plain.yml")
        print("first build, empty cache", file=sys.stderr)
        first = build(project, CONFIG)
        cache = save_cache(project, tar_path)
        shutil.rmtree(project)
        fresh_checkout(args.site, project)
        restore_cache(project, tar_path)
        print("second build, cache restored", file=sys.stderr)
        second = build(project, CONFIG)
        if args.keep_site:
            shutil.rmtree(args.keep_site, ignore_errors=True)
            shutil.copytree(project / "site-static", args.keep_site)
    results = {
        "site": args.site.name,
        "measured": time.strftime("%Y-%m-%d %H:%M"),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "plain": plain,
        "first": first,
        "second": second,
        "second_to_first": round(second["seconds"] / first["seconds"], 3),
        "second_to_plain": round(second["seconds"] / plain["seconds"], 2),
        "cache": cache,
    }
    write_results(args.out, "ci_cache", results, render(results))
    return 0


def render(r: dict) -> str:
    rows = "\n".join(
        f"| {label} | {b['seconds']} | {b.get('embedded', '-')} | {b.get('reused', '-')} "
        f"| {b.get('table', '-')} | {b.get('table_embedded', '-')} "
        f"| {b.get('plugin_seconds', '-')} |"
        for label, b in (("plain `mkdocs build`", r["plain"]),
                         ("first CI run (empty cache)", r["first"]),
                         ("next CI run (cache restored)", r["second"])))
    cache = r["cache"]
    return f"""# A CI-like build with the embedding cache restored ({r['site']})

Reproduce: `python bench/ci_cache.py`. Measured {r['measured']}, load average before
{r['load_average_before']}, after {r['load_average_after']} (2 shared cores: read the
ratios). Each CI run starts from a fresh copy of the project; between them only the
plugin's cache folder survives, saved as a gzip tar and restored as actions/cache does.
Seconds are whole `mkdocs build` processes.

| build | seconds | chunks embedded | reused | query table | embedded for it | plugin seconds |
|---|---|---|---|---|---|---|
{rows}

The run with the restored cache took **{r['second_to_first']:.1%}** of the first run's
time ({r['second_to_plain']}x a plain build) and embedded {r['second'].get('embedded')}
chunks. The cache folder holds {', '.join(cache['files'])}:
{cache['folder_bytes']:,} bytes, {cache['tar_gz_bytes']:,} as a gzip tar.

First run's log line: `{r['first'].get('log')}`

Next run's log line: `{r['second'].get('log')}`
"""


if __name__ == "__main__":
    sys.exit(main())
