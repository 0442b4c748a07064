"""What a request costs this machine's Chromium: the floor under a warm query that fetches.

A Web Worker in headless Chromium (fresh profile, the same loopback HTTP/2 server as
bench/compare) fetches batches of small files it has never fetched: 1, 2, 5, 10, 20 and
50 at once, then 10 one after another (bench/compare_lib/fetch_cost.mjs). The line
through the batches' times gives the ms each file adds to a batch; the one-by-one
requests give the ms of a round trip. A query that asks for n new files in r rounds
pays about n times the first and r times the second whatever the search engine does,
so this says how many files a query may fetch within a latency target.

    python bench/fetch_cost.py [--profiles 5]

Needs what scripts/setup installs (js/node_modules: playwright-core; Debian's
chromium; openssl for HTTP/2). Writes bench/results/fetch_cost.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "compare_lib"))

from report import TARGET_WARM_P95_MS, files_within  # noqa: E402  (compare_lib/report.py)
from results_file import write_results  # noqa: E402  (bench/results_file.py)


def measure(profiles: int) -> dict:
    proc = subprocess.run(["node", str(HERE / "compare_lib" / "fetch_cost.mjs"),
                           "--profiles", str(profiles)],
                          cwd=HERE, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise SystemExit(f"fetch_cost.mjs failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def render(f: dict) -> str:
    rows = "\n".join(f"| {b['n']} | {b['median']:.1f} | {', '.join(f'{m:.1f}' for m in b['ms'])} |"
                     for b in f["batches"])
    budget = f["files_within_25ms"]
    return f"""# What a request costs this machine's Chromium

Reproduce: `python bench/fetch_cost.py`. Run {f['generated']}, {f['machine']}, load
average {', '.join(f'{x:.2f}' for x in f['load_average'])} when it began.
Headless Chromium ({f['chromium']}), a fresh profile each of {f['profiles']} times, a
Web Worker fetching files of {f['fileBytes']:,} bytes (a token-table shard's size) it has
never fetched, from the loopback server bench/compare uses ({f['protocol']}).

| files at once | ms, median | ms, each profile |
|---|---|---|
{rows}

- Each file adds **{f['perFile']:.1f} ms** to a batch (least squares over every batch;
  {f['intercept']:.1f} ms fixed): the files of one batch do not come in parallel, the
  browser's own work per request is the cost.
- A request made after the one before it came back: **{f['sequentialMedian']:.1f} ms**
  (median), a round trip.
- So a query that must fetch n files in r rounds spends about
  {f['perFile']:.1f} n + {f['sequentialMedian']:.1f} r ms on them here, before any search
  work: within 25 ms it may fetch about {budget['two_rounds']} files in 2 rounds, or
  {budget['three_rounds']} in 3.
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", type=int, default=5)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    load = list(os.getloadavg())
    figures = measure(args.profiles)
    chromium = subprocess.run([os.environ.get("CHROMIUM", "/usr/bin/chromium"), "--version"],
                              capture_output=True, text=True).stdout.strip()

    figures.update({
        "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "chromium": chromium, "load_average": load,
        "files_within_25ms": {"two_rounds": files_within(figures, TARGET_WARM_P95_MS, 2),
                              "three_rounds": files_within(figures, TARGET_WARM_P95_MS, 3)},
    })
    write_results(args.out, "fetch_cost", figures, render(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
