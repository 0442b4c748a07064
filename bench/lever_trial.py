"""The frame of a static-table lever trial: sets loaded into `static_levers.Lab`s, the
transformer's figures beside, each lever measured against the shipped recipe, one table
per set in bench/results/."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402
import static_levers as sl  # noqa: E402
from results_file import write_results  # noqa: E402

from mkdocs_semantic.model.onnx import OnnxEmbedder, load_tokenizer  # noqa: E402
from mkdocs_semantic.model.spec import default_model_spec  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

ALL_SETS = "fastapi,npm,mkdocs,manshort,postgres,python"


def render(title: str, script: str, results: dict, *, count: str | None = None) -> str:
    """One table per set; `count`: a figure of the levers' rows shown in its own column."""
    lines = [f"# {title}", "",
             f"Reproduce: `python bench/{script} --sets {','.join(results['sets'])}"
             + (f" --levers {results['levers']}" if results.get("levers") else "") + "`. "
             f"Measured {results['run']}. Static encoder, MRR@10 by subset through the "
             "product's `Searcher`; the levers are in the bench's docstring.", ""]
    for name, entry in results["sets"].items():
        model = entry["transformer"]
        extra = [count] if count else []
        lines += [f"## {name} (transformer vector {model['vector']['all']:.3f}, hybrid "
                  f"{model['hybrid']['all']:.3f})", "",
                  "| " + " | ".join(["lever", *extra, "vector", "hybrid"]) + " |",
                  "|" + "---|" * (3 + len(extra))]
        for lever, row in entry["levers"].items():
            cells = [", ".join(f"{g} {row[mode][g]:.3f}" for g in row[mode])
                     for mode in ("vector", "hybrid")]
            shown = [str(row.get(count, ""))] if count else []
            lines.append("| " + " | ".join([lever, *shown, *cells]) + " |")
        lines.append("")
    return "\n".join(lines)


def run(doc: str, script: str, title: str, run_set: Callable[[sl.Levers], None], *,
        count: str | None = None) -> int:
    """The whole trial: `--sets`, `--levers` (only the levers whose name holds one of
    these words, beside the shipped recipe; a partial run writes its own file),
    `--name`, `--out`."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--sets", default=ALL_SETS)
    parser.add_argument("--levers", default="")
    parser.add_argument("--name", help="the results' file name (default: the script's, "
                        "and each --levers word after it)")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    words = [w for w in args.levers.split(",") if w]
    file_name = args.name or Path(script).stem + "".join(f"_{w}" for w in words)
    spec = default_model_spec()
    embedder = OnnxEmbedder(spec)
    tokenizer = load_tokenizer(spec.tokenizer_path, spec.max_tokens)
    loaders = se.set_loaders(spec, embedder, se.SHARED / "bench" / "scifact")
    results: dict = {"run": time.strftime("%Y-%m-%d %H:%M"), "levers": args.levers,
                     "sets": {}}
    for name in se.site_sets(parser, args.sets):
        lab = sl.Lab(loaders[name](), embedder, tokenizer)
        transformer = Searcher(lab.corpus.bundle, embedder, encoder="transformer")
        levers = sl.Levers(lab, words)
        levers.measure("shipped recipe", lambda lab=lab: lab.score(lab.fit(lab.base)))
        run_set(levers)
        results["sets"][name] = {
            "transformer": se.evaluate(lab.corpus, transformer,
                                       [transformer.embed(q.text) for q in lab.corpus.queries]),
            "levers": levers.rows}
    write_results(args.out, file_name, results, render(title, script, results, count=count))
    return 0
