"""Exact int8 scoring of every stored vector: usearch's kernel against numpy, side by side.

The Python readers (Searcher, CLI, service, MCP) score the memory-mapped int8 vector
parts in place, one part at a time. This bench decides how: at each size it times, in
one run, interleaved,

- `usearch, parts`: usearch's exact int8 search, one search per part;
- `usearch, one array`: the same kernel over all rows at once;
- `numpy int32`: `part.astype(int32) @ codes` per part (a copy of each part per query);
- `numpy float32`: `part.astype(float32) @ query` per part, which
  `bundle.VectorSet.scores` uses (exact while dim <= 1040; int64 above).

Every variant must return the same integer dot products (checked). Rows are random
int8; a part holds 128 kB of rows, as the bundle writer cuts them.

    python bench/vector_scan.py [--sizes 2355,37680,150000] [--repeats 30]

Writes bench/results/vector_scan.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np
from native import usearch_exact_search

from mkdocs_semantic.bundle.format import VECTOR_PART_BYTES

HERE = Path(__file__).resolve().parent
DIM = 384


def make_parts(rows: int, rng: np.random.Generator) -> list[np.ndarray]:
    matrix = rng.integers(-127, 128, size=(rows, DIM), dtype=np.int8)
    step = max(1, VECTOR_PART_BYTES // DIM)
    return [matrix[i:i + step] for i in range(0, rows, step)]


def usearch_parts(parts: list[np.ndarray], codes: np.ndarray) -> np.ndarray:
    search, metric = usearch_exact_search()
    dots = np.zeros(sum(len(p) for p in parts), dtype=np.float64)
    at = 0
    for part in parts:
        found = search(part, codes, len(part), metric, exact=True, threads=1)
        dots[at + found.keys.astype(np.int64)] = 1.0 - found.distances.astype(np.float64)
        at += len(part)
    return dots


def usearch_whole(matrix: np.ndarray, codes: np.ndarray) -> np.ndarray:
    search, metric = usearch_exact_search()
    found = search(matrix, codes, len(matrix), metric, exact=True, threads=1)
    dots = np.zeros(len(matrix), dtype=np.float64)
    dots[found.keys.astype(np.int64)] = 1.0 - found.distances.astype(np.float64)
    return dots


def numpy_int32(parts: list[np.ndarray], codes: np.ndarray) -> np.ndarray:
    wide = codes.astype(np.int32)
    return np.concatenate([p.astype(np.int32) @ wide for p in parts]).astype(np.float64)


def numpy_float32(parts: list[np.ndarray], codes: np.ndarray) -> np.ndarray:
    query = codes.astype(np.float32)
    return np.concatenate([p.astype(np.float32) @ query for p in parts]).astype(np.float64)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2355,37680,150000")
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    results = []
    for rows in (int(s) for s in args.sizes.split(",")):
        parts = make_parts(rows, rng)
        matrix = np.concatenate(parts)
        variants = {
            "usearch, parts": lambda c, p=parts: usearch_parts(p, c),
            "usearch, one array": lambda c, m=matrix: usearch_whole(m, c),
            "numpy int32": lambda c, p=parts: numpy_int32(p, c),
            "numpy float32": lambda c, p=parts: numpy_float32(p, c),
        }
        times: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.repeats):
            codes = rng.integers(-127, 128, size=DIM, dtype=np.int8)
            expected = None
            for name, run in variants.items():  # interleaved: noise hits all alike
                started = time.perf_counter()
                dots = run(codes)
                times[name].append((time.perf_counter() - started) * 1000)
                if expected is None:
                    expected = dots
                elif not np.array_equal(dots, expected):
                    raise SystemExit(f"{name} disagrees with usearch at {rows} rows")
        medians = {name: float(np.median(t)) for name, t in times.items()}
        base = medians["usearch, parts"]
        results.append({"rows": rows, "parts": len(parts), "median_ms": medians,
                        "ratio_to_usearch_parts": {n: m / base for n, m in medians.items()}})
        print(rows, {n: round(m, 3) for n, m in medians.items()})
    record = {"dim": DIM, "repeats": args.repeats, "load_average": list(os.getloadavg()),
              "machine": f"{platform.machine()}, {os.cpu_count()} cores", "sizes": results}
    out = HERE / "results"
    (out / "vector_scan.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    lines = ["# Exact int8 scoring: usearch against numpy", "",
             "Reproduce: `python bench/vector_scan.py`. One run, variants interleaved, "
             f"median of {args.repeats} queries; {record['machine']}, load average "
             f"{', '.join(f'{x:.2f}' for x in record['load_average'])}. All variants return "
             "identical dot products.", "",
             "| rows (parts) | usearch, parts | usearch, one array | numpy int32 | "
             "numpy float32 |", "|---|---|---|---|---|"]
    for r in results:
        cells = [f"{r['median_ms'][n]:.2f} ms ({r['ratio_to_usearch_parts'][n]:.2f}x)"
                 for n in ("usearch, parts", "usearch, one array", "numpy int32",
                           "numpy float32")]
        lines.append(f"| {r['rows']:,} ({r['parts']}) | " + " | ".join(cells) + " |")
    (out / "vector_scan.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
