"""What the site's owner deploys: the bundle's files and bytes, and what a deploy must
upload after a one-sentence edit of one page and after a rebuild with nothing changed,
beside Pagefind's index of the same builds, in one run.

On a real site (default ../shared/corpora/fastapi-docs):

1. copy the project into a temporary folder and build it with `plugins: [search,
   semantic]` (default options, the cache in the project), then run Pagefind over it;
2. change one sentence of one page (EDITED_PAGE), build again into another folder with
   the same cache, and run Pagefind over that build;
3. build once more with nothing changed, and run Pagefind again.

A deploy uploads the files whose path is new or whose bytes changed (how GitHub Pages'
artifact, Cloudflare Pages and rsync-like uploads see it). Sizes are apparent sizes;
`gzip` is what gzip -6 makes of the files one by one, for scale. The host limits are
the ones docs/deploy.md lists. Writes bench/results/deploy.{json,md}.

    python bench/deploy.py [--site ../shared/corpora/fastapi-docs] [--page PAGE] [--name NAME]

`--page`: the page to edit, under the site's docs/ (default EDITED_PAGE). Debian's manual
pages (bench/corpora/manpages.py): --site bench/.cache/man-pages/source --page
man1/tar.md --name manpages.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from build_times import build, parse_site_args, write_configs  # bench/build_times.py
from results_file import write_results  # bench/results_file.py

HERE = Path(__file__).resolve().parent
CONFIG = "static.yml"
EDITED_PAGE = "tutorial/first-steps.md"
PAGEFIND = HERE / "node_modules" / ".bin" / "pagefind"
CLOUDFLARE_FREE_FILES = 20_000


def listing(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file under `folder`: its path -> (sha256, bytes)."""
    files = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            files[path.relative_to(folder).as_posix()] = (hashlib.sha256(data).hexdigest(),
                                                          len(data))
    return files


def footprint(files: dict[str, tuple[str, int]], folder: Path) -> dict:
    return {"files": len(files), "bytes": sum(size for _, size in files.values()),
            "gzip_bytes": sum(len(gzip.compress((folder / name).read_bytes(), 6))
                              for name in files)}


def upload(before: dict[str, tuple[str, int]], after: dict[str, tuple[str, int]]) -> dict:
    """What a deploy of `after` over `before` sends: new paths and changed bytes."""
    changed = [name for name, entry in after.items() if before.get(name) != entry]
    return {"files": len(changed), "bytes": sum(after[name][1] for name in changed),
            "removed": len(set(before) - set(after)),
            "by_folder": by_folder({name: after[name] for name in changed})}


def by_folder(files: dict[str, tuple[str, int]]) -> dict[str, list[int]]:
    """Files and bytes per top folder ("." for the files at the top)."""
    folders: dict[str, list[int]] = {}
    for name, (_, size) in files.items():
        cell = folders.setdefault(name.split("/")[0] if "/" in name else ".", [0, 0])
        cell[0] += 1
        cell[1] += size
    return dict(sorted(folders.items()))


def edit_one_sentence(page: Path) -> str:
    """Add a word to the first prose sentence of `page`; returns the new sentence."""
    lines = page.read_text(encoding="utf-8").split("\n")
    for i, line in enumerate(lines):
        if re.match(r"^[A-Z][^`|<>#]*\.$", line) and len(line.split()) >= 6:
            lines[i] = line[:-1] + " during development."
            page.write_text("\n".join(lines), encoding="utf-8")
            return lines[i]
    raise SystemExit(f"{page} has no prose sentence to edit")


def pagefind(project: Path, site: str) -> None:
    proc = subprocess.run([str(PAGEFIND), "--site", site], cwd=project, capture_output=True,
                          text=True, timeout=3600)
    if proc.returncode != 0:
        raise SystemExit(f"pagefind failed on {site}:\n{proc.stderr[-2000:]}")


def pagefind_version() -> str:
    package = HERE / "node_modules" / "pagefind" / "package.json"
    match = re.search(r'"version":\s*"([^"]+)"', package.read_text()) if package.exists() \
        else None
    return match.group(1) if match else "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--page", default=EDITED_PAGE, help="the page to edit, under docs/")
    parser.add_argument("--name", help="the site's name in the results (default: its folder's; "
                        "bench/results/deploy_<name>.md unless it is fastapi-docs)")
    args = parse_site_args(parser)
    if not PAGEFIND.exists():
        raise SystemExit("bench/node_modules has no pagefind: run `npm ci` in bench/")
    with tempfile.TemporaryDirectory(prefix="deploy-") as tmp:
        project = Path(tmp) / "project"
        shutil.copytree(args.site, project)
        write_configs(project)
        runs = {}
        sentence = ""
        for name in ("first", "edited", "unchanged"):
            if name == "edited":
                sentence = edit_one_sentence(project / "docs" / args.page)
            figures = build(project, CONFIG, name=name)
            site = f"site-{name}"
            pagefind(project, site)
            root = project / site
            bundle = listing(root / "semantic")
            index = listing(root / "pagefind")
            everything = listing(root)
            runs[name] = {"build": {k: figures.get(k) for k in (
                              "seconds", "embedded", "chunks", "pages", "files",
                              "upload_files", "upload", "log")},
                          "bundle": bundle, "pagefind": index, "site": everything,
                          "bundle_fp": footprint(bundle, root / "semantic"),
                          "pagefind_fp": footprint(index, root / "pagefind"),
                          "site_files": len(everything) - len(index)}
    first, edited, unchanged = runs["first"], runs["edited"], runs["unchanged"]
    results = {
        "site": args.name or args.site.name,
        "pagefind_version": pagefind_version(),
        "load_1min": os.getloadavg()[0],
        "edited_page": args.page, "edited_sentence": sentence,
        "bundle": first["bundle_fp"], "pagefind": first["pagefind_fp"],
        "bundle_by_folder": by_folder(first["bundle"]),
        "site_files_with_bundle": first["site_files"],
        "edit_upload": {"bundle": upload(first["bundle"], edited["bundle"]),
                        "pagefind": upload(first["pagefind"], edited["pagefind"])},
        "unchanged_upload": {"bundle": upload(edited["bundle"], unchanged["bundle"]),
                             "pagefind": upload(edited["pagefind"], unchanged["pagefind"])},
        "builds": {name: run["build"] for name, run in runs.items()},
        "python": sys.version.split()[0],
    }
    name = results["site"]
    write_results(args.out, "deploy" if name == "fastapi-docs" else f"deploy_{name}", results,
                  render(results))
    return 0


def render(r: dict) -> str:
    b, p = r["bundle"], r["pagefind"]
    e, u = r["edit_upload"], r["unchanged_upload"]

    def mb(n: int) -> str:
        return f"{n / 1e6:.2f} MB"

    def sent(cell: dict) -> str:
        return f"{cell['files']:,} ({mb(cell['bytes'])})"

    rows = [
        ("files", f"{b['files']:,}", f"{p['files']:,}", b["files"] / max(p["files"], 1)),
        ("bytes", mb(b["bytes"]), mb(p["bytes"]), b["bytes"] / max(p["bytes"], 1)),
        ("bytes, each file gzipped", mb(b["gzip_bytes"]), mb(p["gzip_bytes"]),
         b["gzip_bytes"] / max(p["gzip_bytes"], 1)),
        (f"a one-sentence edit of `{r['edited_page']}`: files to upload",
         sent(e["bundle"]), sent(e["pagefind"]), None),
        ("a rebuild with nothing changed: files to upload", sent(u["bundle"]),
         sent(u["pagefind"]), None),
    ]
    table = "\n".join(f"| {what} | {ours} | {theirs} | "
                      f"{'' if ratio is None else f'{ratio:.1f}x'} |"
                      for what, ours, theirs, ratio in rows)
    edited = e["bundle"]["by_folder"]
    folder_rows = "\n".join(
        f"| {name} | {files:,} | {mb(size)} | {edited.get(name, [0, 0])[0]:,} | "
        f"{mb(edited.get(name, [0, 0])[1])} |"
        for name, (files, size) in r["bundle_by_folder"].items())
    version = r["pagefind_version"]
    return f"""# What a deploy carries: {r['site']}, this plugin beside Pagefind {version}

Written by `python bench/deploy.py`; 1-minute load average at the end {r['load_1min']:.1f}.
Default plugin options; Pagefind over the same build. Uploads count files whose path is new
or whose bytes changed.

| | this plugin's bundle | Pagefind's index | ratio |
| --- | --- | --- | --- |
{table}

The whole site with the bundle (Pagefind's index left out): {r['site_files_with_bundle']:,} files
(Cloudflare Pages' free plan: {CLOUDFLARE_FREE_FILES:,}).

The edit: "{r['edited_sentence']}"

| bundle folder | files | bytes | files to upload after the edit | bytes |
| --- | --- | --- | --- | --- |
{folder_rows}
"""


if __name__ == "__main__":
    raise SystemExit(main())
