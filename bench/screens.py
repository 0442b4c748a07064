"""Screenshots of the search UI: each theme's results, a keyboard selection and the
search dialog, in headless Chromium at 1000x700.

Builds example-site with the mkdocs, readthedocs and material themes, and `plain`, a
theme with no search box (its search button opens our dialog) (the plugin's
defaults, an embedding cache in bench/.cache/screens), serves each on 127.0.0.1 and
drives js/tools/display.mjs, which types QUERY, takes a shot of the results, presses
ArrowDown twice and takes another, then one of the search box and its list alone.
Writes bench/results/screens/<theme>-{results,selection,dialog}.png (readthedocs: the
sidebar's box and its panel), and plain-button.png (the page, the button focused).
bench/browser.py
calls it after its own run.

    python bench/screens.py [--out bench/results/screens]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TOOL = REPO / "js" / "tools" / "display.mjs"
QUERY = "how can my web app keep working without a network connection"
THEMES = {  # theme -> (its config, the search box display.mjs types into)
    "mkdocs": ({"name": "mkdocs"}, "mkdocs"),
    "readthedocs": ({"name": "readthedocs"}, "sidebar"),
    "material": ({"name": "material", "features": ["search.highlight"]}, "material"),
    "plain": ({"name": None, "custom_dir": "plain-theme"}, "button"),
}
# A theme of a site's own with no search box: the search button is the way in.
PLAIN_THEME = """\
<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>{{ page.title }} - {{ config.site_name }}</title></head>
<body style="font-family: sans-serif; max-width: 40rem; margin: 2rem auto">
<main>{{ page.content }}</main>
</body>
</html>
"""


def build(theme: dict, work: Path, name: str) -> Path:
    import yaml  # MkDocs' own dependency

    source = work / "source"
    if not source.exists():
        shutil.copytree(REPO / "example-site", source,
                        ignore=shutil.ignore_patterns("site", ".cache"))
        (source / "plain-theme").mkdir()
        (source / "plain-theme" / "main.html").write_text(PLAIN_THEME, encoding="utf-8")
    config = yaml.safe_load((source / "mkdocs.yml").read_text(encoding="utf-8"))
    cache = HERE / ".cache" / "screens"
    config.update(theme=theme, site_dir=str(work / name),
                  plugins=["search", {"semantic": {"cache_dir": str(cache)}}])
    config_file = source / f"mkdocs-{name}.yml"
    config_file.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config_file)],
                   check=True)
    return work / name


def save_screens(out: Path) -> list[str]:
    """Builds, drives and writes the PNGs; returns their paths."""
    files: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, (theme, box) in THEMES.items():
            site = build(theme, work, name)
            plan = {"site": str(site), "prefix": "/project/", "theme": box, "query": QUERY,
                    "out": str(out), "name": name}
            plan_file = work / f"{name}.json"
            plan_file.write_text(json.dumps(plan), encoding="utf-8")
            proc = subprocess.run(["node", str(TOOL), "screens", str(plan_file)],
                                  cwd=TOOL.parent.parent, capture_output=True, text=True,
                                  timeout=600)
            if proc.returncode != 0:
                raise SystemExit(f"{TOOL.name} screens {name} failed:\n{proc.stderr[-3000:]}")
            files += json.loads(proc.stdout)["files"]
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "results" / "screens")
    args = parser.parse_args()
    for path in save_screens(args.out):
        print(Path(path).relative_to(REPO) if Path(path).is_relative_to(REPO) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
