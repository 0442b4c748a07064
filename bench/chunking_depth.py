"""Chunking time against nesting depth and against the size of one paragraph.

Pages: a heading and a paragraph inside N nested `<div>`s (N = 1k, 5k, 20k, 50k),
chunked as the plugin does and read as `mkdocs-semantic index` does (static-site
reader, then chunking); and one paragraph of about 1 MB, in English, in Japanese
(sentences end at 。 with no space), and with no sentence end at all. Reports the
seconds of each, and for the paragraphs how many times each character was
tokenized. Writes bench/results/chunking_depth.{json,md}.

    python bench/chunking_depth.py [--depths 1000 5000 20000 50000]
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
import time
from pathlib import Path

from mkdocs_semantic.chunk import PageFacts
from mkdocs_semantic.indexing.html_chunks import chunk_page
from mkdocs_semantic.indexing.static_site import read_page
from mkdocs_semantic.model.onnx import TokenCounter
from mkdocs_semantic.model.spec import default_model_spec

HERE = Path(__file__).resolve().parent
PAGE = PageFacts(url="deep/", title="Deep")
MAX_TOKENS = 256
PARAGRAPHS = {
    "English sentences": "Caches keep copies of responses so that later requests are "
                         "answered faster. ",
    "Japanese sentences": "東京は日本の首都です。人口は約千四百万人です。",
    "no sentence end": "word " * 40,
}


class TokenizedChars:
    """The real token counter, counting the characters it tokenizes."""

    def __init__(self, count: TokenCounter) -> None:
        self.count = count
        self.chars = 0

    def __call__(self, texts):
        self.chars += sum(len(t) for t in texts)
        return self.count(texts)

    def token_ends(self, text):
        self.chars += len(text)
        return self.count.token_ends(text)


def nested_page(depth: int) -> str:
    return ("<html><body><main>" + "<div>" * depth
            + "<h2 id='deep'>Deep heading</h2><p>Caching answers repeated requests.</p>"
            + "<nav>menu</nav>" + "</div>" * depth + "</main></body></html>")


def timed(work):
    started = time.perf_counter()
    result = work()
    return result, round(time.perf_counter() - started, 3)


def depth_row(depth: int, count: TokenCounter, folder: Path) -> dict:
    html = nested_page(depth)
    chunks, chunk_seconds = timed(lambda: chunk_page(html, PAGE, count=count,
                                                     max_tokens=MAX_TOKENS))
    path = folder / f"deep-{depth}.html"
    path.write_text(html, encoding="utf-8")

    def read_and_chunk():
        page = read_page(folder, path)
        return chunk_page(page.html, page.facts, count=count, max_tokens=MAX_TOKENS)

    site_chunks, site_seconds = timed(read_and_chunk)
    ok = all(any(c.anchor == "deep" and "Caching answers" in c.text for c in found)
             for found in (chunks, site_chunks))
    return {"depth": depth, "html_bytes": len(html.encode()), "chunk_seconds": chunk_seconds,
            "read_and_chunk_seconds": site_seconds, "section_found": ok}


def paragraph_row(name: str, sentence: str, count: TokenCounter) -> dict:
    text = sentence * (1_000_000 // len(sentence.encode()))
    counter = TokenizedChars(count)
    chunks, seconds = timed(lambda: chunk_page(f"<h2 id='p'>P</h2><p>{text}</p>", PAGE,
                                               count=counter, max_tokens=MAX_TOKENS))
    return {"paragraph": name, "bytes": len(text.encode()), "chunks": len(chunks),
            "max_tokens_in_a_chunk": max(count([c.embed_text for c in chunks])),
            "seconds": seconds, "tokenized_per_char": round(counter.chars / len(text), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[1000, 5000, 20000, 50000])
    args = parser.parse_args()
    count = TokenCounter(default_model_spec().tokenizer_path)
    with tempfile.TemporaryDirectory() as tmp:
        depths = [depth_row(d, count, Path(tmp)) for d in args.depths]
    paragraphs = [paragraph_row(name, s, count) for name, s in PARAGRAPHS.items()]
    results = {"machine": f"{platform.machine()}, Python {platform.python_version()}",
               "max_tokens": MAX_TOKENS, "depth": depths, "paragraphs": paragraphs}
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "chunking_depth.json").write_text(json.dumps(results, indent=1) + "\n")
    lines = [
        "# Chunking time against nesting depth and paragraph size", "",
        "Reproduce: `python bench/chunking_depth.py`. One run on a shared machine: read",
        "the growth from row to row rather than the seconds.", "",
        "Before the iterative walks and the one-pass splitting (same machine): depth",
        "1,000 and 5,000 raised RecursionError (after 1.6 s and 22 s); a 1 MB paragraph",
        "of Japanese ran over 400 s and was stopped; each character of a long paragraph",
        "was tokenized 8 (English), 27 (no sentence end) and 102 (Japanese) times.",
        "", "A heading and a paragraph inside N nested `<div>`s:", "",
        "| depth | HTML bytes | chunk (s) | read as a static site + chunk (s) | section found |",
        "|---|---|---|---|---|",
        *(f"| {r['depth']:,} | {r['html_bytes']:,} | {r['chunk_seconds']} | "
          f"{r['read_and_chunk_seconds']} | {'yes' if r['section_found'] else 'NO'} |"
          for r in depths),
        "", f"One paragraph of about 1 MB, chunks of at most {MAX_TOKENS} tokens:", "",
        "| paragraph | bytes | chunks | largest chunk (tokens) | seconds | "
        "times each character was tokenized |",
        "|---|---|---|---|---|---|",
        *(f"| {r['paragraph']} | {r['bytes']:,} | {r['chunks']} | "
          f"{r['max_tokens_in_a_chunk']} | {r['seconds']} | {r['tokenized_per_char']} |"
          for r in paragraphs),
        "",
    ]
    (out / "chunking_depth.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
