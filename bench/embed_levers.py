"""What each lever on the first build's chunk embedding buys, on this machine.

A first build of fastapi-docs spends most of its time in the model (onnxruntime's
`run`). This bench measures the levers issue #12 names on real chunk texts of that
site, each against the plugin's own setting, in one run with the variants in rotated
order (so drift in the machine's load falls on every variant alike):

- onnxruntime session options: SkipLayerNormalization fused (onnxruntime's default, the
  plugin leaves it out), no spinning of idle threads, denormals as zero;
- threads: one batch at a time on all cores (onnxruntime's threads) against batches
  side by side, one thread each (the plugin's, `thread_split`), and their vectors;
- batch size in padded tokens (the plugin's token budget against larger ones);
- embedding while MkDocs renders pages (a second thread), against one after the other;
- `--truncation`: the text embedded, cut to N tokens: the tokens saved, and what it
  costs in dense retrieval on the three relevance sets (re-embeds every chunk at N).

    python bench/embed_levers.py [--sample 400] [--repeats 3] [--truncation 128]

Writes bench/results/embed_levers.{json,md}.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402
from results_file import write_results  # noqa: E402

from mkdocs_semantic.model.onnx import (  # noqa: E402
    BATCH_TOKENS,
    DISABLED_OPTIMIZERS,
    OnnxEmbedder,
    plan_batches,
    thread_split,
)
from mkdocs_semantic.model.spec import default_model_spec  # noqa: E402

SESSION_VARIANTS = {
    "plugin's session": {},
    "SkipLayerNorm fused (onnxruntime's default)": {"fuse": "SkipLayerNorm"},
    "no spinning": {"session.intra_op.allow_spinning": "0"},
    "denormals as zero": {"session.set_denormal_as_zero": "1"},
}
BUDGETS = (BATCH_TOKENS, 2048, 8192)
NOISY_SPREAD = 1.3
"""Repeats of one variant further apart than this (slowest / fastest): the run says so."""


def embedder_with(entries: dict[str, str]) -> OnnxEmbedder:
    """An OnnxEmbedder of the default model whose session has these config entries
    (`fuse`: let onnxruntime apply the rewrites the plugin leaves out)."""
    import onnxruntime as ort

    embedder = OnnxEmbedder(default_model_spec())
    options = ort.SessionOptions()
    options.log_severity_level = 3
    entries = dict(entries)
    disabled = [] if entries.pop("fuse", None) else list(DISABLED_OPTIMIZERS)
    for key, value in entries.items():
        options.add_session_config_entry(key, value)
    session = ort.InferenceSession(str(embedder.spec.model_path), options,
                                   providers=["CPUExecutionProvider"],
                                   disabled_optimizers=disabled)
    embedder.__dict__["_session"] = session  # where OnnxEmbedder.session keeps it
    embedder._input_names = {i.name for i in session.get_inputs()}
    return embedder


def thread_variants(spec, texts: list[str]) -> tuple[dict[str, Callable[[], object]], bool]:
    """The plugin's split of the cores (batches side by side) against one batch at a
    time, on onnxruntime's threads or on one; and whether all three give the same bytes."""
    workers, threads = thread_split(0)
    embedders = {
        "one batch at a time, onnxruntime's threads": OnnxEmbedder(spec),
        "one batch at a time, one thread": OnnxEmbedder(spec, threads=1),
        f"{workers} batches side by side, {threads} thread each (the plugin's)":
            OnnxEmbedder(spec, threads=threads, workers=workers),
    }
    vectors = [e.embed_documents(texts).tobytes() for e in embedders.values()]
    return ({name: (lambda e=e: e.embed_documents(texts)) for name, e in embedders.items()},
            len(set(vectors)) == 1)


def embed_with_budget(embedder: OnnxEmbedder, texts: list[str], budget: int) -> None:
    lengths = embedder.token_lengths(texts)
    for batch in plan_batches(lengths, max_items=embedder.batch_size, max_tokens=budget):
        embedder._run([texts[i] for i in batch])


def rotated_timings(variants: dict[str, Callable[[], object]], repeats: int) -> dict:
    """Seconds of each variant per repeat, the order rotated by one each repeat."""
    names = list(variants)
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for repeat in range(repeats):
        for name in names[repeat % len(names):] + names[:repeat % len(names)]:
            started = time.perf_counter()
            variants[name]()
            seconds[name].append(time.perf_counter() - started)
            print(f"  {name}: {seconds[name][-1]:.1f} s", file=sys.stderr)
    return seconds


def render_pages(sources: list[str]) -> None:
    """What MkDocs does per page that holds the GIL: Markdown to HTML."""
    import markdown

    for source in sources:
        markdown.markdown(source, extensions=["tables", "fenced_code", "toc", "admonition"])


def overlap_variants(embedder: OnnxEmbedder, texts: list[str],
                     sources: list[str]) -> dict[str, Callable[[], object]]:
    def serial() -> None:
        render_pages(sources)
        embedder.embed_documents(texts)

    def concurrent() -> None:
        worker = threading.Thread(target=embedder.embed_documents, args=(texts,))
        worker.start()
        render_pages(sources)
        worker.join()

    return {"render, then embed": serial, "render and embed at once": concurrent,
            "render alone": lambda: render_pages(sources)}


def summarize(seconds: dict[str, list[float]], baseline: str, tokens: int | None) -> dict:
    base = statistics.median(seconds[baseline])
    return {name: {"seconds": [round(s, 2) for s in runs],
                   "median_s": round(statistics.median(runs), 2),
                   "ratio": round(statistics.median(runs) / base, 3)}
            | ({"tokens_per_s": round(tokens / statistics.median(runs))} if tokens else {})
            for name, runs in seconds.items()}


def dense_scores(corpus: se.Corpus, vectors: np.ndarray, queries: np.ndarray) -> dict:
    """The set's metric over pages in the order of their best chunk's cosine."""
    urls = [c.url for c in corpus.chunks]
    metric = se.mrr_at_10 if corpus.metric == "mrr@10" else se.ndcg_at_10
    per_query = []
    for query, vector in zip(corpus.queries, queries):
        order = np.argsort(-(vectors @ vector), kind="stable")[:se.FLOOR_DEPTH]
        per_query.append(metric(list(dict.fromkeys(urls[i] for i in order)), query.relevant))
    return se.summarize(corpus, per_query)


def truncation(cut: int) -> dict:
    """Dense page retrieval (transformer queries) with chunk vectors of whole chunk
    texts (the build's) against vectors of their first `cut` tokens."""
    spec = default_model_spec()
    whole = OnnxEmbedder(spec)
    cut_embedder = OnnxEmbedder(default_model_spec(max_tokens=cut))
    loaders = {
        "fastapi": lambda: se.site_corpus("fastapi-docs", "fastapi", spec),
        "mkdocs": lambda: se.site_corpus("mkdocs-docs", "mkdocs", spec),
        "scifact": lambda: se.scifact_corpus(se.SHARED / "bench" / "scifact", spec, whole),
    }
    out = {}
    for name, load in loaders.items():
        print(f"truncation: {name}", file=sys.stderr)
        corpus = load()
        texts = [c.embed_text for c in corpus.chunks]
        lengths = np.array(whole.token_lengths(texts))
        queries = whole.embed_queries([q.text for q in corpus.queries])
        started = time.perf_counter()
        cut_vectors = cut_embedder.embed_documents(texts)
        out[name] = {
            "metric": corpus.metric, "chunks": len(texts), "tokens": int(lengths.sum()),
            "tokens_saved": round(1 - float(np.minimum(lengths, cut).sum() / lengths.sum()), 3),
            "whole": dense_scores(corpus, corpus.vectors, queries),
            "cut": dense_scores(corpus, cut_vectors, queries),
            "embed_cut_s": round(time.perf_counter() - started, 1),
        }
    return out


def render(results: dict) -> str:
    lines = [
        "# Levers on the first build's chunk embedding", "",
        f"Reproduce: `python bench/embed_levers.py`. One run ({results['run']}; "
        f"load average at start {results['load']}): {results['sample']} chunk texts of "
        f"fastapi-docs ({results['sample_tokens']:,} tokens), each variant "
        f"{results['repeats']} times in rotated order; medians, and the ratio to the "
        "plugin's setting in the same run (below 1 is faster).", "",
        "| lever | variant | median s | fastest s | tokens/s | ratio |",
        "|---|---|---|---|---|---|",
    ]
    spread = 1.0
    for lever in ("threads", "session", "budget", "overlap"):
        for name, row in results.get(lever, {}).items():
            spread = max(spread, max(row["seconds"]) / min(row["seconds"]))
            lines.append(f"| {lever} | {name} | {row['median_s']} | {min(row['seconds'])} | "
                         f"{row.get('tokens_per_s', '-')} | {row['ratio']} |")
    if spread > NOISY_SPREAD:
        lines += ["", f"**The machine's load moved during this run**: the repeats of one "
                  f"variant differ by up to {spread:.1f}x (load average at the end "
                  f"{results.get('load_end', 'not recorded')}), so ratios within that say "
                  "nothing; each repeat's seconds are in embed_levers.json."]
    pages = results["overlap_pages"]
    if "threads" in results:
        lines += ["", "Threads: the three variants' vectors are "
                  + ("the same to the bit." if results["threads_same_vectors"] else
                     "NOT the same bytes.")]
    lines += ["", f"Overlap: {pages} pages' Markdown rendered in the main thread while a "
              "second thread embeds the sample; the ratio is to rendering, then embedding."]
    cut = results.get("truncation")
    if cut:
        lines += ["", f"## Embedding only the first {results['truncation_tokens']} tokens "
                  "of each chunk", "",
                  "Dense page retrieval (transformer queries, page-deduplicated) with the "
                  "build's vectors (whole chunk) and with vectors of the cut text.", "",
                  "| set | metric | chunks | tokens saved | whole | cut | difference |",
                  "|---|---|---|---|---|---|---|"]
        for name, row in cut.items():
            for group in row["whole"]:
                label = name if group == "all" else f"{name} / {group}"
                diff = row["cut"][group] - row["whole"][group]
                lines.append(f"| {label} | {row['metric']} | {row['chunks']:,} | "
                             f"{row['tokens_saved']:.0%} | {row['whole'][group]:.3f} | "
                             f"{row['cut'][group]:.3f} | {diff:+.3f} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--truncation", type=int, default=128,
                        help="tokens to cut chunk texts to (0: skip this part)")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    import os

    spec = default_model_spec()
    corpus = se.site_corpus("fastapi-docs", "fastapi", spec)
    texts = [c.embed_text for c in corpus.chunks]
    random.Random(12).shuffle(texts)
    texts = texts[:args.sample]
    plain = OnnxEmbedder(spec)
    tokens = sum(plain.token_lengths(texts))
    sources = [p.read_text(encoding="utf-8") for p in
               sorted((se.SHARED / "corpora" / "fastapi-docs" / "docs").rglob("*.md"))]
    results: dict = {"run": time.strftime("%Y-%m-%d %H:%M"),
                     "load": ", ".join(f"{x:.2f}" for x in os.getloadavg()),
                     "sample": len(texts), "sample_tokens": tokens,
                     "repeats": args.repeats, "overlap_pages": len(sources)}

    print("threads", file=sys.stderr)
    variants, same = thread_variants(spec, texts)
    seconds = rotated_timings(variants, args.repeats)
    results["threads"] = summarize(seconds, next(iter(variants)), tokens)
    results["threads_same_vectors"] = same

    print("session options", file=sys.stderr)
    embedders = {name: embedder_with(entries) for name, entries in SESSION_VARIANTS.items()}
    for embedder in embedders.values():
        embedder.embed_documents(texts[:8])  # load and warm up outside the timing
    seconds = rotated_timings({name: (lambda e=e: e.embed_documents(texts))
                               for name, e in embedders.items()}, args.repeats)
    results["session"] = summarize(seconds, "plugin's session", tokens)

    print("batch budgets", file=sys.stderr)
    base = embedders["plugin's session"]
    budget_names = {b: f"{b} tokens" + (" (the plugin's)" if b == BATCH_TOKENS else "")
                    for b in BUDGETS}
    seconds = rotated_timings({budget_names[b]: (lambda b=b: embed_with_budget(base, texts, b))
                               for b in BUDGETS}, args.repeats)
    results["budget"] = summarize(seconds, budget_names[BATCH_TOKENS], tokens)

    print("overlap with rendering", file=sys.stderr)
    seconds = rotated_timings(overlap_variants(base, texts, sources), args.repeats)
    results["overlap"] = summarize(seconds, "render, then embed", None)

    results["load_end"] = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    if args.truncation:
        results["truncation_tokens"] = args.truncation
        results["truncation"] = truncation(args.truncation)
    write_results(args.out, "embed_levers", results, render(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
