"""Retrieval quality of the embedding pipeline on BEIR SciFact (test split).

Embeds the corpus (`title + " " + text`, truncated at 256 tokens) with the
packaged model and reports nDCG@10 for exact float32 search, for the int8 bundle
(written with `write_bundle`, read back and searched by the reference searcher),
and for usearch's own per-vector int8 cast; plus recall@10 of each int8 variant
against exact float32 search. Results go to bench/results/scifact.{json,md}.

    python bench/scifact.py [--data ../shared/bench/scifact]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from native import usearch_index_class
from results_file import write_results  # bench/results_file.py

from mkdocs_semantic.bundle.quantize import quantize
from mkdocs_semantic.bundle.reader import read_bundle
from mkdocs_semantic.bundle.vectors.codes import query_codes
from mkdocs_semantic.bundle.writer import write_bundle
from mkdocs_semantic.chunk import Chunk
from mkdocs_semantic.model.onnx import OnnxEmbedder
from mkdocs_semantic.model.spec import default_model_spec
from mkdocs_semantic.search.searcher import Searcher

HERE = Path(__file__).resolve().parent
PUBLISHED_NDCG10 = 0.645  # all-MiniLM-L6-v2 on SciFact, MTEB results
PUBLISHED_BM25 = "0.665 (Elasticsearch, BEIR paper) - 0.679 (Anserini flat)"
K = 10


def load(data: Path):
    corpus = [json.loads(line) for line in (data / "corpus.jsonl").open(encoding="utf-8")]
    queries = {q["_id"]: q["text"] for q in map(json.loads, (data / "queries.jsonl").open())}
    qrels: dict[str, dict[str, int]] = {}
    for i, line in enumerate((data / "qrels" / "test.tsv").open()):
        qid, did, score = line.rstrip("\n").split("\t")
        if i == 0 and not score.isdigit():
            continue  # header
        qrels.setdefault(qid, {})[did] = int(score)
    return corpus, queries, qrels


def ndcg_at_k(ranked: list[str], relevant: dict[str, int], k: int = K) -> float:
    dcg = sum(relevant.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def top_ids(scores: np.ndarray, k: int = K) -> np.ndarray:
    """Best k per row: score descending, ties by document number."""
    return np.stack([np.lexsort((np.arange(len(row)), -row))[:k] for row in scores])


def recall_against(exact: np.ndarray, approx: np.ndarray) -> float:
    return float(np.mean([len(set(a) & set(e)) / len(e) for a, e in zip(approx, exact)]))


def embed_corpus(embedder: OnnxEmbedder, texts: list[str], cache: Path | None) -> np.ndarray:
    if cache is not None and cache.exists():
        vectors = np.load(cache)
        if vectors.shape[0] == len(texts):
            print(f"using cached corpus vectors {cache}", file=sys.stderr)
            return vectors
    done = 0

    def progress(n: int) -> None:
        nonlocal done
        done += n
        if done % 640 < n:
            print(f"  embedded {done}/{len(texts)}", file=sys.stderr)

    vectors = embedder.embed_documents(texts, progress=progress)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.save(cache, vectors)
    return vectors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=HERE.parent.parent / "shared/bench/scifact")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--vectors-cache", type=Path, default=None,
                        help="reuse corpus vectors saved here by an earlier run")
    args = parser.parse_args()
    if not (args.data / "corpus.jsonl").exists():
        parser.error(f"no corpus.jsonl in {args.data}: pass --data to the SciFact folder")

    corpus, queries, qrels = load(args.data)
    doc_ids = [d["_id"] for d in corpus]
    spec = default_model_spec(max_tokens=256)
    embedder = OnnxEmbedder(spec)
    started = time.perf_counter()
    docs = embed_corpus(embedder, [f"{d['title']} {d['text']}" for d in corpus],
                        args.vectors_cache)
    embed_seconds = time.perf_counter() - started if args.vectors_cache is None else None
    judged = sorted(qrels)
    all_qids = sorted(queries)
    q_all = embedder.embed_queries([queries[q] for q in all_qids])
    position = {q: i for i, q in enumerate(all_qids)}

    exact = docs @ q_all.T  # (docs, queries)
    exact_top = top_ids(exact.T)

    # The int8 bundle, exactly as the plugin writes it and the searcher reads it.
    with tempfile.TemporaryDirectory() as tmp:
        # Title and text in one field, as the published "flat" BM25 runs index them.
        chunks = [Chunk(url=d["_id"], anchor="", title="", path=[],
                        text=f"{d['title']} {d['text']}") for d in corpus]
        # the transformer query encoder: this bench measures the model and the int8
        # vectors (bench/static_encoder.py measures the static encoder on SciFact)
        write_bundle(Path(tmp), chunks=chunks, stored=quantize(docs, "i8"), spec=spec,
                     query_encoder="transformer")
        searcher = Searcher(read_bundle(Path(tmp)), embedder)
        bundle_bytes = sum(p.stat().st_size for p in (Path(tmp) / "vectors").iterdir())
        lexical_bytes = sum(p.stat().st_size for p in (Path(tmp) / "lexical").iterdir())
        i8_scores = np.stack([searcher.scores(query_codes(q)) for q in q_all])
        # The searcher's own modes, as a site's readers get them (page-aware fusion,
        # each abstract its own page).
        by_mode = {
            mode: [[r.url for r in searcher.search(queries[q], top_k=K, mode=mode)]
                   for q in judged]
            for mode in ("lexical", "vector", "hybrid")
        }
    i8_top = top_ids(i8_scores)

    # usearch's own i8 conversion of float vectors (per-vector scaling), for comparison.
    index_class = usearch_index_class()
    cast = index_class(ndim=docs.shape[1], metric="cos", dtype="i8")
    cast.add(np.arange(len(docs)), docs, threads=1)
    cast_hits = cast.search(q_all, K, exact=True, threads=1)
    cast_top = np.asarray(cast_hits.keys, dtype=np.int64)

    def ndcg(top: np.ndarray) -> float:
        return float(np.mean([
            ndcg_at_k([doc_ids[i] for i in top[position[q]]], qrels[q]) for q in judged
        ]))

    judged_rows = [position[q] for q in judged]
    mode_ndcg = {
        mode: round(float(np.mean([ndcg_at_k(ranked, qrels[q])
                                   for ranked, q in zip(rankings, judged)])), 4)
        for mode, rankings in by_mode.items()
    }
    result = {
        "corpus_docs": len(docs),
        "queries_judged": len(judged),
        "queries_for_recall": len(all_qids),
        "published_ndcg10_f32": PUBLISHED_NDCG10,
        "ndcg10_f32_exact": round(ndcg(exact_top), 4),
        "ndcg10_i8_bundle": round(ndcg(i8_top), 4),
        "ndcg10_i8_usearch_cast": round(ndcg(cast_top), 4),
        "recall10_i8_bundle_vs_f32": round(recall_against(exact_top, i8_top), 4),
        "recall10_i8_bundle_vs_f32_judged": round(
            recall_against(exact_top[judged_rows], i8_top[judged_rows]), 4),
        "recall10_i8_usearch_cast_vs_f32": round(recall_against(exact_top, cast_top), 4),
        "ndcg10_searcher_lexical": mode_ndcg["lexical"],
        "ndcg10_searcher_vector": mode_ndcg["vector"],
        "ndcg10_searcher_hybrid": mode_ndcg["hybrid"],
        "published_ndcg10_bm25": PUBLISHED_BM25,
        "index_bytes_i8": bundle_bytes,
        "lexical_bytes": lexical_bytes,
        "embed_seconds": None if embed_seconds is None else round(embed_seconds, 1),
        "docs_per_second": None if embed_seconds is None else round(len(docs) / embed_seconds, 1),
    }
    result["ndcg10_f32_minus_published"] = round(
        result["ndcg10_f32_exact"] - PUBLISHED_NDCG10, 4)
    result["ndcg10_i8_loss"] = round(result["ndcg10_f32_exact"] - result["ndcg10_i8_bundle"], 4)
    write_results(args.out, "scifact", result, render(result))
    return 0


def render(r: dict) -> str:
    return f"""# SciFact (BEIR test split): embedding pipeline check

Reproduce: `python bench/scifact.py` ({r['corpus_docs']} documents, {r['queries_judged']}
judged queries; recall over all {r['queries_for_recall']} queries).

| figure | value |
|---|---|
| nDCG@10, exact float32 | {r['ndcg10_f32_exact']} |
| nDCG@10, published (all-MiniLM-L6-v2, MTEB) | {r['published_ndcg10_f32']} |
| difference to published | {r['ndcg10_f32_minus_published']:+} |
| nDCG@10, int8 bundle (global scale) | {r['ndcg10_i8_bundle']} |
| loss of the int8 bundle | {r['ndcg10_i8_loss']} |
| nDCG@10, usearch's own int8 cast | {r['ndcg10_i8_usearch_cast']} |
| recall@10 int8 bundle vs exact float32 | {r['recall10_i8_bundle_vs_f32']} |
| recall@10 int8 bundle, judged queries only | {r['recall10_i8_bundle_vs_f32_judged']} |
| recall@10 usearch's int8 cast vs exact float32 | {r['recall10_i8_usearch_cast_vs_f32']} |
| nDCG@10, searcher lexical mode (BM25) | {r['ndcg10_searcher_lexical']} |
| nDCG@10, published BM25 | {r['published_ndcg10_bm25']} |
| nDCG@10, searcher vector mode | {r['ndcg10_searcher_vector']} |
| nDCG@10, searcher hybrid mode | {r['ndcg10_searcher_hybrid']} |
| int8 vector file bytes | {r['index_bytes_i8']:,} |
| keyword index file bytes (format 2 shards) | {r['lexical_bytes']:,} |
| corpus embedding seconds (this machine; none when reused) | {r['embed_seconds']} |
"""


if __name__ == "__main__":
    sys.exit(main())
