"""Partitioned (IVF with sign codes) against exact vector search: recall, bytes and time.

Real vectors: the chunk vectors of the fastapi-docs, MkDocs-docs and SciFact bundles
under bench/.cache, then the other vectors of their embedding caches (the sentences and
headings the query table was fitted on; the single-token vectors are left out), all
distinct. Sizes beyond the real ones (about 20k) are synthetic: copies of real vectors
plus Gaussian noise (each copy's cosine with its original is about NOISE_COSINE), said
so in the results. Queries: the relevance queries of fastapi-docs and MkDocs
(bench/relevance) and SciFact's, each embedded by its own site's static query encoder,
as the browser does.

At each size, one k-means partitioning per partition size (partitions.build_partitions)
and, per probe setting (rows probed at least):

- recall@10: the top 10 of the query's exactly scored candidates (vector_store.VectorSet)
  against the exact scan's top 10 (the same int8 scores);
- vector bytes a first query fetches, as a host serves these binary files (GitHub Pages
  compresses text types only): the index, the sign bits of the partitions it probes and
  the int8 rows of those holding its candidates; against every part for the exact layout;
- files fetched, rows probed, and the Python reader's time per query (the exact scan's
  against the partitioned one's, same process).

Then, at the default setting, centroids kept from an earlier build (what a rebuild does
until partitions.drifted): fitted on the first 1 / REFIT_COUNT_RATIO of the rows, every
row assigned to them, as on a site that has grown by that much since the fit.

    python bench/vector_layout.py [--sizes 2355,4710,9420,37680,150720] [--rows 64,128]
        [--probe-rows 2048,4096,8192]

Writes bench/results/vector_layout.{json,md}.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
from relevance import read_queries
from results_file import write_results

from mkdocs_semantic.bundle.format import VECTOR_PART_BYTES, partition_index_bytes
from mkdocs_semantic.bundle.quantize import Quantized, quantize
from mkdocs_semantic.bundle.reader import read_bundle
from mkdocs_semantic.bundle.vectors import partitions
from mkdocs_semantic.bundle.vectors.blocks import rows_file_bytes
from mkdocs_semantic.bundle.vectors.partition_files import (
    bin_bytes,
    in_memory_partition,
    number_bytes,
)
from mkdocs_semantic.bundle.vectors.store import VectorSet
from mkdocs_semantic.indexing.cache import cache_key
from mkdocs_semantic.search.ranking import chunk_order
from mkdocs_semantic.search.searcher import Searcher

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
SITES = {"fastapi": CACHE / "fastapi-docs/site", "mkdocs": CACHE / "mkdocs-docs/site",
         "scifact": CACHE / "scifact/bundle"}
CACHES = {"fastapi": CACHE / "fastapi-docs/plugin/embeddings.npz",
          "mkdocs": CACHE / "mkdocs-docs/plugin/embeddings.npz",
          "scifact": CACHE / "scifact/plugin/embeddings.npz"}
SCIFACT = HERE.parent.parent / "shared/bench/scifact/queries.jsonl"
SCIFACT_QUERIES = 200
NOISE_COSINE = 0.9
K = 10


def real_vectors() -> np.ndarray:
    """Distinct real float32 vectors: the three sites' chunks first, then their caches'
    other texts (the single-token vectors are not texts and are left out)."""
    chunks, others = [], []
    for name, site in SITES.items():
        bundle = read_bundle(site)
        chunks.append(bundle.vectors.matrix().astype(np.float32) / bundle.scale)
        cache = np.load(CACHES[name])
        fingerprint = str(cache["fingerprint"])
        tokens = {cache_key(fingerprint, f"\0token {i}") for i in range(40000)}
        keep = [i for i, key in enumerate(cache["keys"]) if bytes(key) not in tokens]
        others.append(cache["vectors"][keep])
    pool = np.concatenate(chunks + others)
    _, first = np.unique(np.round(pool, 4), axis=0, return_index=True)
    return pool[np.sort(first)]


def grown(real: np.ndarray, size: int, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """`size` vectors: the real ones first, then noisy copies; returns them and how many
    are synthetic."""
    if size <= len(real):
        return real[:size], 0
    extra = size - len(real)
    source = real[rng.integers(0, len(real), extra)]
    unit = source / np.linalg.norm(source, axis=1, keepdims=True)
    # noise of norm tan(acos(c)) orthogonal-ish to a unit vector: cosine ~ c
    sigma = np.tan(np.arccos(NOISE_COSINE)) / np.sqrt(real.shape[1])
    noisy = unit + rng.normal(0, sigma, unit.shape).astype(np.float32)
    noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
    return np.concatenate([real, noisy.astype(np.float32)]), extra


QUERY_SETS = ("fastapi", "mkdocs", "scifact")


def queries() -> tuple[list[np.ndarray], list[str]]:
    """int8 query codes, each query embedded by its own site's static encoder, and the
    set each comes from."""
    import json

    out: list[tuple[np.ndarray | None, str]] = []
    for name, files in (("fastapi", ("fastapi-paraphrase", "fastapi-exact")),
                        ("mkdocs", ("mkdocs-paraphrase", "mkdocs-exact"))):
        searcher = Searcher.open(SITES[name])
        for file in files:
            for query, _ in read_queries(HERE / "relevance" / f"{file}.tsv"):
                out.append((searcher.embed(query), name))
    searcher = Searcher.open(SITES["scifact"])
    texts = [json.loads(line)["text"] for line in SCIFACT.open(encoding="utf-8")]
    for text in texts[:SCIFACT_QUERIES]:
        out.append((searcher.embed(text), "scifact"))
    kept = [(q, name) for q, name in out if q is not None]
    return [q for q, _ in kept], [name for _, name in kept]


def top(scores: np.ndarray, k: int = K) -> np.ndarray:
    return chunk_order(scores, ~np.isnan(scores))[:k]


def exact_set(stored: Quantized) -> VectorSet:
    step = max(1, VECTOR_PART_BYTES // stored.vectors.shape[1])
    rows = stored.vectors
    return VectorSet(dtype="i8", scale=stored.scale, dim=rows.shape[1],
                     parts=[rows[i:i + step] for i in range(0, len(rows), step)])


def partitioned_set(stored: Quantized, built: partitions.Partitions, *, probe_rows: int
                    ) -> VectorSet:
    """The set a reader builds from a bundle written with these partitions (its rows in
    blocks, as the writer stores them)."""
    rows = stored.vectors
    parts = [in_memory_partition(members, rows[members]) for members in built.members]
    return VectorSet(dtype="i8", scale=stored.scale, dim=rows.shape[1], partitions=parts,
                     sizes=np.array([len(m) for m in built.members]),
                     centroid_bits=partitions.sign_bits(built.centroids),
                     probe_rows=probe_rows, candidates=partitions.CANDIDATES)


def measure_size(vectors: np.ndarray, codes: list[np.ndarray], sets: list[str], *,
                 rows_options: list[int], probe_options: list[int]) -> dict:
    stored = quantize(vectors, "i8")
    exact = exact_set(stored)
    exact_top, exact_ms = [], []
    for q in codes:
        started = time.perf_counter()
        scores = exact.scores(q)
        exact_ms.append((time.perf_counter() - started) * 1000)
        exact_top.append(top(scores))
    dim = stored.vectors.shape[1]
    out = {"rows": len(vectors), "exact": {"bytes": len(vectors) * dim,
                                           "parts": len(exact.parts),
                                           "scan_ms_median": float(np.median(exact_ms))},
           "partitioned": []}
    for rows in rows_options:
        started = time.perf_counter()
        built = partitions.build_partitions(stored.vectors, rows_per_partition=rows)
        build_s = time.perf_counter() - started
        for probe_rows in probe_options:
            out["partitioned"].append({
                "rows_per_partition": rows, "build_s": round(build_s, 2),
                **measure_layout(built, stored, codes, sets, exact_top,
                                 probe_rows=probe_rows)})
            print(len(vectors), out["partitioned"][-1], file=sys.stderr)
    fitted = round(len(vectors) / partitions.REFIT_COUNT_RATIO)
    old = partitions.build_partitions(stored.vectors[:fitted],
                                      rows_per_partition=partitions.PARTITION_ROWS)
    kept = partitions.assign(stored.vectors, old.centroids)
    out["kept"] = {"fitted_rows": fitted, "rows_per_partition": partitions.PARTITION_ROWS,
                   **measure_layout(kept, stored, codes, sets, exact_top,
                                    probe_rows=partitions.PROBE_ROWS)}
    print(len(vectors), "kept", out["kept"], file=sys.stderr)
    return out


def measure_layout(built: partitions.Partitions, stored: Quantized,
                   codes: list[np.ndarray], sets: list[str], exact_top: list[np.ndarray], *,
                   probe_rows: int) -> dict:
    """Recall, bytes, files and time of one partitioning at one probe setting."""
    vs = partitioned_set(stored, built, probe_rows=probe_rows)
    dim = stored.vectors.shape[1]
    k = len(built.members)
    index_bytes = partition_index_bytes(k, dim)
    id_bytes = number_bytes(len(stored.vectors))  # as if each chunk were a page of its own
    recall, sent, files, probed_rows, ms = [], [], [], [], []
    for q, want in zip(codes, exact_top):
        started = time.perf_counter()
        scores = vs.scores(q)
        ms.append((time.perf_counter() - started) * 1000)
        recall.append(len(set(top(scores).tolist()) & set(want.tolist())) / len(want))
        probed = vs.probed(q)
        blocks = [vs.partition(number).blocks[block]
                  for number, block in vs.candidate_blocks(vs.candidate_rows(q))]
        sent.append(index_bytes + sum(bin_bytes(int(vs.sizes[p]), len(vs.partition(p).bits),
                                                len(vs.partition(p).blocks), dim, id_bytes)
                                      for p in probed)
                    + sum(rows_file_bytes(count, dim) for _, count in blocks))
        files.append(1 + len(probed) + len(blocks))
        probed_rows.append(int(vs.sizes[probed].sum()))
    sizes = vs.sizes
    return {
        "partitions": k, "probe_rows": probe_rows, "candidates": vs.candidates,
        "largest_partition": int(sizes.max()),
        "recall@10": round(float(np.mean(recall)), 4),
        "recall@10_min": round(float(np.min(recall)), 2),
        "recall@10_by_set": {name: round(float(np.mean([r for r, s in zip(recall, sets)
                                                         if s == name])), 4)
                             for name in QUERY_SETS},
        "index_bytes": index_bytes,
        "first_query_bytes_median": int(np.median(sent)),
        "first_query_bytes_p95": int(np.percentile(sent, 95)),
        "files_median": int(np.median(files)),
        "rows_probed_median": int(np.median(probed_rows)),
        "scan_ms_median": round(float(np.median(ms)), 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2355,4710,9420,37680,150720")
    parser.add_argument("--rows", default="64,128")
    parser.add_argument("--probe-rows", default="2048,4096,8192")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    real = real_vectors()
    codes, sets = queries()
    print(f"{len(real)} real vectors, {len(codes)} queries", file=sys.stderr)
    sizes = []
    for size in (int(s) for s in args.sizes.split(",")):
        vectors, synthetic = grown(real, size, rng)
        result = measure_size(vectors, codes, sets,
                              rows_options=[int(r) for r in args.rows.split(",")],
                              probe_options=[int(p) for p in args.probe_rows.split(",")])
        result["synthetic"] = synthetic
        sizes.append(result)
    figures = {"real_vectors": len(real), "queries": len(codes),
               "noise_cosine": NOISE_COSINE, "load_average": list(os.getloadavg()),
               "machine": f"{platform.machine()}, {os.cpu_count()} cores",
               "defaults": {"rows_per_partition": partitions.PARTITION_ROWS,
                            "probe_rows": partitions.PROBE_ROWS,
                            "candidates": partitions.CANDIDATES,
                            "min_bytes": partitions.PARTITIONED_MIN_BYTES},
               "sizes": sizes}
    write_results(args.out, "vector_layout", figures, render(figures))
    return 0


def kb(n: float) -> str:
    return f"{n / 1000:,.0f} kB"


def render(f: dict) -> str:
    d = f["defaults"]
    lines = [
        "# Vector layout: partitioned (IVF with sign codes) against exact", "",
        "Reproduce: `python bench/vector_layout.py`. One run; "
        f"{f['machine']}, load average {', '.join(f'{x:.2f}' for x in f['load_average'])}. "
        f"{f['real_vectors']:,} distinct real vectors (the chunks of fastapi-docs, MkDocs "
        "and SciFact, then the other texts of their embedding caches); sizes above that "
        "add synthetic copies (a real vector plus noise, cosine about "
        f"{f['noise_cosine']} with it). {f['queries']} real queries (fastapi-docs and "
        "MkDocs relevance sets, SciFact), each embedded by its site's static encoder.", "",
        "Recall@10: the top 10 of the query's exactly scored candidates against the exact "
        "scan's; by query set too (the 2,355 vectors are FastAPI's chunks alone, where the "
        "MkDocs and SciFact queries have no near neighbours and near-ties decide). Bytes: "
        "the vector files a first query fetches, as sent (binary files are "
        "not compressed by GitHub Pages): every part for exact; the index, the sign bits "
        "of the probed partitions and the int8 rows of those holding a candidate for "
        "partitioned (a later query fetches only files not yet cached). Scan: the Python "
        f"reader, median per query. Defaults: partitions of {d['rows_per_partition']} rows, "
        f"{d['probe_rows']:,} rows probed, {d['candidates']} candidates, the layout from "
        f"{d['min_bytes']:,} bytes of int8 vectors ({d['min_bytes'] // 384 + 1:,} chunks at "
        "dim 384).", "",
        "| vectors (synthetic) | layout | partitions (largest) | rows probed: setting "
        "(median) | recall@10 (min) | recall@10 of the FastAPI / MkDocs / SciFact queries "
        "| vector bytes, first query: median (p95) | files (median) | scan |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in f["sizes"]:
        e = s["exact"]
        lines.append(f"| {s['rows']:,} ({s['synthetic']:,}) | exact | {e['parts']} parts | "
                     f"all | 1 | 1 | {kb(e['bytes'])} | {e['parts']} | "
                     f"{e['scan_ms_median']:.2f} ms |")
        kept = dict(s["kept"], label=f"kept centroids, fitted on {s['kept']['fitted_rows']:,}")
        for p in [*s["partitioned"], kept]:
            label = p.get("label", "partitioned")
            lines.append(
                f"| | {label}, {p['rows_per_partition']} rows | {p['partitions']:,} "
                f"({p['largest_partition']}) | {p['probe_rows']:,} "
                f"({p['rows_probed_median']:,}) | {p['recall@10']:.3f} "
                f"({p['recall@10_min']:.1f}) | "
                + " / ".join(f"{p['recall@10_by_set'][n]:.3f}" for n in QUERY_SETS)
                + f" | {kb(p['first_query_bytes_median'])} "
                f"({kb(p['first_query_bytes_p95'])}) | {p['files_median']} "
                f"| {p['scan_ms_median']:.2f} ms |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
