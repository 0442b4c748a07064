"""The browser's keyword analyzer (js/src/engine/lexical.js, run by node) against the Python one
on the whole FastAPI vocabulary: every distinct word and every distinct line of the
fastapi-docs corpus' Markdown, code blocks included. The fixture's odd texts
(tests/fixtures/parity/analyzer.json) are checked on both sides without the corpus."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from mkdocs_semantic.bundle.lexical import STOPWORDS, analyze

from .conftest import REPO, SHARED, SHARED_ENV

CORPUS = SHARED / "corpora" / "fastapi-docs"
JS = REPO / "js"
NODE_ANALYZE = (
    "import { analyze } from './src/engine/lexical.js';"
    "import fs from 'node:fs';"
    "const { texts, stopwords } = JSON.parse(fs.readFileSync(0, 'utf8'));"
    "const stop = new Set(stopwords);"
    "process.stdout.write(JSON.stringify(texts.map((t) => analyze(t, stop))));"
)


def corpus_texts(docs: Path) -> tuple[list[str], list[str]]:
    """Distinct whitespace-separated words and distinct non-blank lines of `docs`."""
    words: set[str] = set()
    lines: set[str] = set()
    for path in sorted(docs.rglob("*.md")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                lines.add(line)
                words.update(line.split())
    return sorted(words), sorted(lines)


def node_terms(texts: list[str]) -> list[list[str]]:
    node = shutil.which("node")
    if node is None or not (JS / "node_modules" / "snowball-stemmers").exists():
        pytest.fail("node and js/node_modules are needed: run scripts/setup")
    out = subprocess.run([node, "--input-type=module", "-e", NODE_ANALYZE], cwd=JS,
                         check=True, input=json.dumps({"texts": texts,
                                                       "stopwords": sorted(STOPWORDS)}),
                         capture_output=True, text=True, encoding="utf-8", timeout=300)
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def vocabulary() -> tuple[list[str], list[str]]:
    if not CORPUS.is_dir():
        pytest.skip(f"the fastapi-docs corpus is missing: this test reads {CORPUS} "
                    f"(shared/corpora/fastapi-docs beside the repository, or set {SHARED_ENV})")
    return corpus_texts(CORPUS / "docs")


def test_node_and_python_make_the_same_terms_for_every_fastapi_word_and_line(vocabulary):
    words, lines = vocabulary
    assert len(words) > 10_000 and len(lines) > 5_000  # the whole corpus, not a sample
    texts = words + lines
    python = [analyze(text) for text in texts]
    javascript = node_terms(texts)
    assert len(javascript) == len(texts)
    differ = [(text, want, got) for text, want, got in zip(texts, python, javascript)
              if want != got]
    shown = "\n".join(f"{text!r}: python {want}, node {got}" for text, want, got in differ[:20])
    assert not differ, f"{len(differ)} of {len(texts)} texts differ:\n{shown}"
    # the corpus holds what the analyzer must split: identifiers, paths, flags, numbers
    assert {"response_model_exclude_unset", "--reload", "fastapi.responses"} <= {
        w.strip("`(),:") for w in words}
