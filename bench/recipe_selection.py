"""Trial: can a build pick its table recipe by the fidelity check, on its own site?

A build knows nothing of its readers' queries; what it can measure is how well a
fitted table stands in for the model on phrases of its own site (the fidelity line,
mkdocs_semantic/indexing/query_table/fidelity.py). If that ranked the recipes as the
readers' queries do, a build could fit a few and keep the best.

Per set: `HELD` of the site's sentences are held out of every fit (drawn with a fixed
seed), and 200 phrases of 3 to 8 words are cut from them. Each recipe is fitted by the
plugin's fitter on the chunks and the remaining sentences; its fidelity (top-10 chunks
in common with the model, cosine) on the phrases is set beside its MRR@10 on the set's
judged queries (vector and hybrid, through the product's `Searcher`). Holding the
sentences out changes the shipped recipe's own figures too, so each set's first row is
that recipe fitted the same way. The shipped recipe is then fitted again with its
sentences drawn at random (`DRAWS` seeds): the spread of those figures is how much of a
difference between two recipes the sample of sentences alone can make.

    python bench/recipe_selection.py [--sets fastapi,npm,manshort,mkdocs,postgres,python]

Writes bench/results/recipe_selection.{json,md}.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402

from mkdocs_semantic.bundle.format import STATIC_MAX_TOKENS  # noqa: E402
from mkdocs_semantic.indexing.query_table.fidelity import measure  # noqa: E402
from mkdocs_semantic.indexing.query_table.fit import TableRecipe  # noqa: E402
from mkdocs_semantic.indexing.query_table.texts import (  # noqa: E402
    held_out_phrases,
    sentences_of,
    spread_sample,
)
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

HELD = 400
"""Sentences held out of every fit (at most a fifth of the site's)."""
PHRASES = 200
SEED = 7

SHIPPED = TableRecipe()
RECIPES = {
    "shipped (1000 headings, 1000 sentences, lam 0.01)": SHIPPED,
    "500 headings, 500 sentences": replace(SHIPPED, max_short=500),
    "2000 headings, 2000 sentences": replace(SHIPPED, max_short=2000),
    "4000 headings, 4000 sentences": replace(SHIPPED, max_short=4000),
    "lam 0.1": replace(SHIPPED, lam=0.1),
    "lam 0.003": replace(SHIPPED, lam=0.003),
    "chunks and headings only": replace(SHIPPED, texts=("chunks", "headings")),
    "readers' questions beside": replace(
        SHIPPED, texts=("chunks", "headings", "sentences", "questions")),
}


DRAWS = 5
"""The shipped recipe again, its sentences drawn at random with seeds 1 to DRAWS instead
of spread evenly over the site: how far the figures move with the sample alone."""


class HoldingOutFitter(se.RecipeFitter):
    """The bench's fitter, its sentences taken from those not held out: spread evenly
    (as the plugin takes them), or drawn at random with `draw` as the seed."""

    def __init__(self, *args, held: set[str], draw: int | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.held = held
        self.draw = draw

    def texts_of(self, kind: str, chunks) -> list[str]:
        if kind != "sentences":
            return super().texts_of(kind, chunks)
        kept = [s for s in sentences_of(chunks) if s not in self.held]
        if self.draw is None or len(kept) <= self.recipe.max_short:
            return spread_sample(kept, self.recipe.max_short)
        at = np.random.default_rng(self.draw).choice(len(kept), self.recipe.max_short,
                                                     replace=False)
        return [kept[i] for i in sorted(at)]


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    tokenizer = se.load_tokenizer(embedder.spec.tokenizer_path, embedder.spec.max_tokens)
    pool = [s for s in sentences_of(corpus.chunks) if len(s.split()) > 4]
    rng = np.random.default_rng(SEED)
    held = set(rng.choice(pool, size=min(HELD, len(pool) // 5), replace=False).tolist())
    phrases = held_out_phrases(sorted(held), PHRASES, seed=SEED)
    embeddings = se.FitEmbeddings(corpus, embedder, tokenizer)
    phrase_vectors = embeddings.texts(phrases)
    phrase_ids = [e.ids[:STATIC_MAX_TOKENS] for e in tokenizer.encode_batch(
        [embedder.spec.document_prefix + p for p in phrases])]
    rows = []
    fits = [(label, recipe, None) for label, recipe in RECIPES.items()]
    fits += [(f"shipped, sentences drawn at random (seed {d})", SHIPPED, d)
             for d in range(1, DRAWS + 1)]
    for label, recipe, draw in fits:
        print(f"{corpus.name}: {label}", file=sys.stderr)
        fitter = HoldingOutFitter(tokenizer=tokenizer, embed_texts=embeddings.texts,
                                  embed_tokens=embeddings.tokens, cache_path=None,
                                  document_prefix=embedder.spec.document_prefix,
                                  recipe=recipe, held=held, draw=draw)
        table = fitter.fit(corpus.chunks, corpus.vectors, fingerprint="bench")
        fidelity = measure(table, phrase_ids, phrase_vectors, corpus.vectors)
        searcher = Searcher(replace(corpus.bundle, table=table), encoder="static")
        scores = se.evaluate(corpus, searcher, [searcher.embed(q.text) for q in corpus.queries])
        rows.append({"recipe": label, "draw": draw,
                     "agreement": round(fidelity.agreement, 4),
                     "cosine": round(fidelity.cosine, 4),
                     "vector": scores["vector"]["all"], "hybrid": scores["hybrid"]["all"]})
    return {"held_out_sentences": len(held), "phrases": len(phrases),
            "queries": len(corpus.queries), "rows": rows}


def rank_agreement(rows: list[dict], by: str, of: str) -> float:
    """Spearman's rank correlation of two columns over the recipes."""
    a = np.argsort(np.argsort([r[by] for r in rows]))
    b = np.argsort(np.argsort([r[of] for r in rows]))
    return float(np.corrcoef(a, b)[0, 1])


def render(results: dict) -> str:
    lines = ["# Trial: picking the table recipe by the build's fidelity check", "",
             f"Reproduce: `python bench/recipe_selection.py`. Measured {results['run']}. "
             "Per set, sentences held out of every fit, and phrases cut from them; each "
             "recipe's fidelity on those phrases beside its MRR@10 on the judged queries "
             "(the bench's docstring says how). Would the recipe with the best fidelity "
             "be the one readers are best served by?", "",
             "| set | recipe | top-10 in common | cosine | vector | hybrid |",
             "|---|---|---|---|---|---|"]
    summary = ["", "Per set: the recipe the fidelity check would pick (the most top-10 chunks "
               "in common) against the best by the judged queries, the rank correlation of "
               "the two over the recipes, and how far the shipped recipe's figures move when "
               f"only its {DRAWS} random samples of sentences differ.", "",
               "| set | best by fidelity | its vector | best vector | rank correlation, "
               "agreement with vector | shipped, random samples: vector min-max "
               "| hybrid min-max |", "|---|---|---|---|---|---|---|"]
    for name, s in results["sets"].items():
        for r in s["rows"]:
            lines.append(f"| {name} | {r['recipe']} | {r['agreement']:.3f} | {r['cosine']:.3f} "
                         f"| {r['vector']:.3f} | {r['hybrid']:.3f} |")
        recipes = [r for r in s["rows"] if r["draw"] is None]
        draws = [r for r in s["rows"] if r["draw"] is not None]
        picked = max(recipes, key=lambda r: r["agreement"])
        best = max(recipes, key=lambda r: r["vector"])
        spread = " | ".join(f"{min(r[m] for r in draws):.3f}-{max(r[m] for r in draws):.3f}"
                            for m in ("vector", "hybrid"))
        summary.append(f"| {name} | {picked['recipe']} | {picked['vector']:.3f} "
                       f"| {best['vector']:.3f} ({best['recipe']}) "
                       f"| {rank_agreement(recipes, 'agreement', 'vector'):+.2f} | {spread} |")
    return "\n".join(lines + summary) + "\n"


def main() -> int:
    return se.run_trial(__doc__, "recipe_selection", "fastapi,npm,manshort,mkdocs,postgres,python",
                        run_set, render)


if __name__ == "__main__":
    raise SystemExit(main())
