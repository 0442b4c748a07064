"""Static query encoder against the transformer, side by side in one run.

Sets: FastAPI's docs and MkDocs' own docs with the queries of bench/relevance
(MRR@10 over pages), generated sites with theirs (`manpages`: ~2,100 Debian manual
pages, one command or function each; `manshort`: the same cut to a few lines;
`npm`: the npm CLI's 91-page manual; `postgres` and `python`: 285 pages of
PostgreSQL's manual and 220 of Python's docs, `apache`: 242 of the Apache HTTP Server
2.4 manual, `sqlite`: 446 of SQLite's documentation with its C interface's reference,
`django`: 302 of Django 3.2's documentation (long reference pages split), `sphinx`: 89
of Sphinx 5.3's, `sqlalchemy`: 233 of SQLAlchemy 1.4's (both split likewise), queries
written before any tuning; all built by bench/corpora/ on first use), BEIR SciFact's
test queries (nDCG@10). Per set:

- product: the bundle exactly as the plugin writes it (site sets: a real `mkdocs
  build` with the plugin; SciFact: the plugin's Indexer over the abstracts, one page
  each), so its token table is the one query_table.TableFitter fitted in that build.
  Every query goes through `Searcher` as a reader's would: `encoder="transformer"` or
  `encoder="static"`, `Searcher.embed` (int8 query codes), `Searcher.rank` in vector
  and hybrid mode (the bundle's own scoring and page-aware fusion).
- floor: a plain hybrid baseline over the same chunks: BM25 (bm25s, Lucene k1 1.2,
  b 0.75, the product's analyzer, the chunk's headings and body as one field) and
  dense (float32 chunk vectors, the transformer's float query), each's top 100
  chunks fused by reciprocal rank (k = 60) at section level, then deduplicated by
  page. This is not the searcher's fusion (that one ranks pages, with size priors).
- recipes (not with --product): other table recipes, each fitted by TableFitter on
  the same chunks and vectors and ranked through the same Searcher with the table
  swapped in. The product recipe is refitted too, as a check that the bench's fit is
  the plugin's (`same table as the bundle's`).

    python bench/static_encoder.py [--sets fastapi,mkdocs,scifact,...] [--product]

Embeddings are cached in bench/.cache (the plugin's cache per set, plus the
recipes' training texts), so reruns embed nothing new. Writes
bench/results/static_encoder.{json,md}; a run of some sets keeps the others'
recorded results, each set stamped with the run that measured it.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from functools import cache
from pathlib import Path

import numpy as np

from mkdocs_semantic.bundle.format import STATIC_MAX_TOKENS
from mkdocs_semantic.bundle.lexical import analyze
from mkdocs_semantic.bundle.names import checked
from mkdocs_semantic.bundle.reader import Bundle, read_bundle
from mkdocs_semantic.bundle.table import TokenTable, row_name, table_hash
from mkdocs_semantic.chunk import Chunk, context_line
from mkdocs_semantic.indexing.cache import EmbeddingCache, cache_key
from mkdocs_semantic.indexing.indexer import Indexer, IndexOptions, model_fingerprint
from mkdocs_semantic.indexing.query_table.fit import TableFitter, TableRecipe
from mkdocs_semantic.indexing.query_table.texts import sentences_of
from mkdocs_semantic.model.onnx import OnnxEmbedder, load_tokenizer, single_token_vectors
from mkdocs_semantic.model.spec import default_model_spec
from mkdocs_semantic.search.searcher import Searcher

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
SHARED = HERE.parent.parent / "shared"
READER_QUESTIONS = HERE / "corpora" / "reader_questions.txt"
K = 10
TARGET_RATIO = 0.97
PARAPHRASE_RATIO = 0.93
FIDELITY = re.compile(r"(\d+)% of top-10 chunks as the model's \(cosine ([\d.]+)\)")
RRF_K = 60
FLOOR_DEPTH = 100
SETS = ("fastapi", "mkdocs", "scifact", "manpages", "npm", "manshort", "postgres", "python",
        "apache", "sqlite", "django", "sphinx", "sqlalchemy")
GROUPS = ("paraphrase", "exact")


@dataclass(frozen=True)
class Generated:
    """A set whose MkDocs project a bench/corpora script generates into
    bench/.cache/NAME/source, with the query files bench/relevance/QUERIES-GROUP.tsv."""

    name: str
    script: str
    queries: str
    groups: tuple[str, ...] = GROUPS


GENERATED = {
    "manpages": Generated("man-pages", "manpages.py", "manpages"),
    "npm": Generated("npm-docs", "npm_docs.py", "npm"),
    # the man pages cut to a few lines each: their options are gone, so no exact queries
    "manshort": Generated("man-short", "manpages_short.py", "manpages", ("paraphrase",)),
    # two sets of manuals never used before their queries were written
    "postgres": Generated("postgres-docs", "postgres_docs.py", "postgres"),
    "python": Generated("python-docs", "python_docs.py", "python"),
    # a third, the Apache HTTP Server 2.4 manual, its queries also written before any
    # search ran over it
    "apache": Generated("apache-docs", "apache_docs.py", "apache"),
    # a fourth, SQLite's documentation (guides, SQL, pragmas and one page a C function,
    # object or constant group), its queries also written before any search ran over it
    "sqlite": Generated("sqlite-docs", "sqlite_docs.py", "sqlite"),
    # a fifth, Django's documentation (tutorial, topic guides, how-tos and the reference,
    # long reference pages split), its queries also written before any search ran over it
    "django": Generated("django-docs", "django_docs.py", "django"),
    # a sixth, Sphinx's documentation (usage, tutorial, extensions, configuration,
    # theming and extension API), its queries also written before any search ran over it
    "sphinx": Generated("sphinx-docs", "sphinx_docs.py", "sphinx"),
    # a seventh, SQLAlchemy 1.4's documentation (tutorial, ORM, Core, three dialects, FAQ;
    # long pages split), its queries also written before any search ran over it
    "sqlalchemy": Generated("sqlalchemy-docs", "sqlalchemy_docs.py", "sqlalchemy"),
}
SUMMARY_LINE = re.compile(r"semantic: \d+ pages, .*")


# --- sets ----------------------------------------------------------------------------

@dataclass
class Query:
    text: str
    relevant: dict[str, int]
    group: str


@dataclass
class Corpus:
    """One set: the product bundle, the model's float vectors of its chunks, the queries."""

    name: str
    metric: str
    bundle: Bundle
    vectors: np.ndarray
    queries: list[Query]
    top_k: int
    cache_dir: Path
    """bench/.cache/<set>: the plugin's cache under plugin/, the recipes' fit.npz."""
    build_log: str
    groups: list[str] = field(default_factory=list)

    @property
    def chunks(self) -> list[Chunk]:
        return self.bundle.chunks


def read_tsv(path: Path, group: str) -> list[Query]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            text, _, urls = line.partition("\t")
            rows.append(Query(text, dict.fromkeys(urls.split(), 1), group))
    return rows


def cached_vectors(cache_path: Path, chunks: list[Chunk], spec) -> np.ndarray:
    """The float32 vectors the build used, from the plugin's embedding cache."""
    cache = EmbeddingCache(cache_path, fingerprint=model_fingerprint(spec))
    keys = [cache_key(cache.fingerprint, c.embed_text) for c in chunks]
    missing = sum(k not in cache.vectors for k in keys)
    if missing:
        raise SystemExit(f"{cache_path}: {missing} chunk vectors missing after the build")
    return np.stack([cache.vectors[k] for k in keys]).astype(np.float32)


def build_site(corpus: Path, name: str, *, cache_dir: Path | None = None) -> tuple[Path, str]:
    """`mkdocs build` of `corpus` with the plugin (defaults, cache in bench/.cache/NAME
    unless `cache_dir`)."""
    project = CACHE / name / "project"
    if project.exists():
        shutil.rmtree(project)
    shutil.copytree(corpus, project)
    config = project / "mkdocs.yml"
    cache = cache_dir or CACHE / name / "plugin"
    plugin = f"\n  - search\n  - semantic:\n      cache_dir: {cache}\n"
    text = config.read_text(encoding="utf-8")
    if "\n  - search\n" not in text:
        raise SystemExit(f"{config}: expected a `plugins:` list with `- search`")
    config.write_text(text.replace("\n  - search\n", plugin), encoding="utf-8")
    site = CACHE / name / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-f", str(config), "-d",
                           str(site)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"building {corpus} failed:\n{proc.stderr[-3000:]}")
    found = SUMMARY_LINE.search(proc.stderr)
    return site, found.group(0) if found else ""


def site_corpus(name: str, prefix: str, spec, source: Path | None = None, *,
                queries: str | None = None, groups: tuple[str, ...] = GROUPS) -> Corpus:
    """A site set: SHARED/corpora/NAME (or `source`) built with the plugin, and the
    queries of bench/relevance/QUERIES-GROUP.tsv (QUERIES: `prefix` unless given)."""
    site, log = build_site(source or SHARED / "corpora" / name, name)
    bundle = read_bundle(site)
    cache_path = CACHE / name / "plugin" / "embeddings.npz"
    judged = [q for group in groups
              for q in read_tsv(HERE / "relevance" / f"{queries or prefix}-{group}.tsv", group)]
    return Corpus(name=prefix, metric="mrr@10", bundle=bundle,
                  vectors=cached_vectors(cache_path, bundle.chunks, spec), queries=judged,
                  top_k=100, cache_dir=CACHE / name, build_log=log, groups=list(groups))


def generated_corpus(prefix: str, spec) -> Corpus:
    """A set of GENERATED: its project made by its bench/corpora script if missing
    (downloads and converts; minutes), then built as `site_corpus` builds."""
    generated = GENERATED[prefix]
    source = CACHE / generated.name / "source"
    if not (source / "mkdocs.yml").exists():
        print(f"{prefix}: generating {source} with bench/corpora/{generated.script}",
              file=sys.stderr)
        proc = subprocess.run([sys.executable, str(HERE / "corpora" / generated.script),
                               "--out", str(source)])
        if proc.returncode != 0:
            raise SystemExit(f"bench/corpora/{generated.script} failed ({proc.returncode})")
    return site_corpus(generated.name, prefix, spec, source=source,
                       queries=generated.queries, groups=generated.groups)


def site_sets(parser: argparse.ArgumentParser, value: str) -> list[str]:
    """The comma-separated site sets of `value` (every set but SciFact, whose queries are
    not in bench/relevance), or the parser's error naming the unknown ones."""
    wanted = value.split(",")
    unknown = [s for s in wanted if s not in SETS or s == "scifact"]
    if unknown:
        parser.error(f"unknown or unsupported set(s) {', '.join(unknown)}: use "
                     f"{', '.join(s for s in SETS if s != 'scifact')}")
    return wanted


def set_loaders(spec, embedder: OnnxEmbedder, scifact: Path) -> dict:
    """Set name -> a function that loads it (building what is missing)."""
    return {
        "fastapi": lambda: site_corpus("fastapi-docs", "fastapi", spec),
        "mkdocs": lambda: site_corpus("mkdocs-docs", "mkdocs", spec),
        "scifact": lambda: scifact_corpus(scifact, spec, embedder),
        **{name: (lambda name=name: generated_corpus(name, spec)) for name in GENERATED},
    }


def run_trial(doc: str, results_name: str, default_sets: str,
              run_set: Callable[[Corpus, str, OnnxEmbedder], dict],
              render: Callable[[dict], str]) -> int:
    """The whole of a per-set trial bench: `--sets` (site sets, `default_sets` unless
    given) and `--out`; each set loaded, built where missing, and measured by
    `run_set(corpus, set name, embedder)`; the figures, stamped with the run's time,
    written as <out>/<results_name>.{json,md}, the markdown by `render`."""
    from results_file import write_results  # bench/results_file.py

    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--sets", default=default_sets)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    sets = site_sets(parser, args.sets)
    spec = default_model_spec()
    embedder = OnnxEmbedder(spec)
    loaders = set_loaders(spec, embedder, SHARED / "bench" / "scifact")
    results = {"run": time.strftime("%Y-%m-%d %H:%M"), "sets": {}}
    for name in sets:
        results["sets"][name] = run_set(loaders[name](), name, embedder)
    write_results(args.out, results_name, results, render(results))
    return 0


def scifact_corpus(data: Path, spec, embedder: OnnxEmbedder) -> Corpus:
    """SciFact's abstracts as one-chunk pages (title and text in one field, as the
    published flat BM25 runs index them), written by the plugin's Indexer."""
    sys.path.insert(0, str(HERE))
    from scifact import load  # bench/scifact.py

    corpus, queries, qrels = load(data)
    chunks = [Chunk(url=d["_id"], anchor="", title="", path=[], text=f"{d['title']} {d['text']}")
              for d in corpus]
    cache_path = CACHE / "scifact" / "plugin" / "embeddings.npz"
    indexer = Indexer(spec, IndexOptions(), cache_path=cache_path)
    seed_scifact_cache(indexer, chunks, embedder)
    out = CACHE / "scifact" / "bundle"
    if out.exists():
        shutil.rmtree(out)
    indexer.start_build()
    stats = indexer.write(out, chunks, pages=len(chunks))
    bundle = read_bundle(out)
    judged = [Query(queries[q], qrels[q], "test") for q in sorted(qrels)]
    return Corpus(name="scifact", metric="ndcg@10", bundle=bundle,
                  vectors=cached_vectors(cache_path, chunks, spec), queries=judged, top_k=K,
                  cache_dir=CACHE / "scifact", build_log=f"semantic: {stats.summary()}")


def seed_scifact_cache(indexer: Indexer, chunks: list[Chunk], embedder: OnnxEmbedder) -> None:
    """Put the abstracts' vectors saved by an earlier run (bench/.cache/scifact/vectors.npy,
    the same model and text) into the Indexer's cache, after checking a sample of them
    against the model: saves embedding 5k abstracts again."""
    saved = CACHE / "scifact" / "vectors.npy"
    cache = indexer.cache
    keys = [cache_key(cache.fingerprint, c.embed_text) for c in chunks]
    if not saved.exists() or all(k in cache.vectors for k in keys):
        return
    vectors = np.load(saved)
    if len(vectors) != len(chunks):
        return
    sample = [0, len(chunks) // 3, 2 * len(chunks) // 3, len(chunks) - 1]
    fresh = embedder.embed_documents([chunks[i].embed_text for i in sample])
    cosines = np.sum(fresh * vectors[sample], axis=1)
    if cosines.min() < 0.999:
        print(f"  {saved} does not match the model (cos {cosines.min():.4f}): embedding anew",
              file=sys.stderr)
        return
    for key, vector in zip(keys, vectors):
        cache.put(key, vector)
    cache.save(prune=False)


# --- metrics -------------------------------------------------------------------------

def first_relevant(pages: list[str], relevant: dict[str, int]) -> int | None:
    """The rank of the first relevant page among the first K, or None."""
    return next((i for i, p in enumerate(pages[:K], 1) if p in relevant), None)


def mrr_at_10(pages: list[str], relevant: dict[str, int]) -> float:
    first = first_relevant(pages, relevant)
    return 1 / first if first else 0.0


def query_subsets(corpus: Corpus) -> dict[str, list[Query]]:
    """The set's queries, `all` then each subset (paraphrase, exact, ...)."""
    groups = {"all": corpus.queries}
    for query in corpus.queries:
        groups.setdefault(query.group, []).append(query)
    return groups


def subset_mrrs(corpus: Corpus, searcher: Searcher, groups: dict[str, list[Query]],
                modes: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """Page MRR@10 of `searcher` per mode and query subset."""
    def mrr(queries: list[Query], mode: str) -> float:
        total = 0.0
        for query in queries:
            results = searcher.search(query.text, mode=mode, top_k=corpus.top_k)
            total += mrr_at_10(list(dict.fromkeys(r.url for r in results)), query.relevant)
        return round(total / len(queries), 4) if queries else 0.0

    return {mode: {g: mrr(q, mode) for g, q in groups.items()} for mode in modes}


def subset_cells(by_mode: dict[str, dict[str, float]], counts: dict[str, int]) -> list[str]:
    """A report cell per mode: `subset (queries) MRR, ...`."""
    return [", ".join(f"{g} ({counts[g]}) {v:.3f}" for g, v in by.items())
            for by in by_mode.values()]


def ndcg_at_10(pages: list[str], relevant: dict[str, int]) -> float:
    dcg = sum(relevant.get(d, 0) / np.log2(i + 2) for i, d in enumerate(pages[:K]))
    ideal = sorted(relevant.values(), reverse=True)[:K]
    idcg = sum(r / np.log2(i + 2) for i, r in enumerate(ideal))
    return float(dcg / idcg) if idcg else 0.0


def summarize(corpus: Corpus, per_query: list[float]) -> dict[str, float]:
    row = {"all": round(float(np.mean(per_query)), 4)}
    for group in corpus.groups:
        row[group] = round(float(np.mean([s for s, q in zip(per_query, corpus.queries)
                                          if q.group == group])), 4)
    return row


def evaluate(corpus: Corpus, searcher: Searcher, vectors: list[np.ndarray | None]) -> dict:
    """Per mode: the set's metric over the pages `Searcher.rank` returns for each query,
    given each query's vector as `Searcher.embed` made it (None: keyword results only)."""
    score = mrr_at_10 if corpus.metric == "mrr@10" else ndcg_at_10
    out = {}
    for mode in ("vector", "hybrid"):
        per_query = []
        for query, vector in zip(corpus.queries, vectors):
            results = searcher.rank(query=query.text, vector=vector, mode=mode,
                                    top_k=corpus.top_k, filters=None, min_score=None)
            pages = list(dict.fromkeys(r.url for r in results))
            per_query.append(score(pages, query.relevant))
        out[mode] = summarize(corpus, per_query)
    return out


# --- the baseline floor --------------------------------------------------------------

def floor(corpus: Corpus, embedder: OnnxEmbedder, *, encoder: str = "transformer") -> dict:
    """Plain BM25, plain dense, and their section-level RRF, each deduplicated by page.
    Dense: the chunks' float32 vectors against the query as `encoder` embeds it (the
    transformer's float query, or the static encoder's sum of table rows, unit length)."""
    import bm25s

    score = mrr_at_10 if corpus.metric == "mrr@10" else ndcg_at_10
    chunks = corpus.chunks
    retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    retriever.index([analyze(c.embed_text) for c in chunks], show_progress=False)
    queries = dense_queries(corpus, embedder, encoder)
    ids = np.arange(len(chunks))
    urls = [c.url for c in chunks]
    results: dict[str, list[float]] = {"bm25": [], "dense": [], "rrf": []}
    for query, qvec in zip(corpus.queries, queries):
        terms = [t for t in dict.fromkeys(analyze(query.text)) if t in retriever.vocab_dict]
        lexical = np.asarray(retriever.get_scores(terms), dtype=np.float64) if terms \
            else np.zeros(len(chunks))
        dense = corpus.vectors @ qvec
        lexical_order = [i for i in np.lexsort((ids, -lexical)) if lexical[i] > 0]
        dense_order = list(np.lexsort((ids, -dense)))
        fused = np.zeros(len(chunks))
        for order in (lexical_order[:FLOOR_DEPTH], dense_order[:FLOOR_DEPTH]):
            for rank, chunk in enumerate(order, 1):
                fused[chunk] += 1.0 / (RRF_K + rank)
        fused_order = [i for i in np.lexsort((ids, -fused)) if fused[i] > 0]
        for name, order in (("bm25", lexical_order), ("dense", dense_order),
                            ("rrf", fused_order)):
            pages = list(dict.fromkeys(urls[i] for i in order[:FLOOR_DEPTH]))
            results[name].append(score(pages, query.relevant))
    return {name: summarize(corpus, per_query) for name, per_query in results.items()}


def dense_queries(corpus: Corpus, embedder: OnnxEmbedder, encoder: str) -> np.ndarray:
    """Float query vectors for the floor's dense ranking (zeros where the static encoder
    knows none of a query's tokens)."""
    if encoder == "transformer":
        return embedder.embed_queries([q.text for q in corpus.queries])
    static = Searcher(corpus.bundle, encoder="static").static
    out = np.zeros((len(corpus.queries), corpus.vectors.shape[1]), dtype=np.float32)
    for i, query in enumerate(corpus.queries):
        vector = static.encode(query.text)
        if vector is not None:
            out[i] = vector / (np.linalg.norm(vector) or 1.0)
    return out


# --- the product ---------------------------------------------------------------------

def product(corpus: Corpus, embedder: OnnxEmbedder) -> dict:
    transformer = Searcher(corpus.bundle, embedder, encoder="transformer")
    static = Searcher(corpus.bundle, encoder="static")
    t_vectors = [transformer.embed(q.text) for q in corpus.queries]
    s_vectors = [static.embed(q.text) for q in corpus.queries]
    t_scores = evaluate(corpus, transformer, t_vectors)
    s_scores = evaluate(corpus, static, s_vectors)
    table = corpus.bundle.table
    return {
        "transformer": t_scores,
        "static": s_scores,
        "ratio": {mode: round(s_scores[mode]["all"] / t_scores[mode]["all"], 4)
                  for mode in ("vector", "hybrid")},
        "static_queries_without_vector": sum(v is None for v in s_vectors),
        "table": table_size(table, corpus.queries),
    }


def table_size(table: TokenTable, queries: list[Query] | None = None) -> dict:
    """Rows and bytes of `table`; with `queries`, what a reader's first query fetches of
    it (the writer's shards and shard-list directories that hold the query's tokens,
    gzip bytes, mean and largest over the queries)."""
    ids = table.token_ids.astype("<u4").tobytes()
    rows = np.ascontiguousarray(table.rows).tobytes()
    out = {"rows": len(table.token_ids), "bytes": len(ids) + len(rows),
           "gzip_bytes": len(gzip.compress(ids + rows, 6))}
    if queries:
        fetched = first_query_table_bytes(table, [q.text for q in queries])
        out |= {"first_query_gzip_mean": round(float(np.mean(fetched))),
                "first_query_gzip_max": int(max(fetched))}
    return out


@cache
def static_tokenizer():
    """The tokenizer as the static encoder reads a query (loaded once)."""
    return load_tokenizer(default_model_spec().tokenizer_path, STATIC_MAX_TOKENS)


def first_query_table_bytes(table: TokenTable, texts: list[str]) -> list[int]:
    """Per query, the gzip bytes of the table files a reader fetches for it: the rows
    of its known tokens, one file each (bundle/table.py)."""
    digest = table_hash(table)
    at = {int(token): i for i, token in enumerate(table.token_ids.tolist())}
    sizes: dict[int, int] = {}

    def row_gzip(token: int) -> int:
        if token not in sizes:
            name = row_name(token, digest)
            data = checked(name, np.ascontiguousarray(table.rows[at[token]]).tobytes())
            sizes[token] = len(gzip.compress(data, 6))
        return sizes[token]

    return [sum(row_gzip(token) for token in set(encoding.ids) & at.keys())
            for encoding in static_tokenizer().encode_batch(texts)]


# --- recipes -------------------------------------------------------------------------

def reader_questions() -> list[str]:
    """bench/corpora/reader_questions.txt: 2,198 questions in readers' own words about
    software of every kind, written for a recipe (none from a site, none near a query of
    bench/relevance: tests/test_reader_questions.py)."""
    lines = READER_QUESTIONS.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip()]


class RecipeFitter(TableFitter):
    """The plugin's fitter, which may also train on the readers' questions, and may weigh
    each kind of short text as `weighed_as` texts in all."""

    def __init__(self, *args, weighed_as: int | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.weighed_as = weighed_as

    def texts_of(self, kind: str, chunks) -> list[str]:
        return reader_questions() if kind == "questions" else super().texts_of(kind, chunks)

    def text_weights(self, chunks: int, short: dict[str, list[str]]) -> np.ndarray | None:
        if self.weighed_as is None:
            return None
        return np.concatenate([np.ones(chunks), *(
            np.full(len(texts), min(1.0, self.weighed_as / len(texts)) if texts else 1.0)
            for texts in short.values())])


class FitEmbeddings:
    """The model's vectors of training texts and single tokens for recipe fits.

    Looked up in the set's plugin cache (what the product build embedded), then in the
    recipes' own cache (bench/.cache/NAME/fit.npz), then in the caches of earlier runs
    of this bench (texts.npz by sha256, priors.npz by token id); the rest is embedded
    and kept in fit.npz.
    """

    def __init__(self, corpus: Corpus, embedder: OnnxEmbedder, tokenizer) -> None:
        self.embedder = embedder
        fingerprint = model_fingerprint(embedder.spec)
        self.plugin = EmbeddingCache(corpus.cache_dir / "plugin" / "embeddings.npz",
                                     fingerprint=fingerprint).vectors
        self.own = EmbeddingCache(corpus.cache_dir / "fit.npz", fingerprint=fingerprint)
        self.legacy_texts: dict[str, np.ndarray] = {}
        self.legacy_tokens: dict[int, np.ndarray] = {}
        old = corpus.cache_dir
        if (old / "texts.npz").exists():
            with np.load(old / "texts.npz") as data:
                self.legacy_texts = dict(zip(data["keys"].tolist(), data["vectors"]))
        if (old / "priors.npz").exists():
            with np.load(old / "priors.npz") as data:
                self.legacy_tokens = dict(zip(data["ids"].tolist(), data["vectors"]))
        self.cls_id, self.sep_id = (tokenizer.token_to_id(t) for t in ("[CLS]", "[SEP]"))
        self.embedded = 0
        self.embed_seconds = 0.0

    def _lookup(self, keys: list[bytes], legacy: list[np.ndarray | None], embed) -> np.ndarray:
        missing = []
        for i, (key, old) in enumerate(zip(keys, legacy)):
            if key in self.plugin or key in self.own.vectors:
                continue
            if old is not None:
                self.own.put(key, old)
            else:
                missing.append(i)
        if missing:
            started = time.perf_counter()
            for i, vector in zip(missing, embed(missing)):
                self.own.put(keys[i], vector)
            self.embed_seconds += time.perf_counter() - started
            self.embedded += len(missing)
            self.own.save(prune=False)
        return np.stack([self.plugin[k] if k in self.plugin else self.own.vectors[k]
                         for k in keys]) if keys else np.zeros((0, self.embedder.dim),
                                                               np.float32)

    def texts(self, texts: list[str]) -> np.ndarray:
        keys = [cache_key(self.own.fingerprint, t) for t in texts]
        legacy = [self.legacy_texts.get(hashlib.sha256(t.encode()).hexdigest()[:32])
                  for t in texts]
        return self._lookup(keys, legacy, lambda at: self.embedder.embed_documents(
            [texts[i] for i in at]))

    def tokens(self, ids: list[int]) -> np.ndarray:
        keys = [cache_key(self.own.fingerprint, f"\0token {i}") for i in ids]
        legacy = [self.legacy_tokens.get(int(i)) for i in ids]
        return self._lookup(keys, legacy, lambda at: single_token_vectors(
            self.embedder, [int(ids[i]) for i in at], cls_id=self.cls_id, sep_id=self.sep_id))


@dataclass(frozen=True)
class Recipe:
    name: str
    table: TableRecipe
    weighed_as: int | None = None
    """Each kind of short text weighs, in all, as this many texts (None: each weighs 1)."""
    own_share: float | None = None
    """A sentence's or heading line's target: this share of the model's vector of it, the
    rest the mean model vector of the chunks it comes from (None: its own vector)."""


def source_targets(chunks, vectors: np.ndarray, embed_texts, own_share: float):
    """`embed_texts`, with each sentence's and heading line's vector mixed with the unit
    mean of its chunks' vectors: `own_share` of its own, the rest its chunks'."""
    sources: dict[str, list[int]] = {}
    for number, chunk in enumerate(chunks):
        if line := context_line(chunk.title, chunk.path):
            sources.setdefault(line, []).append(number)
        for sentence in sentences_of([chunk]):
            sources.setdefault(sentence, []).append(number)

    def embed(texts: list[str]) -> np.ndarray:
        own = embed_texts(texts)
        out = np.array(own, dtype=np.float32)
        for at, text in enumerate(texts):
            if found := sources.get(text):
                mean = np.asarray(vectors[found], dtype=np.float32).mean(axis=0)
                mean /= np.linalg.norm(mean) or 1.0
                out[at] = own_share * own[at] + (1 - own_share) * mean
        return out
    return embed


def recipes() -> list[Recipe]:
    """Fixed before measuring, never tuned on one set: the recipe the plugin ships
    (1000 headings and 1000 sentences, lam 0.01), one-factor changes to it
    (lam 0.1; query-shaped spans of 3 to 10 words instead of sentences, 2000 or 4000),
    spans beside sentences, readers' questions (reader_questions) beside them, and more
    of the site's headings and sentences (2000 or 4000 of each; or 4000 or 8000 weighed
    in all as the shipped 1000, so as to learn from more of the site without shifting
    the fit's balance between chunks and short texts), and the shipped texts aimed half
    or wholly at the chunks they come from (`own_share`: a reader's words should find
    the chunk, not only mean what the model reads in them). Which
    one the plugin ships shows as `same table as bundle`."""
    sentences = TableRecipe(texts=("chunks", "headings", "sentences"), lam=0.01,
                            weighting="idf", max_short=1000)
    spans = replace(sentences, texts=("chunks", "headings", "spans"), max_spans=2000)
    return [
        Recipe("chunks+1000 headings+1000 sentences, lam 0.01 (shipped)",
               sentences),
        Recipe("chunks+1000 headings+1000 sentences, lam 0.1", replace(sentences, lam=0.1)),
        Recipe("chunks+1000 headings+2000 spans, lam 0.01", spans),
        Recipe("chunks+1000 headings+2000 spans, lam 0.1", replace(spans, lam=0.1)),
        Recipe("chunks+1000 headings+2000 spans, lam 0.3", replace(spans, lam=0.3)),
        Recipe("chunks+1000 headings+4000 spans, lam 0.1",
               replace(spans, lam=0.1, max_spans=4000)),
        Recipe("chunks+1000 headings+1000 sentences+2000 spans, lam 0.1",
               replace(spans, texts=("chunks", "headings", "sentences", "spans"), lam=0.1)),
        Recipe("chunks+1000 headings+1000 sentences+readers' questions, lam 0.01",
               replace(sentences, texts=("chunks", "headings", "sentences", "questions"))),
        Recipe("chunks+2000 headings+2000 sentences, lam 0.01",
               replace(sentences, max_short=2000)),
        Recipe("chunks+4000 headings+4000 sentences, lam 0.01",
               replace(sentences, max_short=4000)),
        Recipe("chunks+4000 headings+4000 sentences weighed as 1000 each, lam 0.01",
               replace(sentences, max_short=4000), weighed_as=1000),
        Recipe("chunks+8000 headings+8000 sentences weighed as 1000 each, lam 0.01",
               replace(sentences, max_short=8000), weighed_as=1000),
        Recipe("chunks+1000 headings+1000 sentences, targets half their chunks', lam 0.01",
               sentences, own_share=0.5),
        Recipe("chunks+1000 headings+1000 sentences, targets their chunks', lam 0.01",
               sentences, own_share=0.0),
    ]


def run_recipes(corpus: Corpus, embedder: OnnxEmbedder, tokenizer, picked: list[Recipe],
                run: str) -> list[dict]:
    embeddings = FitEmbeddings(corpus, embedder, tokenizer)
    rows = []
    for recipe in picked:
        print(f"{corpus.name}: recipe {recipe.name}", file=sys.stderr)
        embed_texts = (embeddings.texts if recipe.own_share is None else
                       source_targets(corpus.chunks, corpus.vectors, embeddings.texts,
                                      recipe.own_share))
        fitter = RecipeFitter(tokenizer=tokenizer,
                              embed_texts=embed_texts, embed_tokens=embeddings.tokens,
                              cache_path=None, document_prefix=embedder.spec.document_prefix,
                              recipe=recipe.table, weighed_as=recipe.weighed_as)
        short = fitter.short_texts(corpus.chunks)
        embedded, embed_seconds = embeddings.embedded, embeddings.embed_seconds
        started = time.perf_counter()
        table = fitter.fit(corpus.chunks, corpus.vectors, fingerprint="bench")
        seconds = time.perf_counter() - started - (embeddings.embed_seconds - embed_seconds)
        searcher = Searcher(replace(corpus.bundle, table=table), encoder="static")
        vectors = [searcher.embed(q.text) for q in corpus.queries]
        bundle_table = corpus.bundle.table
        same = (np.array_equal(table.token_ids, bundle_table.token_ids)
                and np.array_equal(table.rows, bundle_table.rows))
        rows.append({
            "recipe": recipe.name,
            "run": run,
            "table_recipe": asdict(recipe.table),
            "weighed_as": recipe.weighed_as,
            "own_share": recipe.own_share,
            "scores": evaluate(corpus, searcher, vectors),
            "queries_without_vector": sum(v is None for v in vectors),
            "short_texts": {kind: len(texts) for kind, texts in short.items()},
            "fit_seconds_without_embedding": round(seconds, 1),
            "embedded_now": embeddings.embedded - embedded,
            "same_table_as_bundle": bool(same),
            "table": table_size(table, corpus.queries),
        })
        print(f"  {rows[-1]['scores']['vector']['all']} / {rows[-1]['scores']['hybrid']['all']}",
              file=sys.stderr)
    return rows


# --- report --------------------------------------------------------------------------

def first_query(table: dict) -> str:
    if "first_query_gzip_mean" not in table:
        return "-"
    return f"{table['first_query_gzip_mean']:,} / {table['first_query_gzip_max']:,}"


def render(results: dict) -> str:
    lines = [
        "# Static query encoder against the transformer", "",
        "Reproduce: `python bench/static_encoder.py` (add `--product` for the product rows "
        "and the floor only). Per set, every number comes from one run (stamped below); "
        "both encoders query the same bundle, written by the plugin, through `Searcher` "
        "(int8 query codes, the bundle's own scoring and page-aware fusion).", "",
        f"Targets: static vector >= {TARGET_RATIO} x the transformer's on every "
        f"whole set and >= {PARAPHRASE_RATIO} x on every paraphrase subset; static hybrid "
        f">= {TARGET_RATIO} x the transformer's hybrid and >= the floor (BM25 + the model's "
        "own dense ranking, RRF) on every whole set. MRR@10 on the relevance sets, nDCG@10 "
        "on SciFact. Fidelity: the build's own line (static against the model on held-out "
        "phrases: top-10 chunks in common, cosine).", "",
        "| set | metric | queries | chunks | vector static / model | ratio "
        "| paraphrase vector static / model | ratio | hybrid static / model | ratio "
        "| floor RRF | hybrid >= floor | fidelity |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def verdict(value: float, target: float) -> str:
        return f"{value:.3f} {'ok' if value >= target - 5e-5 else 'BELOW'}"

    for name, s in results["sets"].items():
        t, st, f = s["transformer"], s["static"], s["floor"]
        para = "paraphrase" if "paraphrase" in s.get("groups", []) else None
        para_cells = "| - | - "
        if para:
            ratio = st["vector"][para] / t["vector"][para] if t["vector"][para] else 0.0
            para_cells = (f"| {st['vector'][para]:.3f} / {t['vector'][para]:.3f} "
                          f"| {verdict(ratio, PARAPHRASE_RATIO)} ")
        found = FIDELITY.search(s.get("build_log", ""))
        lines.append(
            f"| {name} | {s['metric']} | {s['queries']} | {s['chunks']} "
            f"| {st['vector']['all']:.3f} / {t['vector']['all']:.3f} "
            f"| {verdict(s['ratio']['vector'], TARGET_RATIO)} {para_cells}"
            f"| {st['hybrid']['all']:.3f} / {t['hybrid']['all']:.3f} "
            f"| {verdict(s['ratio']['hybrid'], TARGET_RATIO)} | {f['rrf']['all']:.3f} "
            f"| {'ok' if st['hybrid']['all'] >= f['rrf']['all'] else 'BELOW'} "
            f"| {found.group(1) + '%, ' + found.group(2) if found else '-'} |")
    lines += ["", "Floor: BM25 (bm25s, Lucene, k1 1.2, b 0.75, the product's analyzer over "
              "each chunk's heading line and body as one field) and dense (float32 chunk "
              "vectors, the transformer's float query), each's top "
              f"{FLOOR_DEPTH} chunks fused by RRF (k = {RRF_K}) at section level, "
              "deduplicated by page. The searcher's hybrid is not this: it fuses page "
              "ranks (each page at its best chunk) with a size prior, then orders sections "
              "within pages (mkdocs_semantic/search/ranking.py).", ""]
    for name, s in results["sets"].items():
        lines += [f"## {name}", "",
                  f"Measured {s['run']}. Build: `{s['build_log']}`. Static table: "
                  f"{s['table']['rows']} rows, {s['table']['bytes']:,} bytes "
                  f"({s['table']['gzip_bytes']:,} gzip). Queries the static encoder gives "
                  f"no vector: {s['static_queries_without_vector']}.", ""]
        if s.get("groups"):
            lines += ["| group | transformer vector / hybrid | static vector / hybrid "
                      "| floor RRF |", "|---|---|---|---|"]
            for g in s["groups"]:
                t, st = s["transformer"], s["static"]
                lines.append(f"| {g} | {t['vector'][g]:.3f} / {t['hybrid'][g]:.3f} "
                             f"| {st['vector'][g]:.3f} / {st['hybrid'][g]:.3f} "
                             f"| {s['floor']['rrf'][g]:.3f} |")
            lines.append("")
        if s.get("recipes"):
            base = s["recipes_transformer_hybrid"]
            lines += ["Recipes, each fitted by TableFitter on this set's chunks and vectors "
                      f"(transformer hybrid {base:.3f} in the last recipe run; `same table as "
                      "bundle`: as the plugin's table in the row's run):",
                      "", "| recipe | measured | vector | vector by group | hybrid "
                      "| hybrid / transformer | short texts "
                      "| embedded now | fit s (no embedding) | rows | gzip bytes "
                      "| first query's table gzip, mean / max "
                      "| same table as bundle |", "|---" * 13 + "|"]
            for r in s["recipes"]:
                sc = r["scores"]
                by_group = " / ".join(f"{sc['vector'][g]:.3f}" for g in s["groups"]) or "-"
                lines.append(
                    f"| {r['recipe']} | {r.get('run', s['recipes_run'])} "
                    f"| {sc['vector']['all']:.3f} "
                    f"| {by_group} "
                    f"| {sc['hybrid']['all']:.3f} "
                    f"| {sc['hybrid']['all'] / base:.3f} | {r['short_texts']} "
                    f"| {r['embedded_now']} | {r['fit_seconds_without_embedding']} "
                    f"| {r['table']['rows']} | {r['table']['gzip_bytes']:,} "
                    f"| {first_query(r['table'])} "
                    f"| {'yes' if r['same_table_as_bundle'] else 'no'}"
                    f"{' (' + r['note'] + ')' if r.get('note') else ''} |")
            lines.append("")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS),
                        help=f"comma-separated, of {', '.join(SETS)}")
    parser.add_argument("--product", action="store_true",
                        help="only the product's two encoders and the floor, no recipes")
    parser.add_argument("--recipes", default="",
                        help="only the recipes whose name holds one of these comma-separated "
                             "words; the set's other recorded recipe rows are kept")
    parser.add_argument("--scifact", type=Path, default=SHARED / "bench" / "scifact")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--render-only", action="store_true",
                        help="rewrite the .md from the recorded .json, measuring nothing")
    args = parser.parse_args()
    json_path, md_path = args.out / "static_encoder.json", args.out / "static_encoder.md"
    if args.render_only:
        md_path.write_text(render(json.loads(json_path.read_text())))
        return 0
    wanted = args.sets.split(",")
    unknown = [s for s in wanted if s not in SETS]
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}: use {', '.join(SETS)}")
    spec = default_model_spec()
    embedder = OnnxEmbedder(spec)
    tokenizer = load_tokenizer(spec.tokenizer_path, spec.max_tokens)
    loaders = set_loaders(spec, embedder, args.scifact)
    words = [w for w in args.recipes.split(",") if w]
    picked = [r for r in recipes() if not words or any(w in r.name for w in words)]
    if not picked:
        parser.error(f"no recipe name holds any of {args.recipes!r}")
    run = time.strftime("%Y-%m-%d %H:%M") + (" (--product)" if args.product else "")
    results = json.loads(json_path.read_text()) if json_path.exists() else {}
    if "sets" not in results or any("static" not in s for s in results["sets"].values()):
        results = {"sets": {}}  # a file of the older recipe-only layout is not merged
    for name in wanted:
        print(f"{name}: building", file=sys.stderr)
        corpus = loaders[name]()
        print(f"  {corpus.build_log}", file=sys.stderr)
        found = product(corpus, embedder)
        entry = {"run": run, "metric": corpus.metric, "queries": len(corpus.queries),
                 "chunks": len(corpus.chunks), "pages": corpus.bundle.catalog["pages"]["count"],
                 "groups": corpus.groups, "build_log": corpus.build_log, **found,
                 "floor": floor(corpus, embedder)}
        print(f"  transformer {found['transformer']['hybrid']['all']} static "
              f"{found['static']['hybrid']['all']} ratio {found['ratio']}", file=sys.stderr)
        if not args.product:
            old = results["sets"].get(name, {})
            rows = {r["recipe"]: r | {"run": r.get("run", old.get("recipes_run", old.get("run")))}
                    for r in (old.get("recipes", []) if args.recipes else [])}
            rows |= {r["recipe"]: r for r in run_recipes(corpus, embedder, tokenizer, picked, run)}
            order = [r.name for r in recipes()]
            entry["recipes"] = sorted(rows.values(), key=lambda r: order.index(r["recipe"])
                                      if r["recipe"] in order else len(order))
            entry["recipes_run"] = run
            entry["recipes_transformer_hybrid"] = found["transformer"]["hybrid"]["all"]
        elif name in results["sets"] and results["sets"][name].get("recipes"):
            # Kept from the run that measured them, stamped with it.
            old = results["sets"][name]
            entry["recipes"] = old["recipes"]
            entry["recipes_run"] = old.get("recipes_run", old["run"])
            entry["recipes_transformer_hybrid"] = old.get(
                "recipes_transformer_hybrid", old["transformer"]["hybrid"]["all"])
        results["sets"][name] = entry
        args.out.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(results, indent=2) + "\n")
    md_path.write_text(render(results))
    print(render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
