"""Issue #13's reader, measured: a query typed at human speed on a slow network while
the transformer query model downloads, in the mkdocs, readthedocs and material themes.

Builds example-site with each theme and `query_encoder: transformer` (an embedding
cache in bench/.cache/typing), serves it on 127.0.0.1 (compressed as GitHub Pages
compresses: text types gzipped, binary files as they are) and drives js/tools/drive.mjs's
`typing` scenario: a fresh browser profile, the network throttled with CDP
Network.emulateNetworkConditions, QUERY typed into the theme's own search box with
keyboard.type (each key held TYPE_DELAY_MS, the next pressed on its release). From the
page's log of every render it takes the ms from the last key press (and release) to the
first keyword results for the whole query, and to its first hybrid results. bench/browser.py
runs it and records the figures in bench/results/browser.{json,md}.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from drive_plan import drive_plan  # bench/drive_plan.py

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
QUERY = "how can my web app keep working offline"
TYPE_DELAY_MS = 120
THROTTLE = {"mbps": 20, "latencyMs": 40}
RUNS = 3  # per theme, each in a fresh profile
THEMES = {  # theme -> its config
    "mkdocs": {"name": "mkdocs"},
    "readthedocs": {"name": "readthedocs"},
    "material": {"name": "material"},
}
PREFIX = "/project/"
TARGET_KEYWORD_MS = 300  # issue #13: keyword results within 300 ms of the last key


def build(theme: dict, work: Path, name: str) -> Path:
    import yaml  # MkDocs' own dependency

    source = work / "source"
    if not source.exists():
        shutil.copytree(REPO / "example-site", source,
                        ignore=shutil.ignore_patterns("site", ".cache"))
    config = yaml.safe_load((source / "mkdocs.yml").read_text(encoding="utf-8"))
    semantic = {"cache_dir": str(HERE / ".cache" / "typing"), "query_encoder": "transformer"}
    config.update(theme=theme, site_dir=str(work / name),
                  plugins=["search", {"semantic": semantic}])
    config_file = source / f"mkdocs-{name}.yml"
    config_file.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config_file)],
                   check=True)
    return work / name


def drive_typing(site: Path, theme: str, work: Path) -> dict:
    plan = {"site": str(site), "prefix": PREFIX, "theme": theme, "start": "", "query": QUERY,
            "typeDelayMs": TYPE_DELAY_MS, "throttle": THROTTLE, "gzip": True}
    return drive_plan("typing", plan, work / f"typing-{theme}.json")


def timings(log: dict) -> dict:
    """ms from the last key press and release to the first keyword and the first hybrid
    results for the whole query (None: never shown), and whether a list was ever shown
    for another text than the box held then."""
    whole = [r for r in log["renders"] if r["links"] and (r["query"] or "").strip() == QUERY]
    first = {ranking: next((r["at"] for r in whole if r["ranking"] == ranking), None)
             for ranking in ("keyword", "hybrid")}
    # The mkdocs theme's box stops keyup at the window (lunr must not see it): no releases.
    last_key, last_up = log["keys"][-1], (log["ups"] or [None])[-1]
    since = lambda at, t: None if at is None or t is None else round(at - t)  # noqa: E731
    stale = [r for r in log["renders"]
             if r["links"] and (r["query"] or "").strip() != r["input"].strip()]
    return {
        "keyword_ms": since(first["keyword"], last_key),
        "keyword_ms_after_key_up": since(first["keyword"], last_up),
        "hybrid_ms": since(first["hybrid"], last_key),
        "model_requested_ms_before_last_key": None if log["modelRequestedAt"] is None
        else round(last_key - log["modelRequestedAt"]),
        "keys": len(log["keys"]),
        "stale_renders": len(stale),
        "errors": log["pageErrors"],
    }


def run(work: Path) -> dict:
    """Builds, drives RUNS times per theme; returns the figures."""
    out = {"query": QUERY, "type_delay_ms": TYPE_DELAY_MS, "throttle": THROTTLE,
           "runs_per_theme": RUNS, "target_keyword_ms": TARGET_KEYWORD_MS, "themes": {}}
    for name, theme in THEMES.items():
        site = build(theme, work, f"typing-{name}")
        runs = [timings(drive_typing(site, name, work)) for _ in range(RUNS)]
        out["themes"][name] = {"runs": runs, **summary(runs)}
    return out


def _median(values: list) -> float | None:
    present = [v for v in values if v is not None]
    return round(statistics.median(present)) if len(present) == len(values) else None


def summary(runs: list[dict]) -> dict:
    """The median and the worst of each figure (None if a run never showed it)."""
    out = {}
    for key in ("keyword_ms", "hybrid_ms"):
        values = [r[key] for r in runs]
        out[f"{key}_median"] = _median(values)
        out[f"{key}_max"] = None if None in values else max(values)
    out["stale_renders"] = sum(r["stale_renders"] for r in runs)
    return out


def target_rows(figures: dict) -> list[tuple[str, int | None, int]]:
    """(what, measured, target) rows for bench/browser.py's target table: the worst run."""
    return [(f"keyword results for the whole query, ms after its last key, typed at "
             f"{figures['throttle']['mbps']} Mbit/s while the model downloads ({theme}, "
             f"worst of {figures['runs_per_theme']})", t["keyword_ms_max"], TARGET_KEYWORD_MS)
            for theme, t in figures["themes"].items()]


def render(figures: dict) -> str:
    def cell(value) -> str:
        return "n/a" if value is None else f"{value:,}"

    rows = "\n".join(
        f"| {theme} | {cell(t['keyword_ms_median'])} / {cell(t['keyword_ms_max'])} | "
        f"{cell(_median([r['keyword_ms_after_key_up'] for r in t['runs']]))} | "
        f"{cell(t['hybrid_ms_median'])} / {cell(t['hybrid_ms_max'])} | {t['stale_renders']} |"
        for theme, t in figures["themes"].items())
    throttle = figures["throttle"]
    return f"""## Typing at human speed on a slow network (transformer query model)

The example site built with `query_encoder: transformer`, in each theme; the query
"{figures['query']}" typed into the theme's own search box with Playwright's
keyboard.type, each key held {figures['type_delay_ms']} ms, in a fresh profile, with
the network throttled by CDP `Network.emulateNetworkConditions` to
{throttle['mbps']} Mbit/s and {throttle['latencyMs']} ms latency, the site served as GitHub
Pages serves it. The model's files for the client's forward pass (about 14 MB, sent as
they are) are still downloading when the last key is pressed, so the
hybrid ranking waits for them; keyword results must not. ms after the last key was
pressed, median / worst of {figures['runs_per_theme']} runs per theme; "after release":
from the last key's release, {figures['type_delay_ms']} ms after its press (negative: shown
before it; n/a where the page stops key releases before they can be timed, as the
`mkdocs` theme's box does, or a run never showed the results). Stale renders: lists
shown for another text than the box held at that moment, over all runs (must be 0).

| theme | keyword results, ms | after release, ms (median) | hybrid results, ms | stale renders |
|---|---|---|---|---|
{rows}
"""
