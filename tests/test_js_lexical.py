"""The browser's keyword analyzer against the Python one (node runs js/src/lexical.js)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from mkdocs_semantic.lexical import STOPWORDS, analyze

JS = Path(__file__).resolve().parent.parent / "js"
TEXTS = [
    "response_model_exclude_unset HTTPException fastapi.responses.JSONResponse",
    "uvicorn main:app --reload --log-level debug",
    "The caching of cached responses, incredibly possibly organized internally",
    "getJSONData2 v0.95.1 e.g. s as is os js",
    "東京は日本の首都です。 Café naïve résumé Ünïcödé ß",
    "emoji 🚀 launch 👩‍💻 and RTL مرحبا بكم",
    "Zero\u200bwidth and combining e\u0301 and \ufeffBOM",
    "",
]


@pytest.fixture(scope="module")
def node_terms() -> list[list[str]]:
    node = shutil.which("node")
    if node is None or not (JS / "node_modules" / "snowball-stemmers").exists():
        pytest.fail("node and js/node_modules are needed: run scripts/setup")
    script = (
        "import { analyze } from './src/lexical.js';"
        "import fs from 'node:fs';"
        "const { texts, stopwords } = JSON.parse(fs.readFileSync(0, 'utf8'));"
        "const stop = new Set(stopwords);"
        "console.log(JSON.stringify(texts.map((t) => analyze(t, stop))));"
    )
    out = subprocess.run([node, "--input-type=module", "-e", script], cwd=JS, check=True,
                         input=json.dumps({"texts": TEXTS, "stopwords": sorted(STOPWORDS)}),
                         capture_output=True, text=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("index", range(len(TEXTS)))
def test_node_and_python_make_the_same_terms(node_terms, index):
    assert node_terms[index] == analyze(TEXTS[index])
