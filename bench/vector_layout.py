"""Partitioned (IVF) against exact vector search: recall, bytes per query and scan time.

Real vectors: the chunk vectors of the fastapi-docs, MkDocs-docs and SciFact bundles
under bench/.cache, then the other vectors of their embedding caches (the sentences and
headings the query table was fitted on; the single-token vectors are left out), all
distinct. Sizes beyond the real ones (about 37k) are synthetic: copies of real vectors
plus Gaussian noise (each copy's cosine with its original is about NOISE_COSINE), said
so in the results. Queries: the relevance queries of fastapi-docs and MkDocs
(bench/relevance) and SciFact's, each embedded by its own site's static query encoder,
as the browser does.

At each size and partition size, one k-means partitioning (partitions.build_partitions);
per probe count:

- recall@10: the partitioned top 10 against the exact top 10 (same int8 scores), with
  the probe rule of partitions.probed (at least-at most partitions; `16-16` is a fixed
  probe of 16);
- vector bytes for a query, gzip: the centroids plus the probed partitions (a first
  query; later ones fetch only partitions not yet cached), against every exact part;
- scan time (Python, numpy): `VectorSet.scores` over the probed partitions against the
  exact scan, median over the queries.

Then, at the default probe rule, centroids kept from an earlier build (what a rebuild
does until partitions.drifted): fitted on the first 1 / REFIT_COUNT_RATIO of the rows,
every row assigned to them, as on a site that has grown by that much since the fit.

Then hybrid page MRR@10 on the relevance sets through the Searcher, with the layout
forced on for sites below the threshold (at the real partition size and at a small one
that makes each query probe a small share of the site).

    python bench/vector_layout.py [--sizes 2355,9420,37680,150720] [--rows 256]
        [--probes 8-8,16-16,8-32,12-96,32-32] [--mrr-rows 32,16]

Writes bench/results/vector_layout.{json,md}.
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from relevance import ranked_pages, read_queries
from results_file import write_results

from mkdocs_semantic import partitions
from mkdocs_semantic.bundle import VectorSet, partition_bytes, read_bundle, write_bundle
from mkdocs_semantic.bundle_format import VECTOR_PART_BYTES
from mkdocs_semantic.cache import cache_key
from mkdocs_semantic.quantize import Quantized, quantize
from mkdocs_semantic.search import Searcher

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
CHUNKS_PER_PAGE = 18
"""Page size for the partition files' page numbers (the 16x site: 37,680 chunks, 2,064 pages)."""


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


def queries() -> list[np.ndarray]:
    """int8 query codes, each query embedded by its own site's static encoder."""
    import json

    out = []
    for name, files in (("fastapi", ("fastapi-paraphrase", "fastapi-exact")),
                        ("mkdocs", ("mkdocs-paraphrase", "mkdocs-exact"))):
        searcher = Searcher.open(SITES[name])
        for file in files:
            for query, _ in read_queries(HERE / "relevance" / f"{file}.tsv"):
                out.append(searcher.embed(query))
    searcher = Searcher.open(SITES["scifact"])
    texts = [json.loads(line)["text"] for line in SCIFACT.open(encoding="utf-8")]
    for text in texts[:SCIFACT_QUERIES]:
        out.append(searcher.embed(text))
    return [q for q in out if q is not None]


def top(scores: np.ndarray, k: int = K) -> np.ndarray:
    scored = np.flatnonzero(~np.isnan(scores))
    return scored[np.lexsort((scored, -scores[scored]))][:k]


def gz(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=6, mtime=0))


def exact_set(stored: Quantized) -> VectorSet:
    step = max(1, VECTOR_PART_BYTES // stored.vectors.shape[1])
    rows = stored.vectors
    return VectorSet(dtype="i8", scale=stored.scale, dim=rows.shape[1],
                     parts=[rows[i:i + step] for i in range(0, len(rows), step)])


def measure_size(vectors: np.ndarray, codes: list[np.ndarray], *, rows_options: list[int],
                 probes: list[tuple[int, int]]) -> dict:
    stored = quantize(vectors, "i8")
    exact = exact_set(stored)
    exact_bytes = sum(gz(p.tobytes()) for p in exact.parts)
    exact_top, exact_ms = [], []
    for q in codes:
        started = time.perf_counter()
        scores = exact.scores(q)
        exact_ms.append((time.perf_counter() - started) * 1000)
        exact_top.append(top(scores))
    out = {"rows": len(vectors), "exact": {"bytes_gzip": exact_bytes,
                                           "parts": len(exact.parts),
                                           "scan_ms_median": float(np.median(exact_ms))},
           "partitioned": []}
    starts = np.append(np.arange(0, len(vectors), CHUNKS_PER_PAGE), len(vectors))
    for rows in rows_options:
        started = time.perf_counter()
        built = partitions.build_partitions(stored.vectors, rows_per_partition=rows)
        build_s = time.perf_counter() - started
        for probe, probe_max in probes:
            if probe > len(built.members):
                continue
            out["partitioned"].append({
                "rows_per_partition": rows, "build_s": round(build_s, 2),
                **measure_layout(built, stored, starts, codes, exact_top, probe=probe,
                                 probe_max=probe_max)})
            print(len(vectors), out["partitioned"][-1], file=sys.stderr)
    # A rebuild keeps the centroids of the build before until the site has grown by
    # REFIT_COUNT_RATIO: here fitted on the first 1 / REFIT_COUNT_RATIO of the rows, then
    # every row assigned to them, at the default probe rule.
    fitted = round(len(vectors) / partitions.REFIT_COUNT_RATIO)
    old = partitions.build_partitions(stored.vectors[:fitted],
                                      rows_per_partition=partitions.PARTITION_ROWS)
    kept = partitions.assign(stored.vectors, old.centroids)
    out["kept"] = {"fitted_rows": fitted, "rows_per_partition": partitions.PARTITION_ROWS,
                   **measure_layout(kept, stored, starts, codes, exact_top,
                                    probe=partitions.PROBE, probe_max=partitions.PROBE_MAX)}
    print(len(vectors), "kept", out["kept"], file=sys.stderr)
    return out


def measure_layout(built: partitions.Partitions, stored: Quantized, starts: np.ndarray,
                   codes: list[np.ndarray], exact_top: list[np.ndarray], *, probe: int,
                   probe_max: int) -> dict:
    """Recall, bytes and scan time of one partitioning at one probe rule."""
    members = built.members
    parts = [stored.vectors[m] for m in members]
    part_gz = [gz(partition_bytes(m, p, starts)) for m, p in zip(members, parts)]
    centroid_gz = gz(built.centroids.tobytes())
    sizes = np.array([len(m) for m in members])
    vs = VectorSet(dtype="i8", scale=stored.scale, dim=stored.vectors.shape[1], parts=parts,
                   ids=members, centroids=built.centroids, probe=probe,
                   probe_max=min(probe_max, len(members)))
    recall, sent, scanned, ms, probed_n = [], [], [], [], []
    for q, want in zip(codes, exact_top):
        started = time.perf_counter()
        scores = vs.scores(q)
        ms.append((time.perf_counter() - started) * 1000)
        got = top(scores)
        recall.append(len(set(got.tolist()) & set(want.tolist())) / len(want))
        probed = vs.probed(q)
        probed_n.append(len(probed))
        sent.append(centroid_gz + sum(part_gz[p] for p in probed))
        scanned.append(int(sizes[probed].sum()))
    return {
        "partitions": len(members), "probe": probe, "probe_max": probe_max,
        "probed_mean": round(float(np.mean(probed_n)), 1),
        "largest_partition": int(sizes.max()),
        "recall@10": round(float(np.mean(recall)), 4),
        "recall@10_min": round(float(np.min(recall)), 2),
        "centroid_bytes_gzip": centroid_gz,
        "first_query_bytes_gzip_median": int(np.median(sent)),
        "first_query_bytes_gzip_p95": int(np.percentile(sent, 95)),
        "rows_scanned_median": int(np.median(scanned)),
        "rows_scanned_mean": int(np.mean(scanned)),
        "scan_ms_median": round(float(np.median(ms)), 3),
    }


def forced_mrr(rows_per_partition: int) -> list[dict]:
    """Hybrid page MRR@10 of each relevance set, exact against the partitioned layout
    forced on (partitions of `rows_per_partition`)."""
    results = []
    for name in ("fastapi", "mkdocs"):
        bundle = read_bundle(SITES[name])
        exact = Searcher(bundle)
        with tempfile.TemporaryDirectory() as tmp:
            saved = partitions.PARTITION_ROWS
            partitions.PARTITION_ROWS = rows_per_partition
            try:
                out = Path(tmp) / "semantic"
                write_bundle(out, chunks=bundle.chunks,
                             stored=Quantized(bundle.vectors.matrix(), "i8", bundle.scale),
                             spec=bundle.model_spec(), table=bundle.table,
                             search=dict(bundle.manifest.search), vector_layout="partitioned")
            finally:
                partitions.PARTITION_ROWS = saved
            part = Searcher(read_bundle(out))
            for file in (f"{name}-paraphrase", f"{name}-exact"):
                rows = read_queries(HERE / "relevance" / f"{file}.tsv")
                scores = {}
                for label, searcher in (("exact", exact), ("partitioned", part)):
                    rr = []
                    for query, expected in rows:
                        pages = ranked_pages(searcher, query, "hybrid")
                        first = next((i for i, p in enumerate(pages[:10], 1)
                                      if p in expected), None)
                        rr.append(1 / first if first else 0.0)
                    scores[label] = round(float(np.mean(rr)), 4)
                vs = part.bundle.vectors
                results.append({"set": file, "chunks": len(bundle.chunks),
                                "rows_per_partition": rows_per_partition,
                                "partitions": len(vs.parts),
                                "probe": f"{vs.probe}-{vs.probe_max}",
                                "mrr@10_exact": scores["exact"],
                                "mrr@10_partitioned": scores["partitioned"],
                                "difference": round(scores["partitioned"] - scores["exact"], 4)})
                print(results[-1], file=sys.stderr)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2355,9420,37680,150720")
    parser.add_argument("--rows", default="256")
    parser.add_argument("--probes", default="8-8,16-16,8-32,12-96,32-32",
                        help="partitions probed, at least-at most (see partitions.probed)")
    parser.add_argument("--mrr-rows", default="32,16")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    real = real_vectors()
    codes = queries()
    print(f"{len(real)} real vectors, {len(codes)} queries", file=sys.stderr)
    sizes = []
    for size in (int(s) for s in args.sizes.split(",")):
        vectors, synthetic = grown(real, size, rng)
        result = measure_size(vectors, codes, rows_options=[int(r) for r in
                                                            args.rows.split(",")],
                              probes=[tuple(int(x) for x in p.split("-"))
                                      for p in args.probes.split(",")])
        result["synthetic"] = synthetic
        sizes.append(result)
    mrr = [r for rows in args.mrr_rows.split(",") for r in forced_mrr(int(rows))]
    figures = {"real_vectors": len(real), "queries": len(codes),
               "noise_cosine": NOISE_COSINE, "load_average": list(os.getloadavg()),
               "machine": f"{platform.machine()}, {os.cpu_count()} cores",
               "defaults": {"rows_per_partition": partitions.PARTITION_ROWS,
                            "probe": partitions.PROBE, "probe_max": partitions.PROBE_MAX,
                            "min_chunks": partitions.PARTITIONED_MIN_CHUNKS},
               "sizes": sizes, "hybrid_mrr": mrr}
    write_results(args.out, "vector_layout", figures, render(figures))
    return 0


def kb(n: float) -> str:
    return f"{n / 1000:,.0f} kB"


def render(f: dict) -> str:
    lines = [
        "# Vector layout: partitioned (IVF) against exact", "",
        "Reproduce: `python bench/vector_layout.py`. One run; "
        f"{f['machine']}, load average {', '.join(f'{x:.2f}' for x in f['load_average'])}. "
        f"{f['real_vectors']:,} distinct real vectors (the chunks of fastapi-docs, MkDocs "
        "and SciFact, then the other texts of their embedding caches); sizes above that "
        "add synthetic copies (a real vector plus noise, cosine about "
        f"{f['noise_cosine']} with it). {f['queries']} real queries (fastapi-docs and "
        "MkDocs relevance sets, SciFact), each embedded by its site's static encoder.", "",
        "Bytes: gzip (level 6) of the vector payloads a first query fetches: every part "
        "for exact; the centroids and the probed partitions for partitioned (a later "
        "query fetches only partitions not yet cached). Scan: the Python reader's "
        "`VectorSet.scores`, median over the queries.", "",
        "| vectors (synthetic) | layout | partitions (largest) | probe, at least-at most "
        "(mean) | recall@10 (min) | vector bytes, first query: median (p95) | rows scanned: "
        "median (mean) | scan |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in f["sizes"]:
        e = s["exact"]
        lines.append(f"| {s['rows']:,} ({s['synthetic']:,}) | exact | {e['parts']} parts | "
                     f"all | 1 | {kb(e['bytes_gzip'])} | {s['rows']:,} | "
                     f"{e['scan_ms_median']:.2f} ms |")
        kept = dict(s["kept"], label=f"kept centroids, fitted on {s['kept']['fitted_rows']:,}")
        for p in [*s["partitioned"], kept]:
            label = p.get("label", "partitioned")
            lines.append(
                f"| | {label}, {p['rows_per_partition']} rows | {p['partitions']} "
                f"({p['largest_partition']}) | {p['probe']}-{p['probe_max']} "
                f"({p['probed_mean']}) | {p['recall@10']:.3f} "
                f"({p['recall@10_min']:.1f}) | {kb(p['first_query_bytes_gzip_median'])} "
                f"({kb(p['first_query_bytes_gzip_p95'])}) | {p['rows_scanned_median']:,} "
                f"({p['rows_scanned_mean']:,}) | {p['scan_ms_median']:.2f} ms |")
    lines += ["", "Hybrid page MRR@10 through the Searcher, the partitioned layout forced "
              "on (these sites are below the threshold):", "",
              "| set | chunks | partition rows | partitions | probe | exact | partitioned "
              "| difference |", "|---|---|---|---|---|---|---|---|"]
    for m in f["hybrid_mrr"]:
        lines.append(f"| {m['set']} | {m['chunks']:,} | {m['rows_per_partition']} | "
                     f"{m['partitions']} | {m['probe']} | {m['mrr@10_exact']:.4f} | "
                     f"{m['mrr@10_partitioned']:.4f} | {m['difference']:+.4f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
