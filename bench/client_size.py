"""The browser client a site ships: the files a build copies into it, by query encoder.

Reads the built client (mkdocs_semantic/assets, client.json) and sums what a static
build copies (everything but onnxruntime-web's files) and what a transformer build
copies, raw and gzip (as GitHub Pages sends text), and what a reader's browser loads:
with the page, and before a first static query. Sizes only, so one run says it.

    python bench/client_size.py

Writes bench/results/client_size.{json,md}.
"""

from __future__ import annotations

import argparse
import gzip
import sys
import time
from pathlib import Path

from results_file import write_results  # bench/results_file.py

from mkdocs_semantic.pages.theme import FORWARD_PREFIXES, ClientAssets

HERE = Path(__file__).resolve().parent
PAGE = ("auto.js", "semantic.js", "semantic.css")
"""What a page of the other themes loads (mkdocs, readthedocs, our dialog)."""
MATERIAL_PAGE = ("material.js", "material-worker.js")
"""What a Material for MkDocs page loads (Material starts the worker with the page)."""
FIRST_QUERY = ("worker.js",)
"""What a first static query loads besides the page's: the worker, the engine in it."""


def sizes(assets: ClientAssets, names: list[str]) -> dict:
    raw = sum((assets.root / name).stat().st_size for name in names)
    sent = sum(len(gzip.compress((assets.root / name).read_bytes(), 6)) for name in names)
    return {"files": len(names), "bytes": raw, "gzip": sent}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    assets = ClientAssets.load()
    static = [n for n in assets.files if not n.startswith(tuple(FORWARD_PREFIXES.values()))]
    # a transformer site's client: the forward pass of its own, no onnxruntime-web
    transformer = [n for n in assets.files if not n.startswith(FORWARD_PREFIXES["onnx"])]
    results = {
        "run": time.strftime("%Y-%m-%d %H:%M"),
        "client": assets.hash,
        "static_build": sizes(assets, static),
        "transformer_build": sizes(assets, transformer),
        "page": sizes(assets, list(PAGE)),
        "material_page": sizes(assets, list(MATERIAL_PAGE)),
        "first_query": sizes(assets, list(FIRST_QUERY)),
    }
    write_results(args.out, "client_size", results, render(results))
    return 0


def render(results: dict) -> str:
    def row(label: str, key: str) -> str:
        s = results[key]
        return (f"| {label} | {s['files']} | {s['bytes'] / 1000:,.0f} kB | "
                f"{s['gzip'] / 1000:,.0f} kB |")

    return "\n".join([
        "# The browser client a site ships", "",
        f"Reproduce: `python bench/client_size.py`. Measured {results['run']} on client "
        f"{results['client']} (mkdocs_semantic/assets/client.json).", "",
        "| what | files | bytes | gzip |", "|---|---|---|---|",
        row("a static build copies", "static_build"),
        row("a transformer build copies (the forward pass of its own, no onnxruntime-web)",
            "transformer_build"),
        *([row("a page of the mkdocs, readthedocs or dialog themes loads (`auto.js`, "
               "`semantic.js`, `semantic.css`)", "page"),
           row("a Material page loads (`material.js`, `material-worker.js`)", "material_page")]
          if "material_page" in results else
          [row("every page loads (`auto.js`, `semantic.js`, `semantic.css`)", "page")]),
        row("a first static query adds (`worker.js`)", "first_query"), ""])


if __name__ == "__main__":
    sys.exit(main())
