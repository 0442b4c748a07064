"""Levers beyond the recipe's texts and lambda, each measured against the shipped recipe.

Per set (built as bench/static_encoder.py builds it), the shipped recipe's training texts
(chunks, 1000 headings, 1000 sentences; IDF; lam 0.01) and its fit, then one change at a
time, every query through the product's `Searcher` in vector and hybrid mode:

- general prior: a table fitted on the other sets measured in the run (never on this
  one) as the prior row of each token, in place of the model's vector of the token alone;
- broad prior: the same with a table fitted once on broad technical text that no set
  uses (bench/corpora/broad_text.py: six manuals from Debian's doc packages), alone or
  also giving rows to the tokens the site does not use (weighted as the site's rarest);
- pairs: rows for adjacent token pairs seen in at least 2 (or 5) training texts,
  summed with the token rows at query time;
- chunk-target spans: 4000 spans of 3 to 10 words of each chunk's sentences, trained
  towards the chunk's own vector (or halfway between it and the span's own vector);
- readers' questions (bench/corpora/reader_questions.txt) added as training texts
  towards their document vectors, as the recipe `questions` of bench/static_encoder.py
  adds them: all of them; only those whose content words (lowercase alphabetic words of
  3+ letters, not the lexical index's stop words) the site's chunks use, all of them or
  at least 75%; or all of them at weight 0.3 against the site's texts;
- oracle: the judged queries themselves added as training texts (weight 5) towards the
  model's query vectors. Not a recipe: the ceiling of a sum of token rows, showing
  whether what is missing is capacity or training texts.

    python bench/static_levers.py [--sets fastapi,npm,manshort] [--levers questions,...]

Writes bench/results/static_levers.{json,md} (with --levers: static_levers_<words>.*).
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402
from results_file import write_results  # noqa: E402

from mkdocs_semantic.bundle.lexical import STOPWORDS  # noqa: E402
from mkdocs_semantic.bundle.vectors.codes import query_codes  # noqa: E402
from mkdocs_semantic.indexing.cache import EmbeddingCache, cache_key  # noqa: E402
from mkdocs_semantic.indexing.indexer import model_fingerprint  # noqa: E402
from mkdocs_semantic.indexing.query_table.fit import (  # noqa: E402
    SPECIAL_TOKENS,
    TableFitter,
    TableRecipe,
)
from mkdocs_semantic.indexing.query_table.ridge import (  # noqa: E402
    StaticTable,
    TokenStats,
    TokenWeights,
    design_matrix,
    fit_table,
    prior_table,
)
from mkdocs_semantic.indexing.query_table.texts import (  # noqa: E402
    sentence_spans,
    sentences_of,
    spread_sample,
)
from mkdocs_semantic.model.onnx import OnnxEmbedder, load_tokenizer  # noqa: E402
from mkdocs_semantic.model.spec import default_model_spec  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

LAM = TableRecipe().lam
GENERAL_TEXTS_PER_SET = 4000
BROAD_SENTENCES = 2000
SPANS = 4000
QUERY_TOKENS = 64
QUESTION_WEIGHT = 0.3
WORD = re.compile(r"[a-z]+")


def content_words(text: str) -> set[str]:
    """The lowercase alphabetic words of 3+ letters of `text` that are no stop word of
    the lexical index."""
    return {w for w in WORD.findall(text.lower()) if len(w) >= 3 and w not in STOPWORDS}


@dataclass
class Training:
    """A set's training texts as token ids (specials dropped) and their target vectors."""

    sequences: list[list[int]]
    targets: np.ndarray


def query_vector(table: StaticTable, ids: list[int]) -> np.ndarray | None:
    """A query's sign codes from the sum of its tokens' rows (None: no known token)."""
    rows = table.lookup(ids)
    summed = table.rows[rows].sum(axis=0) if len(rows) else None
    if summed is None or not np.any(summed):
        return None
    return query_codes(summed / np.linalg.norm(summed))


class Lab:
    """Fits and scores tables for one set."""

    def __init__(self, corpus: se.Corpus, embedder: OnnxEmbedder, tokenizer) -> None:
        self.corpus = corpus
        self.embedder = embedder
        self.tokenizer = tokenizer
        self.vocab = tokenizer.get_vocab_size()
        self.special = {i for t in SPECIAL_TOKENS if (i := tokenizer.token_to_id(t)) is not None}
        self.embeddings = se.FitEmbeddings(corpus, embedder, tokenizer)
        self.prefix = embedder.spec.document_prefix
        shipped = TableFitter(tokenizer=tokenizer, embed_texts=self.embeddings.texts,
                              embed_tokens=self.embeddings.tokens, cache_path=None,
                              document_prefix=self.prefix)
        self.short_texts = [t for kind in shipped.short_texts(corpus.chunks).values()
                            for t in kind]
        """The shipped recipe's texts beside the chunks (headings, then sentences)."""
        texts = [c.embed_text for c in corpus.chunks] + self.short_texts
        targets = [corpus.vectors, self.embeddings.texts(self.short_texts)]
        self.base = Training(self.ids(texts, prefix=True), np.concatenate(targets))
        self.queries = self.ids([q.text for q in corpus.queries], prefix=False)

    def ids(self, texts: list[str], *, prefix: bool) -> list[list[int]]:
        lead = self.prefix if prefix else ""
        encoded = self.tokenizer.encode_batch([lead + t for t in texts])
        return [[i for i in e.ids if i not in self.special][:None if prefix else QUERY_TOKENS]
                for e in encoded]

    def fit(self, training: Training, *, sample_weight: np.ndarray | None = None,
            prior_rows: Callable[[np.ndarray], np.ndarray] | None = None,
            unused: StaticTable | None = None, weighted: bool = True,
            lam: float = LAM,
            token_weights: Callable[[TokenStats], np.ndarray] | None = None) -> StaticTable:
        """The table of `training`; `unused`: rows (unweighted) for tokens the texts do
        not hold, kept as they are and weighted as the texts' rarest token. `weighted`:
        each row carries its token's weight (False: unweighted, as a prior's rows are).
        `token_weights`: each token's weight from the texts' statistics (IDF if None)."""
        stats = TokenStats.of(training.sequences, [])
        idf = token_weights(stats) if token_weights else stats.weights("idf")
        weights = TokenWeights(stats.token_ids, idf,
                               default=float(idf.max()) if unused is not None else 1.0)
        tokens = stats.token_ids[stats.token_ids < self.vocab]
        rows = (prior_rows or self.token_rows)(tokens)
        if unused is not None:
            extra = ~np.isin(unused.token_ids, tokens)
            tokens = np.concatenate([tokens, unused.token_ids[extra]])
            rows = np.concatenate([rows, unused.rows[extra]])
        design = design_matrix(training.sequences, special_ids=[], weights=weights)
        with threadpool_limits(limits=1, user_api="blas"):
            return fit_table(design, training.targets, lam=lam, prior=prior_table(tokens, rows),
                             weights=weights if weighted else None,
                             sample_weight=sample_weight)

    def token_rows(self, tokens: np.ndarray) -> np.ndarray:
        return self.embeddings.tokens(tokens.tolist())

    def score(self, table: StaticTable, queries: list[list[int]] | None = None) -> dict:
        vectors = [query_vector(table, ids) for ids in queries or self.queries]
        return se.evaluate(self.corpus, Searcher(self.corpus.bundle, encoder="static"), vectors)

    def with_texts(self, texts: list[str], weight: float = 1.0) -> tuple[Training,
                                                                          np.ndarray | None]:
        """The shipped training texts and `texts` towards their document vectors, and the
        fit's sample weights (`texts` at `weight` against one site text; None: all 1)."""
        training = Training(self.base.sequences + self.ids(texts, prefix=True),
                            np.concatenate([self.base.targets, self.embeddings.texts(texts)]))
        sample_weight = None if weight == 1.0 else np.concatenate(
            [np.ones(len(self.base.targets)), np.full(len(texts), weight)])
        return training, sample_weight

    # --- levers ------------------------------------------------------------------------

    def general_table(self, training: Training) -> StaticTable:
        """A table fitted on other texts, unweighted (as the fit's prior is)."""
        return self.fit(training, weighted=False)

    def others_table(self, others: list[Lab]) -> StaticTable:
        """The general table of the other sets' training texts."""
        sequences, targets = [], []
        for other in others:
            pick = spread_sample(list(range(len(other.base.sequences))), GENERAL_TEXTS_PER_SET)
            sequences += [other.base.sequences[i] for i in pick]
            targets.append(other.base.targets[pick])
        return self.general_table(Training(sequences, np.concatenate(targets)))

    def prior_from(self, general: StaticTable) -> Callable[[np.ndarray], np.ndarray]:
        """Prior rows from `general`; tokens it lacks keep the model's vector alone."""

        def rows(tokens: np.ndarray) -> np.ndarray:
            out = self.token_rows(tokens)
            known = np.isin(tokens, general.token_ids)
            out[known] = general.rows[general.lookup(tokens[known])]
            return out

        return rows

    def with_pairs(self, min_texts: int) -> dict:
        def keys(ids: list[int]) -> list[int]:
            return [a * self.vocab + b for a, b in itertools.pairwise(ids)]

        seen: dict[int, int] = {}
        for ids in self.base.sequences:
            for key in set(keys(ids)):
                seen[key] = seen.get(key, 0) + 1
        pair_id = {k: self.vocab + n for n, k in
                   enumerate(sorted(k for k, c in seen.items() if c >= min_texts))}

        def extend(ids: list[int]) -> list[int]:
            return ids + [pair_id[k] for k in keys(ids) if k in pair_id]

        table = self.fit(Training([extend(s) for s in self.base.sequences], self.base.targets))
        return self.score(table, [extend(q) for q in self.queries]) | {"pairs": len(pair_id)}

    def chunk_spans(self, own_share: float) -> dict:
        chunks = self.corpus.chunks
        per_chunk = max(1, -(-SPANS // len(chunks)))
        spans, owner = [], []
        for i, chunk in enumerate(chunks):
            found = sentence_spans(sentences_of([chunk]), per_chunk, words=(3, 10), seed=2 + i)
            spans += found
            owner += [i] * len(found)
        pick = spread_sample(list(range(len(spans))), SPANS)
        spans, owner = [spans[i] for i in pick], np.array(owner, dtype=np.int64)[pick]
        targets = self.corpus.vectors[owner]
        if own_share:
            targets = (1 - own_share) * targets + own_share * self.embeddings.texts(spans)
            targets /= np.linalg.norm(targets, axis=1, keepdims=True)
        training = Training(self.base.sequences + self.ids(spans, prefix=True),
                            np.concatenate([self.base.targets, targets]))
        return self.score(self.fit(training))

    def questions(self, *, site_share: float | None = None, weight: float = 1.0) -> dict:
        """The fit with the readers' questions added towards their document vectors, at
        `weight` against the site's texts; `site_share`: only the questions at least that
        share of whose content words the site's chunks use (one without any: kept)."""
        texts = se.reader_questions()
        if site_share is not None:
            site = set().union(*(content_words(c.embed_text) for c in self.corpus.chunks))

            def share(text: str) -> float:
                words = content_words(text)
                return len(words & site) / len(words) if words else 1.0

            texts = [t for t in texts if share(t) >= site_share]
        training, sample_weight = self.with_texts(texts, weight)
        return self.score(self.fit(training, sample_weight=sample_weight)) | {
            "questions": len(texts)}

    def oracle(self) -> dict:
        model = self.embedder.embed_queries([q.text for q in self.corpus.queries])
        training = Training(self.base.sequences + self.queries,
                            np.concatenate([self.base.targets, model]))
        weight = np.concatenate([np.ones(len(self.base.targets)), np.full(len(model), 5.0)])
        return self.score(self.fit(training, sample_weight=weight))


class Levers:
    """The figures of one set's levers, by name; `words` picks which are measured."""

    def __init__(self, lab: Lab, words: list[str]) -> None:
        self.lab = lab
        self.words = words
        self.rows: dict[str, dict] = {}

    def wanted(self, name: str) -> bool:
        return not self.rows or picked(name, self.words)

    def measure(self, name: str, make: Callable[[], dict]) -> None:
        if not self.wanted(name):
            return
        started = time.perf_counter()
        self.rows[name] = make() | {"seconds": round(time.perf_counter() - started, 1)}
        print(f"{self.lab.corpus.name}: {name}: {self.rows[name]['vector']['all']} / "
              f"{self.rows[name]['hybrid']['all']}", file=sys.stderr)


def broad_table(lab: Lab, embedder: OnnxEmbedder) -> tuple[StaticTable, dict]:
    """The general table of the broad manuals (bench/corpora/broad_text.py, run when its
    output is missing): up to BROAD_SENTENCES sentences and a quarter as many headings
    of each, embedded once (cached in bench/.cache/broad-text/)."""
    texts_path = se.CACHE / "broad-text" / "texts.json"
    if not texts_path.exists():
        subprocess.run([sys.executable, str(HERE / "corpora" / "broad_text.py")], check=True)
    manuals = json.loads(texts_path.read_text(encoding="utf-8"))
    texts = []
    for manual in manuals.values():
        texts += spread_sample(manual["sentences"], BROAD_SENTENCES)
        texts += spread_sample(manual["headings"], BROAD_SENTENCES // 4)
    cache = EmbeddingCache(se.CACHE / "broad-text" / "embeddings.npz",
                           fingerprint=model_fingerprint(embedder.spec))
    keys = [cache_key(cache.fingerprint, t) for t in texts]
    missing = [t for t, k in zip(texts, keys) if k not in cache.vectors]
    if missing:
        print(f"broad text: embedding {len(missing)} texts", file=sys.stderr)
        for text, vector in zip(missing, embedder.embed_documents(missing)):
            cache.put(cache_key(cache.fingerprint, text), vector)
        cache.save(prune=False)
    started = time.perf_counter()
    table = lab.general_table(Training(lab.ids(texts, prefix=True),
                                       np.stack([cache.vectors[k] for k in keys])))
    quantized = table.quantize()
    raw = quantized.token_ids.astype(np.uint32).tobytes() + quantized.rows.tobytes()
    return table, {"manuals": {n: {k: m[k] for k in ("package", "version", "pages")}
                               for n, m in manuals.items()},
                   "texts": len(texts), "tokens": len(table.token_ids),
                   "int8_bytes": len(raw), "gzip_bytes": len(gzip.compress(raw, 6)),
                   "fit_seconds": round(time.perf_counter() - started, 1)}


def picked(name: str, words: list[str]) -> bool:
    """Whether the lever `name` is measured: `words` empty, or one of them in it."""
    return not words or any(w in name for w in words)


def run_set(lab: Lab, others: list[Lab], broad: StaticTable | None,
            words: list[str]) -> dict:
    """The shipped recipe, then each lever whose name holds one of `words` (all if
    none)."""
    levers = Levers(lab, words)
    measure = levers.measure
    measure("shipped recipe", lambda: lab.score(lab.fit(lab.base)))
    if others:
        measure(f"general prior ({', '.join(o.corpus.name for o in others)})",
                lambda: lab.score(lab.fit(lab.base,
                                          prior_rows=lab.prior_from(lab.others_table(others)))))
    if broad is not None:
        measure("broad prior", lambda: lab.score(lab.fit(lab.base,
                                                         prior_rows=lab.prior_from(broad))))
        measure("broad prior, and rows for the tokens the site does not use",
                lambda: lab.score(lab.fit(lab.base, prior_rows=lab.prior_from(broad),
                                          unused=broad)))
    measure("pairs in 2+ texts", lambda: lab.with_pairs(2))
    measure("pairs in 5+ texts", lambda: lab.with_pairs(5))
    measure("4000 chunk-target spans", lambda: lab.chunk_spans(0.0))
    measure("4000 spans, target half chunk, half own", lambda: lab.chunk_spans(0.5))
    measure("readers' questions, all", lab.questions)
    measure("readers' questions whose words the site uses, all of them",
            lambda: lab.questions(site_share=1.0))
    measure("readers' questions whose words the site uses, 75%+ of them",
            lambda: lab.questions(site_share=0.75))
    measure(f"readers' questions, all, weight {QUESTION_WEIGHT}",
            lambda: lab.questions(weight=QUESTION_WEIGHT))
    measure("oracle: the judged queries as training texts", lab.oracle)
    return levers.rows


def render(results: dict) -> str:
    lines = ["# Levers of the static query table beyond its texts and lambda", "",
             f"Reproduce: `python bench/static_levers.py --sets {','.join(results['sets'])}"
             + (f" --levers {results['levers']}" if results.get("levers") else "") + "`. "
             f"Measured {results['run']}. Each row changes one thing in the shipped recipe "
             "(the bench's docstring says how); vector and hybrid through the product's "
             "`Searcher`; MRR@10 by group. The oracle is a ceiling, not a recipe.", ""]
    if "broad" in results:
        b = results["broad"]
        lines += [f"Broad table: {b['texts']:,} texts of "
                  + ", ".join(f"{m['package']} {m['version']} ({m['pages']} pages)"
                              for m in b["manuals"].values())
                  + f"; {b['tokens']:,} tokens, {b['int8_bytes']:,} bytes as int8 "
                  f"({b['gzip_bytes']:,} gzip), fitted in {b['fit_seconds']} s.", ""]
    for name, s in results["sets"].items():
        groups = s["groups"]
        lines += [f"## {name} (transformer vector {s['transformer']['vector']['all']:.3f}, "
                  f"hybrid {s['transformer']['hybrid']['all']:.3f})", "",
                  "| lever | vector | " + " | ".join(f"vector {g}" for g in groups)
                  + " | hybrid | " + " | ".join(f"hybrid {g}" for g in groups) + " |",
                  "|---" * (3 + 2 * len(groups)) + "|"]
        for lever, r in s["levers"].items():
            extra = f" ({r['pairs']:,} pairs)" if "pairs" in r else \
                f" ({r['questions']:,} questions)" if "questions" in r else ""
            lines.append(
                f"| {lever}{extra} | {r['vector']['all']:.3f} | "
                + " | ".join(f"{r['vector'][g]:.3f}" for g in groups)
                + f" | {r['hybrid']['all']:.3f} | "
                + " | ".join(f"{r['hybrid'][g]:.3f}" for g in groups) + " |")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="fastapi,npm,manshort")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--no-broad", action="store_true",
                        help="leave out the broad prior (needs Debian's doc packages)")
    parser.add_argument("--levers", default="",
                        help="only the levers whose name holds one of these comma-separated "
                             "words, beside the shipped recipe")
    args = parser.parse_args()
    words = [w for w in args.levers.split(",") if w]
    wanted = se.site_sets(parser, args.sets)
    spec = default_model_spec()
    embedder = OnnxEmbedder(spec)
    tokenizer = load_tokenizer(spec.tokenizer_path, spec.max_tokens)
    loaders = se.set_loaders(spec, embedder, se.SHARED / "bench" / "scifact")
    labs = {name: Lab(loaders[name](), embedder, tokenizer) for name in wanted}
    results: dict = {"run": time.strftime("%Y-%m-%d %H:%M"), "levers": args.levers,
                     "sets": {}}
    broad = None
    if not args.no_broad and picked("broad prior", words):
        broad, results["broad"] = broad_table(next(iter(labs.values())), embedder)
    for name, lab in labs.items():
        # the general prior of a set never sees it; man-short is man-pages cut short
        others = [o for n, o in labs.items() if n != name
                  and {n, name} != {"manpages", "manshort"}]
        transformer = Searcher(lab.corpus.bundle, embedder, encoder="transformer")
        results["sets"][name] = {
            "groups": lab.corpus.groups,
            "transformer": se.evaluate(lab.corpus, transformer,
                                       [transformer.embed(q.text) for q in lab.corpus.queries]),
            "levers": run_set(lab, others, broad, words)}
    name = "static_levers" + "".join(f"_{w}" for w in words)  # a partial run: its own file
    write_results(args.out, name, results, render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
