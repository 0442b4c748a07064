"""The nearest-chunk search of `load --index` and `load --db` at a million chunks.

bench/portal.py measures the whole service over the real sets (about 46,000 chunks).
What grows with the number of chunks is the nearest-neighbour search: keyword postings,
chunks and fragments are read per site, by the shards a query names. This bench puts
--rows synthetic int8 vectors into one usearch HNSW graph and one pgvector halfvec table
with an HNSW index, both built as `load` builds them (m 16, ef_construction 64), and
asks each for the 100 nearest chunks (what a query asks), from 16 threads at once.

The vectors are distinct but shaped like real ones: each is a random mix of two real
chunk vectors of the relevance sets (their bundles as bench/static_encoder.py builds
them) plus noise, normalized and quantized to int8. The queries are the sets' judged
queries as the static encoder makes them. Recall@10 is against the exact int8 scan.

    python bench/portal_scale.py [--rows 1000000] [--seconds 20] [--skip-db]

Writes bench/results/portal_scale.{json,md}.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402
from portal import percentiles, postgres, run_all  # noqa: E402
from results_file import write_results  # noqa: E402

from mkdocs_semantic.constants import VECTOR_CHUNKS  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.model.spec import default_model_spec  # noqa: E402
from mkdocs_semantic.portal.hnsw import (  # noqa: E402
    HnswSettings,
    usearch_index_class,
    write_graph,
)
from mkdocs_semantic.portal.pg_load import vector_text  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

THREADS = 16
SEED = 11
EF_SEARCH = (128, 256, 512, 1000)
TIMED_EF = (256, 512)
"""The default ef_search, and the one that reaches recall@10 0.98 at a million rows."""
"""Candidate lists tried for recall on the same graph and index (256 is the default;
pgvector takes at most 1000)."""
SETS = ("fastapi", "mkdocs", "manpages", "npm", "postgres", "python")


def real_rows_and_queries() -> tuple[np.ndarray, list[np.ndarray]]:
    """Every set's chunk vectors (float, unit length) and its queries' static codes."""
    spec = default_model_spec()
    loaders = se.set_loaders(spec, OnnxEmbedder(spec), se.SHARED / "bench" / "scifact")
    rows, queries = [], []
    for name in SETS:
        print(f"{name}: loading", file=sys.stderr)
        corpus = loaders[name]()
        vectors = corpus.bundle.vectors
        rows.append(vectors.matrix().astype(np.float32) / vectors.scale)
        searcher = Searcher(corpus.bundle)
        queries += [c for q in corpus.queries if (c := searcher.embed(q.text)) is not None]
    return np.concatenate(rows), queries


def synthetic(real: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """`count` int8 rows: mixes of two real rows plus noise, one global scale."""
    out = np.empty((count, real.shape[1]), dtype=np.int8)
    scale = None
    for start in range(0, count, 100_000):
        n = min(100_000, count - start)
        a, b = real[rng.integers(0, len(real), n)], real[rng.integers(0, len(real), n)]
        w = rng.uniform(0.2, 0.8, (n, 1)).astype(np.float32)
        mixed = w * a + (1 - w) * b + rng.normal(0, 0.02, a.shape).astype(np.float32)
        mixed /= np.linalg.norm(mixed, axis=1, keepdims=True)
        if scale is None:
            scale = 127.0 / float(np.abs(mixed).max())
        out[start:start + n] = np.clip(np.rint(mixed * scale), -127, 127)
    return out


def exact_top(rows: np.ndarray, queries: list[np.ndarray], k: int = 10) -> list[np.ndarray]:
    """Each query's k best rows by exact int8 dot product (ties by row number), scanned in
    blocks of rows against every query at once."""
    matrix = np.stack(queries).astype(np.float32)
    best_ids = np.zeros((len(queries), 0), dtype=np.int64)
    best_dots = np.zeros((len(queries), 0), dtype=np.float32)
    for start in range(0, len(rows), 100_000):
        block = rows[start:start + 100_000].astype(np.float32) @ matrix.T  # rows x queries
        top = np.argpartition(-block, min(k, len(block) - 1), axis=0)[:k].T
        best_ids = np.concatenate([best_ids, top + start], axis=1)
        best_dots = np.concatenate([best_dots, np.take_along_axis(block.T, top, axis=1)],
                                   axis=1)
    tops = []
    for ids, dots in zip(best_ids, best_dots):
        tops.append(ids[np.lexsort((ids, -dots))][:k])
    return tops


def recall(found: list[np.ndarray], exact: list[np.ndarray]) -> float:
    return round(float(np.mean([len(set(f[:10].tolist()) & set(e.tolist())) / 10
                                for f, e in zip(found, exact)])), 4)


def timed_threads(ask, queries: list[np.ndarray], seconds: float) -> dict:
    latencies: list[float] = []
    until = time.monotonic() + seconds

    def work(offset: int) -> None:
        i = offset
        while time.monotonic() < until:
            started = time.perf_counter()
            ask(queries[i % len(queries)])
            latencies.append(time.perf_counter() - started)
            i += 1

    run_all([threading.Thread(target=work, args=(i * 17,)) for i in range(THREADS)])
    return {"queries": len(latencies), "per_second": round(len(latencies) / seconds, 1),
            **percentiles(latencies)}


def usearch_run(rows: np.ndarray, queries, exact, seconds: float, folder: Path) -> dict:
    settings = HnswSettings()
    path = folder / "scale.usearch"
    started = time.perf_counter()
    write_graph(rows, "i8", path, settings)  # as `load --index` builds: one thread
    build = time.perf_counter() - started
    view = usearch_index_class().restore(str(path), view=True)
    by_ef = {}
    for ef in EF_SEARCH:
        view.expansion_search = ef
        by_ef[ef] = recall([np.asarray(view.search(q, 10).keys) for q in queries], exact)
    timed = {}
    for ef in TIMED_EF:
        view.expansion_search = max(ef, VECTOR_CHUNKS)
        timed[ef] = timed_threads(lambda q: view.search(q, VECTOR_CHUNKS), queries, seconds)
    return {"build_s": round(build, 1), "build_threads": 1, "bytes": path.stat().st_size,
            "recall_at_10": by_ef[settings.expansion_search], "recall_by_ef_search": by_ef,
            "nearest_100": timed[settings.expansion_search], "nearest_100_by_ef": timed}


def postgres_run(rows: np.ndarray, queries, exact, seconds: float, folder: Path) -> dict:
    import psycopg

    settings = HnswSettings()
    with postgres(folder / "pg") as url:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute(f"CREATE TABLE scale (chunk integer PRIMARY KEY, embedding "
                         f"halfvec({rows.shape[1]}) NOT NULL)")
            started = time.perf_counter()
            with conn.cursor().copy("COPY scale (chunk, embedding) FROM STDIN") as copy:
                for chunk, row in enumerate(rows):
                    copy.write_row((chunk, vector_text(row)))
            copied = time.perf_counter() - started
            conn.execute("SET maintenance_work_mem = '3GB'")
            conn.execute("SET max_parallel_maintenance_workers = 1")
            started = time.perf_counter()
            conn.execute(f"CREATE INDEX ON scale USING hnsw (embedding halfvec_ip_ops) WITH "
                         f"(m = {settings.connectivity}, "
                         f"ef_construction = {settings.expansion_add})")
            build = time.perf_counter() - started
            conn.execute("ANALYZE scale")
            size = conn.execute("SELECT pg_total_relation_size('scale')").fetchone()[0]
        by_ef = {}
        with psycopg.connect(url, autocommit=True) as conn:
            for tried in EF_SEARCH:
                conn.execute(f"SET hnsw.ef_search = {tried}")
                by_ef[tried] = recall([np.array([r[0] for r in conn.execute(
                    "SELECT chunk FROM scale ORDER BY embedding <#> %s::halfvec LIMIT 10",
                    (vector_text(q),)).fetchall()]) for q in queries], exact)
        timed = {ef: pg_timed(url, max(ef, VECTOR_CHUNKS), queries, seconds) for ef in TIMED_EF}
    return {"copy_s": round(copied, 1), "build_s": round(build, 1), "bytes": size,
            "recall_at_10": by_ef[settings.expansion_search], "recall_by_ef_search": by_ef,
            "nearest_100": timed[settings.expansion_search], "nearest_100_by_ef": timed,
            "pool": 4}


def pg_timed(url: str, ef: int, queries, seconds: float) -> dict:
    """The 100 nearest from `THREADS` threads over a pool of 4 connections at `ef`."""
    from psycopg_pool import ConnectionPool

    def configure(conn) -> None:
        conn.execute(f"SET hnsw.ef_search = {ef}")

    with ConnectionPool(url, min_size=4, max_size=4, configure=configure,
                        kwargs={"autocommit": True}) as pool:
        def nearest(q: np.ndarray) -> list[int]:
            with pool.connection() as conn:
                return [r[0] for r in conn.execute(
                    "SELECT chunk FROM scale ORDER BY embedding <#> %s::halfvec "
                    f"LIMIT {VECTOR_CHUNKS}", (vector_text(q),)).fetchall()]

        return timed_threads(nearest, queries, seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--skip-db", action="store_true")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    real, queries = real_rows_and_queries()
    rng = np.random.default_rng(SEED)
    print(f"making {args.rows:,} rows", file=sys.stderr)
    rows = synthetic(real, args.rows, rng)
    queries = queries[:400]
    print("exact top 10", file=sys.stderr)
    exact = exact_top(rows, queries)
    results: dict = {"run": time.strftime("%Y-%m-%d %H:%M"), "rows": args.rows,
                     "real_rows": len(real), "queries": len(queries), "threads": THREADS,
                     "loadavg_before": [round(x, 2) for x in os.getloadavg()]}
    with tempfile.TemporaryDirectory(prefix="portal-scale-") as tmp:
        print("usearch", file=sys.stderr)
        results["usearch"] = usearch_run(rows, queries, exact, args.seconds, Path(tmp))
        if not args.skip_db:
            print("pgvector", file=sys.stderr)
            results["pgvector"] = postgres_run(rows, queries, exact, args.seconds, Path(tmp))
    write_results(args.out, "portal_scale", results, render(results))
    return 0


def render(r: dict) -> str:
    lines = [f"""# The nearest-chunk search at {r['rows']:,} chunks

Run {r['run']}, `python bench/portal_scale.py --rows {r['rows']}`: {r['rows']:,} synthetic int8
vectors (mixes of {r['real_rows']:,} real chunk vectors, plus noise), {r['queries']} real
queries (static encoder). {r['threads']} threads ask for the 100 nearest chunks at once, in
one process on this machine's 2 cores. Load average before: {r['loadavg_before']}.

| | build | bytes | recall@10 (exact int8 scan) | 100 nearest: p50 / p95 | per second |
|---|---|---|---|---|---|"""]
    for name in ("usearch", "pgvector"):
        if name not in r:
            continue
        b = r[name]
        build = f"{b['build_s']} s" + (f" (+ {b['copy_s']} s COPY)" if "copy_s" in b else "")
        t = b["nearest_100"]
        lines.append(f"| {name} | {build} | {b['bytes'] / 1e6:,.0f} MB | {b['recall_at_10']} | "
                     f"{t['p50_ms']} / {t['p95_ms']} ms | {t['per_second']} |")
    lines += ["", "Recall@10 by the candidate list while searching (ef_search), the same graph "
              "and index:", "", "| | " + " | ".join(f"ef {ef}" for ef in EF_SEARCH) + " |",
              "|---|" + "---|" * len(EF_SEARCH)]
    for name in ("usearch", "pgvector"):
        if name in r:
            by_ef = {int(k): v for k, v in r[name]["recall_by_ef_search"].items()}
            lines.append(f"| {name} | " + " | ".join(str(by_ef[ef]) for ef in EF_SEARCH)
                         + " |")
    lines += ["", "100 nearest, p50 / p95 and per second, by ef_search:", "",
              "| | " + " | ".join(f"ef {ef}" for ef in TIMED_EF) + " |",
              "|---|" + "---|" * len(TIMED_EF)]
    for name in ("usearch", "pgvector"):
        if name in r and "nearest_100_by_ef" in r[name]:
            by = {int(k): v for k, v in r[name]["nearest_100_by_ef"].items()}
            lines.append(f"| {name} | " + " | ".join(
                f"{by[ef]['p50_ms']} / {by[ef]['p95_ms']} ms, {by[ef]['per_second']}/s"
                for ef in TIMED_EF) + " |")
    lines += ["", "usearch: one graph built on one thread (as `load` builds it), "
              "memory-mapped (`Index.restore(view=True)`), expansion_search 256. pgvector: "
              "halfvec, a pool of 4 connections, hnsw.ef_search 256, maintenance_work_mem "
              "3 GB for the build.",
              "", "This is the vector side only: keyword postings, chunks and fragments are "
              "read per site, by the shards a query names, and their cost does not grow "
              "with the other sites' chunks."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
