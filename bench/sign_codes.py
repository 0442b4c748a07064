"""Fewer bytes of sign bits a row: what shorter candidate codes cost in recall.

A query in the partitioned layout reads the sign bits of every row of the partitions it
probes (4,096 rows at least, 48 bytes a row at 384 dimensions) to choose its candidates,
then the int8 rows of the blocks holding them. On a large site of distinct chunks the
bits are the largest part of a first query. This bench keeps the probe and the exact
rescoring as they are and changes only the code candidates are chosen by:

- `signs 384`: the shipped code, one sign bit per dimension;
- `top-variance D`: the sign bits of the D dimensions whose values vary most over the
  site's rows (a list of D dimension numbers the catalog would carry);
- `sums of k`: the sign of each sum of k neighbouring dimensions (384 / k bits), the query
  summed the same way;
- `product D-dim x 16`: a product code, each run of D dimensions k-means'd into 16 int8
  centroids (4 bits a run, a 6 kB codebook), scored by the query's dot product with the
  row's centroids.
- `centred signs 384`: one sign bit per dimension of the row minus the site's mean row
  (the query as it is: the mean's share of a score is the same for every row, so the
  bits spend no dimension on what every row shares).

Then, for the shipped code and 100 candidates, the rows files the candidates lie in
when a partition's rows are grouped in blocks of about R rows (partitions.row_blocks):
their bytes and number. Last, the probe itself: the partitions ranked by sign bits,
two bits or the int8 codes of their centroids (`vectors/cent`), probed until they hold at
least R rows, and the recall of the shipped candidates; and centred, both the probe (the
signs of each partition's mean row minus the site's) and its candidates (centred signs).

Per variant and number of candidates: vector recall@10 against the exact scan (a hit is a
result whose exact score is at least the exact 10th score) and the vector bytes of a
first query (the probed partitions' bits files with the code's bytes a row in place of
48, plus the rows files holding the candidates). Queries: bench/relevance/manpages-*,
embedded by the bundle's static encoder as the browser does. The bundle: Debian's manual
pages as bench/large_site.py builds it (25,440 distinct chunks).

    python bench/sign_codes.py [BUNDLE_FOLDER]

Writes bench/results/sign_codes.{json,md}.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from query_rounds import queries as relevance_queries  # bench/query_rounds.py
from results_file import write_results  # bench/results_file.py

from mkdocs_semantic.bundle.vectors import partitions
from mkdocs_semantic.bundle.vectors.store import VectorSet, payloads_of_index
from mkdocs_semantic.constants import ROW_CHECK_BYTES
from mkdocs_semantic.search.searcher import Searcher

HERE = Path(__file__).resolve().parent
DEFAULT = HERE / ".cache" / "large-site" / "auto" / "site" / "semantic"
QUERY_FILES = ("manpages-paraphrase.tsv", "manpages-exact.tsv")
CANDIDATES = (50, 75, 100, 150, 200)
BLOCK_ROWS = (1, 2, 4, 8)
PROBE_ROWS = (1024, 2048, 3072, 4096, 6144)
PRODUCT_SUBSPACE_DIMS = (4, 8, 16)
PRODUCT_CENTROIDS = 16
Code = Callable[[np.ndarray], np.ndarray]  # int rows (n x dim) -> values whose signs are the code
Scorer = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (chunk numbers, query codes) -> scores


def queries() -> list[str]:
    return relevance_queries(QUERY_FILES)


def scored_queries(searcher: Searcher, vectors: VectorSet, texts: list[str] | None = None):
    """Each query's int8 codes, its exact score against every chunk, and the exact 10th
    (`texts`: the queries, the man pages' relevance queries unless given)."""
    for text in queries() if texts is None else texts:
        codes = searcher.embed(text)
        if codes is not None:
            exact = vectors.scores(codes, every=True)
            yield codes, exact, np.sort(exact)[-10]


def variants(matrix: np.ndarray) -> dict[str, tuple[Code, int]]:
    """Each code: how rows and queries are mapped before their signs are taken, and its bits."""
    spread = np.argsort(-matrix.astype(np.float64).std(axis=0), kind="stable")
    out: dict[str, tuple[Code, int]] = {"signs 384": (lambda x: x, 384)}
    for d in (256, 192, 128):
        dims = np.sort(spread[:d])
        out[f"top-variance {d}"] = (lambda x, dims=dims: x[:, dims], d)
    for k in (2, 3):
        out[f"sums of {k}"] = (lambda x, k=k: x.reshape(len(x), -1, k).sum(axis=2), 384 // k)
    return out


def scorers(matrix: np.ndarray) -> dict[str, tuple[Scorer, float]]:
    """Each candidate code as a scorer of chunk numbers for a query, and its bytes a row
    (a product code's codebook apart: `codebook_bytes`)."""
    out: dict[str, tuple[Scorer, float]] = {}
    for name, (code, bits) in variants(matrix).items():
        out[name] = (lambda chunks, query, code=code: sign_scores(
            code(matrix[chunks]), code(np.asarray(query, dtype=np.int32)[None])[0]), bits / 8)
    centred = np.where(matrix - matrix.mean(axis=0) >= 0, 1, -1).astype(np.int64)
    out["centred signs 384"] = (lambda chunks, query: centred[chunks] @ np.asarray(
        query, dtype=np.int64), matrix.shape[1] / 8)
    for sub in PRODUCT_SUBSPACE_DIMS:
        codebook, codes = product_codes(matrix, sub)
        out[f"product {sub}-dim x {PRODUCT_CENTROIDS}"] = (
            lambda chunks, query, codebook=codebook, codes=codes: product_scores(
                codebook, codes[chunks], query), codes.shape[1] * np.log2(PRODUCT_CENTROIDS) / 8)
    return out


def product_codes(matrix: np.ndarray, sub: int, *, iterations: int = 25,
                  seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A product quantizer of the rows: each run of `sub` dimensions k-means'd (L2) into
    PRODUCT_CENTROIDS int8 centroids. Returns the codebook (spaces x centroids x sub,
    int8) and each row's centroid numbers (rows x spaces, uint8)."""
    rows = matrix.astype(np.float32)
    spaces = rows.shape[1] // sub
    data = rows.reshape(len(rows), spaces, sub).transpose(1, 0, 2)  # spaces x n x sub
    rng = np.random.default_rng(seed)
    centres = data[:, rng.choice(len(rows), PRODUCT_CENTROIDS, replace=False)].copy()
    for _ in range(iterations):
        nearest = _nearest(data, centres)
        for s in range(spaces):
            sums = np.zeros((PRODUCT_CENTROIDS, sub), dtype=np.float64)
            np.add.at(sums, nearest[s], data[s])
            counts = np.bincount(nearest[s], minlength=PRODUCT_CENTROIDS)
            keep = counts > 0
            centres[s, keep] = sums[keep] / counts[keep, None]
    codebook = np.clip(np.rint(centres), -127, 127).astype(np.int8)
    return codebook, _nearest(data, codebook.astype(np.float32)).T.astype(np.uint8)


def _nearest(data: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Each row's nearest centre in each space (spaces x n)."""
    dots = np.einsum("snd,skd->snk", data, centres)
    return (0.5 * (centres ** 2).sum(axis=2)[:, None, :] - dots).argmin(axis=2)


def product_scores(codebook: np.ndarray, codes: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The asymmetric score of each coded row: the query's dot product with the row's
    centroids, summed over the spaces (int64)."""
    spaces, _, sub = codebook.shape
    table = np.einsum("sd,skd->sk", np.asarray(query, dtype=np.int64).reshape(spaces, sub),
                      codebook.astype(np.int64))
    return table[np.arange(spaces), codes].sum(axis=1)


def codebook_bytes() -> int:
    """A product code's codebook: PRODUCT_CENTROIDS int8 values a dimension."""
    return PRODUCT_CENTROIDS * 384


def sign_scores(values: np.ndarray, query: np.ndarray) -> np.ndarray:
    """partitions.sign_scores on the mapped rows and query (the query's mapped values
    act as its codes)."""
    return (np.where(values >= 0, 1, -1).astype(np.int64) @ query.astype(np.int64))


def measure(folder: Path) -> dict:
    searcher = Searcher.open(folder)
    vectors = searcher.bundle.vectors
    if vectors.layout != "partitioned":
        raise SystemExit(f"{folder} is not in the partitioned layout: build the large site first")
    matrix = vectors.matrix().astype(np.int32)
    spec = searcher.bundle.catalog["vectors"][0]
    index = (folder / spec["index"][0]).read_bytes()
    bits_bytes = [size for _, size in payloads_of_index(spec, index)]
    codes_of = scorers(matrix)
    rows: dict[str, list[dict]] = {}
    for codes, exact, tenth in scored_queries(searcher, vectors):
        probed = vectors.probed(codes)
        parts = [vectors.partition(p) for p in probed]
        firsts = np.concatenate([p.first_chunks for p in parts])
        owner = np.concatenate([[k] * len(p.bits) for k, p in enumerate(parts)])
        local = np.concatenate([np.arange(len(p.bits)) for p in parts])
        distinct = sum(len(p.bits) for p in parts)
        for name, (score, row_bytes) in codes_of.items():
            scores = score(firsts, codes)
            for count in CANDIDATES:
                best = partitions.best_rows(firsts, scores, count)
                chosen = firsts[best]
                top = chosen[np.argsort(-exact[chosen], kind="stable")][:10]
                hits = int((exact[top] >= tenth).sum())
                blocks = {(int(owner[b]), int(parts[owner[b]].block_of(np.array([local[b]]))[0]))
                          for b in best}
                rows_bytes = sum(parts[k].blocks[j][1] * vectors.dim for k, j in blocks)
                bits_now = sum(bits_bytes[p] for p in probed)
                bits_then = bits_now - distinct * (vectors.dim // 8) + distinct * row_bytes
                rows.setdefault(f"{name}|{count}", []).append(
                    {"recall": hits / 10, "bits": bits_then, "rows": rows_bytes,
                     "files": len(probed) + len(blocks)})
    blocking = rows_by_block_size(vectors, searcher)
    probing = probe_by_centroid_code(folder, vectors, searcher, matrix, bits_bytes)
    summary = {}
    for key, per in rows.items():
        name, count = key.split("|")
        summary[key] = {"code": name, "candidates": int(count), "queries": len(per),
                        "codebook": codebook_bytes() if name.startswith("product") else 0,
                        "recall": statistics.mean(r["recall"] for r in per),
                        "below_1": sum(r["recall"] < 1 for r in per),
                        "min": min(r["recall"] for r in per),
                        "bits": statistics.median(r["bits"] for r in per),
                        "rows": statistics.median(r["rows"] for r in per),
                        "files": statistics.median(r["files"] for r in per)}
    return {"run": time.strftime("%Y-%m-%d %H:%M"), "chunks": int(vectors.rows),
            "partitions": len(vectors.partitions), "probe_rows": vectors.probe_rows,
            "variants": summary, "blocks": blocking, "probes": probing}


def rows_by_block_size(vectors: VectorSet, searcher: Searcher) -> dict:
    """Median bytes and files of the shipped candidates' rows, blocks of about R rows:
    the rows files, plus what the probed partitions' bits files list of them beyond the
    shipped blocks."""
    assignment: dict[tuple[int, int], np.ndarray] = {}
    per: dict[int, list[tuple[int, int]]] = {r: [] for r in BLOCK_ROWS}
    for text in queries():
        codes = searcher.embed(text)
        if codes is None:
            continue
        holding = vectors.candidate_rows(codes)
        for number, _ in holding:
            for r in BLOCK_ROWS:
                key = (number, r)
                if key not in assignment:
                    assignment[key] = partitions.row_blocks(vectors.partition_rows(number),
                                                            rows_per_block=r)
        probed = vectors.probed(codes)
        for r in BLOCK_ROWS:
            # each block costs its partition's bits file its row count: a byte, two past 255
            bytes_ = sum((max(1, round(len(part.bits) / r)) - len(part.blocks))
                         * (1 if len(part.bits) <= 255 else 2)
                         for part in (vectors.partition(p) for p in probed))
            files = 0
            for number, at in holding:
                blocks = assignment[(number, r)]
                used = np.unique(blocks[at])
                sizes = np.bincount(blocks)
                bytes_ += int(sizes[used].sum()) * vectors.dim + ROW_CHECK_BYTES * len(used)
                files += len(used)
            per[r].append((bytes_, files))
    return {str(r): {"rows": statistics.median(b for b, _ in v),
                     "files": statistics.median(f for _, f in v)} for r, v in per.items()}


def centroid_codes(centroids: np.ndarray) -> dict[str, tuple[np.ndarray, int]]:
    """Each code the probe could rank partitions by, and its bytes a centroid: the shipped
    signs; two bits a dimension (sign, and whether the value passes the centroid's
    median magnitude, weighted 3 to 1); the int8 centroid itself."""
    magnitude = np.abs(centroids)
    high = magnitude > np.median(magnitude, axis=1, keepdims=True)
    two_bits = np.where(centroids >= 0, 1, -1) * np.where(high, 3, 1)
    return {"signs": (np.where(centroids >= 0, 1, -1), centroids.shape[1] // 8),
            "2 bits": (two_bits, centroids.shape[1] // 4),
            "int8": (centroids, centroids.shape[1])}


def probe_by_centroid_code(folder: Path, vectors: VectorSet, searcher: Searcher,
                           matrix: np.ndarray, bits_bytes: list[int],
                           probe_rows: tuple[int, ...] = PROBE_ROWS) -> dict:
    """Recall@10 of the shipped candidates (sign bits, 100) when the probe ranks the
    partitions by another code of their centroids (`vectors/cent` holds them as int8),
    probing until at least R rows, and the bytes of the probed partitions' bits files."""
    cent = next((folder / "vectors").glob("cent.*.i8"))
    centroids = np.frombuffer(cent.read_bytes(), dtype=np.int8).reshape(-1, vectors.dim)
    members = [vectors.partition(p).ids for p in range(len(vectors.partitions))]
    sizes = np.array([len(m) for m in members])
    bits = partitions.sign_bits(matrix)
    found: dict[str, list[tuple[float, int, int]]] = {}
    codes_of = centroid_codes(centroids.astype(np.int64))
    mean = matrix.mean(axis=0)
    codes_of["centred"] = (np.where(np.stack([matrix[m].mean(axis=0) for m in members]) - mean
                                    >= 0, 1, -1), centroids.shape[1] // 8)
    row_bits = {name: bits for name in codes_of}
    row_bits["centred"] = partitions.sign_bits(matrix - mean)
    for codes, exact, tenth in scored_queries(searcher, vectors):
        query = np.asarray(codes, dtype=np.int64)
        for name, (code, _) in codes_of.items():
            order = np.lexsort((np.arange(len(sizes)), -(code @ query)))
            held = np.cumsum(sizes[order])
            for rows in probe_rows:
                probed = order[:int(np.searchsorted(held, rows)) + 1]
                ids = np.concatenate([members[p] for p in probed])
                best = ids[partitions.best_rows(
                    ids, partitions.sign_scores(row_bits[name][ids], codes), vectors.candidates)]
                top = best[np.argsort(-exact[best], kind="stable")][:10]
                found.setdefault(f"{name}|{rows}", []).append(
                    (int((exact[top] >= tenth).sum()) / 10, int(held[len(probed) - 1]),
                     sum(bits_bytes[p] for p in probed)))
    return {key: {"code": key.split("|")[0], "probe_rows": int(key.split("|")[1]),
                  "centroid_bytes": codes_of[key.split("|")[0]][1] * len(sizes),
                  "recall": statistics.mean(r for r, _, _ in per),
                  "rows": statistics.median(n for _, n, _ in per),
                  "bits": statistics.median(b for _, _, b in per)}
            for key, per in found.items()}


def render(results: dict) -> str:
    lines = ["# Shorter sign codes: recall and bytes of a first query's vectors", "",
             "Reproduce: `python bench/sign_codes.py "
             f"{results.get('folder', DEFAULT.relative_to(HERE.parent).as_posix())}` (the "
             "manual pages' bundle as bench/large_site.py or, at every page, "
             "bench/distinct_scale.py builds it). "
             f"Measured {results['run']} on Debian's manual pages ({results['chunks']:,} distinct "
             f"chunks, {results['partitions']} partitions, at least {results['probe_rows']:,} rows "
             "probed); bench/relevance/manpages-* queries, static encoder. Recall@10 of the "
             "partitioned search against the exact scan (tie-aware); bytes: the median query's "
             "bits files and rows files (binary, sent as they are).", "",
             "| code | candidates | recall@10 (queries below 1, min) | bits | rows "
             "| vectors in all (index apart, a product code's codebook in) | files |",
             "|---|---|---|---|---|---|---|"]
    for row in results["variants"].values():
        lines.append(f"| {row['code']} | {row['candidates']} | {row['recall']:.3f} "
                     f"({row['below_1']}, {row['min']:.1f}) | {row['bits'] / 1000:,.0f} kB | "
                     f"{row['rows'] / 1000:,.0f} kB | "
                     f"{(row['bits'] + row['rows'] + row['codebook']) / 1000:,.0f} kB | "
                     f"{row['files']:g} |")
    lines += ["", "The shipped code's 100 candidates, a partition's rows in blocks of about R rows "
              f"(shipped: {partitions.ROWS_BLOCK}): the median query's rows files, their "
              "bytes counting each file's 4-byte check and what the bits files of its probed "
              "partitions grow or shrink by to name the blocks (a byte a block, two past 255 "
              "rows).",
              "", "| R | rows | rows files |", "|---|---|---|"]
    for r, row in results["blocks"].items():
        lines.append(f"| {r} | {row['rows'] / 1000:,.0f} kB | {row['files']:g} |")
    lines += ["", "The probe: partitions ranked by a code of their centroids (the index carries "
              "it for every partition; shipped: sign bits), probed until they hold at least "
              "R rows, the shipped candidates (sign bits, 100) scored exactly: recall@10 "
              "and the median query's rows probed and their bits files. `centred`: the "
              "probe by the signs of each partition's mean row minus the site's mean row, "
              "its 100 candidates by centred signs too.", "",
              "| centroid code | index bytes of the codes | R | rows probed | bits | recall@10 |",
              "|---|---|---|---|---|---|"]
    for row in results["probes"].values():
        lines.append(f"| {row['code']} | {row['centroid_bytes'] / 1000:,.0f} kB | "
                     f"{row['probe_rows']:,} | {row['rows']:,.0f} | {row['bits'] / 1000:,.0f} kB | "
                     f"{row['recall']:.3f} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    if not (folder / "manifest.json").is_file():
        raise SystemExit(f"{folder} holds no bundle: run python bench/large_site.py first")
    results = measure(folder)
    results["folder"] = Path(os.path.relpath(folder.resolve(), HERE.parent)).as_posix()
    write_results(HERE / "results", "sign_codes", results, render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
