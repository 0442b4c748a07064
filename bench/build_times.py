"""Build times on a real site: plain MkDocs against builds with the semantic plugin.

On a copy of ../shared/corpora/fastapi-docs, measures in one run:
plain `mkdocs build` (search plugin only), the first build with the plugin
(empty cache), a rebuild with nothing changed, and a rebuild after editing one
section of one page; with the chunks embedded by each build. Writes
bench/results/build_times.{json,md}.

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
    r"(?P<reused>\d+) reused"
)
EDITED_PAGE = "tutorial/first-steps.md"
EDIT = "\n\n## Checking the setup\n\nA short paragraph added by the benchmark to change one page.\n"


def build(project: Path, config: str) -> dict:
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-f", config, "-d", "site"],
        cwd=project, capture_output=True, text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"mkdocs build -f {config} failed:\n{proc.stderr[-3000:]}")
    figures: dict = {"seconds": round(seconds, 2)}
    match = SUMMARY.search(proc.stderr)
    if match:
        figures.update({k: int(v) for k, v in match.groupdict().items()})
    return figures


def write_configs(project: Path) -> None:
    original = (project / "mkdocs.yml").read_text(encoding="utf-8")
    if "\n  - search\n" not in original:
        raise SystemExit("expected '  - search' under plugins: in the site's mkdocs.yml")
    (project / "plain.yml").write_text(original, encoding="utf-8")
    (project / "semantic.yml").write_text(
        original.replace("\n  - search\n", "\n  - search\n  - semantic\n"), encoding="utf-8")


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
        runs = {
            "plain": build(project, "plain.yml"),
            "first": build(project, "semantic.yml"),
            "no_change": build(project, "semantic.yml"),
        }
        edited = project / "docs" / EDITED_PAGE
        edited.write_text(edited.read_text(encoding="utf-8") + EDIT, encoding="utf-8")
        runs["one_page_edit"] = build(project, "semantic.yml")
        runs["one_page_edit"]["edited_page"] = EDITED_PAGE
        runs["one_page_edit"]["edited_page_chunks"] = page_chunks(
            project / "site", "tutorial/first-steps/")
        bundle = project / "site" / "semantic"
        runs["first"]["bundle_bytes_without_model"] = sum(
            p.stat().st_size for p in bundle.iterdir()
            if not p.name.startswith(("model.", "tokenizer.")))
    plain = runs["plain"]["seconds"]
    for run in runs.values():
        run["ratio_to_plain"] = round(run["seconds"] / plain, 2)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "build_times.json").write_text(json.dumps(runs, indent=2) + "\n")
    (args.out / "build_times.md").write_text(render(runs))
    print(render(runs))
    return 0


def render(runs: dict) -> str:
    rows = "\n".join(
        f"| {name.replace('_', ' ')} | {r['seconds']} | {r['ratio_to_plain']} | "
        f"{r.get('embedded', '-')} | {r.get('reused', '-')} | {r.get('chunks', '-')} |"
        for name, r in runs.items()
    )
    edit = runs["one_page_edit"]
    return f"""# Build times on fastapi-docs

Reproduce: `python bench/build_times.py`. One run, builds in this order on one copy
of the site; times are whole `mkdocs build` processes on this machine, so read
the ratios to the plain build of the same run.

| build | seconds | ratio to plain | chunks embedded | reused | chunks |
|---|---|---|---|---|---|
{rows}

The edit appends one section to `{edit['edited_page']}`, a page of
{edit['edited_page_chunks']} chunks after the edit. Bundle without model files:
{runs['first']['bundle_bytes_without_model']:,} bytes.
"""


if __name__ == "__main__":
    sys.exit(main())
