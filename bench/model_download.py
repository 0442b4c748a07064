"""The browser's model with a cut vocabulary: how big a core of token ids it must keep.

The browser's model keeps the word embeddings of some token ids only
(mkdocs_semantic/model/kept_vocabulary.py: the ids the site's chunk texts tokenize to,
the special tokens, and ids 0..core-1); a query's other ids are dropped before the model
runs. Per set (loaded and built as bench/static_encoder.py does) and per query subset,
with the transformer query encoder: hybrid and vector-only MRR@10 of `Searcher.rank`
with the full vocabulary and with the vocabulary cut at each core of CORES (the query
tokenized by the searcher's own tokenizer, its dropped ids removed, the model run on the
rest, mean-pooled and normalized as OnnxEmbedder does), and per core the kept ids and
the queries that lost a token. A last row keeps every id: it must equal the full model,
figure for figure (checked on every set). The sets are the site sets of run_trial, so
not SciFact.

    python bench/model_download.py [--sets fastapi,mkdocs,manpages,...] [--out DIR]

Writes bench/results/model_download.{json,md}.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402

from mkdocs_semantic.model.kept_vocabulary import kept_only, kept_token_ids  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder, l2_normalize, pool  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

CORES = (0, 2000, 5000, 8000, 12000)
MODES = ("hybrid", "vector")
MARGIN = 0.005
"""A core is enough where every set's and subset's hybrid MRR@10 is within this of the
full model's."""


class CutQueries:
    """`embedder`'s query vectors with the token ids outside `kept` dropped (special
    tokens are kept, so [CLS] and [SEP] stay): what the browser's cut model computes."""

    def __init__(self, embedder: OnnxEmbedder, kept: np.ndarray) -> None:
        self.embedder, self.kept = embedder, kept

    def ids(self, text: str) -> tuple[list[int], list[int]]:
        """The query's ids as the searcher's tokenizer gives them, and those kept."""
        ids = self.embedder.tokenizer.encode(self.embedder.spec.query_prefix + text).ids
        return ids, kept_only(ids, self.kept)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        session, spec = self.embedder.session, self.embedder.spec
        inputs = {i.name for i in session.get_inputs()}
        rows = []
        for text in texts:
            ids = np.array([self.ids(text)[1]], dtype=np.int64)
            mask = np.ones_like(ids)
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": ids * 0}
            hidden = session.run(None, {k: v for k, v in feeds.items() if k in inputs})[0]
            pooled = (pool(hidden, mask, spec.pooling) if hidden.ndim == 3
                      else hidden).astype(np.float32)
            rows.append(l2_normalize(pooled)[0] if spec.normalize else pooled[0])
        return np.stack(rows)


def mrrs(corpus: se.Corpus, searcher: Searcher) -> dict[str, dict[str, float]]:
    """MRR@10 per mode and query subset, each query embedded by `searcher.embed` and
    ranked by `Searcher.rank`, as bench/fusion.py ranks them."""
    scores: dict[str, dict[int, float]] = {mode: {} for mode in MODES}
    for query in corpus.queries:
        vector = searcher.embed(query.text)
        for mode in MODES:
            results = searcher.rank(query=query.text, vector=vector, mode=mode,
                                    top_k=corpus.top_k, filters=None, min_score=None)
            pages = list(dict.fromkeys(r.url for r in results))
            scores[mode][id(query)] = se.mrr_at_10(pages, query.relevant)
    return {mode: {group: round(float(np.mean([by_query[id(q)] for q in queries])), 4)
                   for group, queries in se.query_subsets(corpus).items()}
            for mode, by_query in scores.items()}


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    started = time.perf_counter()
    print(f"{name}: {len(corpus.queries)} queries, {len(corpus.chunks)} chunks", file=sys.stderr)
    texts = [c.embed_text for c in corpus.chunks]
    vocabulary = embedder.tokenizer.get_vocab_size(with_added_tokens=True)
    full = mrrs(corpus, Searcher(corpus.bundle, embedder, encoder="transformer"))
    cuts = {}
    for core in (*CORES, vocabulary):
        cut = CutQueries(embedder, kept_token_ids(embedder.spec.tokenizer_path, texts, core=core))
        touched = sum(len(ids) != len(kept)
                      for ids, kept in (cut.ids(q.text) for q in corpus.queries))
        cuts[str(core)] = {"kept_ids": len(cut.kept), "queries_touched": touched,
                           **mrrs(corpus, Searcher(corpus.bundle, cut, encoder="transformer"))}
        print(f"  core {core}: {len(cut.kept)} ids, {touched} queries touched, hybrid "
              f"{cuts[str(core)]['hybrid']['all']} (full {full['hybrid']['all']})",
              file=sys.stderr)
    if {m: cuts[str(vocabulary)][m] for m in MODES} != full:
        raise SystemExit(f"{name}: keeping every id does not give the full model's figures")
    return {"queries": len(corpus.queries), "chunks": len(corpus.chunks),
            "vocabulary": vocabulary, "full": full, "cut": cuts,
            "seconds": round(time.perf_counter() - started)}


def worst(s: dict, core: int) -> float:
    """The set's lowest hybrid MRR@10 change at `core`, over the set and its subsets."""
    cut = s["cut"][str(core)]["hybrid"]
    return min(cut[g] - full for g, full in s["full"]["hybrid"].items())


def enough_core(results: dict) -> int | None:
    """The smallest core of CORES whose hybrid MRR@10 is within MARGIN of the full
    model's on every set and subset."""
    return next((core for core in CORES if all(
        worst(s, core) >= -MARGIN - 1e-9 for s in results["sets"].values())), None)


def render(results: dict) -> str:
    enough = enough_core(results)
    lines = [
        "# The browser's model with a cut vocabulary", "",
        f"Reproduce: `python bench/model_download.py`. Measured {results['run']}. The "
        "transformer query encoder, its query's token ids outside the kept ones dropped "
        "(kept: the ids of the site's chunk texts, the special tokens and ids 0..core-1; "
        "mkdocs_semantic/model/kept_vocabulary.py), ranked by `Searcher.rank` as "
        "bench/fusion.py ranks. MRR@10 per query subset: hybrid (vector only) [hybrid's "
        "change against the full vocabulary]. `touched`: queries that lost a token. The "
        "row keeping every id equals the full model's on every set (checked by the run).", "",
        f"Smallest core with every set's and subset's hybrid MRR@10 within {MARGIN} of the "
        f"full model's: **{'none' if enough is None else enough}**. Worst hybrid change over "
        "the set and its subsets:", "",
        "| set | " + " | ".join(f"core {c:,}" for c in CORES) + " |",
        "|---" * (1 + len(CORES)) + "|",
        *(f"| {name} | " + " | ".join(f"{worst(s, c):+.3f}" for c in CORES) + " |"
          for name, s in results["sets"].items()), ""]
    for name, s in results["sets"].items():
        groups = list(s["full"]["hybrid"])
        lines += [f"## {name}", "", f"{s['queries']} queries, {s['chunks']} chunks, "
                  f"{s['seconds']} s.", "",
                  "| core | kept ids | touched | " + " | ".join(groups) + " |",
                  "|---" * (3 + len(groups)) + "|"]
        full = s["full"]
        lines.append("| full | " + f"{s['vocabulary']:,} | 0 | " + " | ".join(
            f"{full['hybrid'][g]:.3f} ({full['vector'][g]:.3f})" for g in groups) + " |")
        for core, c in s["cut"].items():
            cells = [f"{c['hybrid'][g]:.3f} ({c['vector'][g]:.3f}) "
                     f"[{c['hybrid'][g] - full['hybrid'][g]:+.3f}]" for g in groups]
            label = f"{int(core):,}" + (" (every id)" if int(core) == s["vocabulary"] else "")
            lines.append(f"| {label} | {c['kept_ids']:,} | {c['queries_touched']} | "
                         + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(se.run_trial(__doc__, "model_download",
                          ",".join(s for s in se.SETS if s != "scifact"), run_set, render))
