"""compare.json -> compare.png: how each system's costs grow with the site's chunk count.

Runs in bench's own virtualenv (matplotlib), which bench/compare creates:

    bench/.cache/plot/bin/python bench/compare_lib/plot.py bench/results/compare.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import (
    LABEL,
    SYSTEMS,
    TARGET_FIRST_BYTES,
    TARGET_WARM_P95_MS,
    costs,
    first_search_bytes,
)

FLOOR = 0.01  # log axes: zero and noise below it are drawn at the floor
STYLE = {"material": ("#546e7a", "o"), "pagefind": ("#e65100", "s"), "plugin": ("#1565c0", "^")}


def main() -> int:
    source = Path(sys.argv[1])
    out = json.loads(source.read_text(encoding="utf-8"))
    scales = out["scales"]
    label = {k: f"{k}x\n{r['chunks']:,} chunks" if r.get("chunks") else f"{k}x\n{r['pages']} pages"
             for k, r in scales.items()}
    def browser(key, scale=1.0):
        return lambda c, r: (c["browser"][key] / scale if key in c["browser"] else None)

    panels = [
        ("build time added to plain mkdocs build (s)",
         lambda c, r: c["build_added"], "Material: its search plugin over plugins: []"),
        ("bytes added to site/ (MB)",
         lambda c, r: None if c["bytes_added"] is None else c["bytes_added"] / 1e6, None),
        ("search files at page load, bytes sent (MB)", browser("load_search_sent_bytes", 1e6),
         "Pagefind: 0 (nothing before the first query)"),
        ("search bytes sent for the first query (MB)",
         lambda c, r: (first_search_bytes(c["browser"]) or 0) / 1e6
         if "cold_ms" in c["browser"] else None,
         f"page load's + the query's, gzip; dotted: {TARGET_FIRST_BYTES / 1e6:g} MB target"),
        ("time to the first result, cold (ms)", browser("cold_ms"), None),
        ("warm query latency p50, p95 dashed (ms)", browser("warm_p50_ms"),
         f"dotted: {TARGET_WARM_P95_MS:g} ms p95 target"),
    ]
    targets = {3: TARGET_FIRST_BYTES / 1e6, 5: TARGET_WARM_P95_MS}
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.5))
    for number, (ax, (title, value, note)) in enumerate(zip(axes.flat, panels)):
        for name in SYSTEMS:
            xs, ys, p95 = [], [], []
            for key, record in scales.items():
                c = costs(record)[name]
                y = value(c, record)
                if y is None:
                    continue
                xs.append(int(key))
                ys.append(max(y, FLOOR))
                p95.append(c["browser"].get("warm_p95_ms"))
            color, marker = STYLE[name]
            if xs:
                ax.plot(xs, ys, marker=marker, color=color, label=LABEL[name])
                if title.startswith("warm") and all(v is not None for v in p95):
                    ax.plot(xs, p95, marker=marker, color=color, linestyle="--", alpha=0.6)
        if number in targets:
            ax.axhline(targets[number], color="#1565c0", linestyle=":", linewidth=1)
        ax.set_title(title + (f"\n{note}" if note else "\n"), fontsize=9.5)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("site size (multiples of fastapi-docs)", fontsize=8)
        ax.set_xticks([int(k) for k in label])
        ax.set_xticklabels(list(label.values()), fontsize=8)
        ax.minorticks_off()
        ax.grid(True, which="major", alpha=0.3)
    axes.flat[0].legend(fontsize=8, loc="upper left")
    served = {r.get("protocol", {}).get("served", "http/1.1") for r in scales.values()}
    fig.suptitle(f"fastapi-docs at {min(scales, key=int)}x-{max(scales, key=int)}x: this "
                 f"plugin, Material's search, Pagefind ({out['generated']}, "
                 f"{out['machine']['cores']} cores, served over {'/'.join(sorted(served))}, "
                 "gzip as GitHub Pages)", fontsize=11)
    fig.tight_layout()
    target = source.with_suffix(".png")
    fig.savefig(target, dpi=110)
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
