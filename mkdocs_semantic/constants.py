"""The package's version, and the constants both readers (Python and the browser
client) need, read from `constants.json`, which the client's build imports too."""

from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

try:
    __version__ = version("mkdocs-semantic-search")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

_SHARED = json.loads((Path(__file__).parent / "constants.json").read_text(encoding="utf-8"))

FORMAT_VERSION: int = _SHARED["FORMAT_VERSION"]
"""The bundle format this package writes and reads."""
LEXICAL_VERSION: int = _SHARED["LEXICAL_VERSION"]
"""The keyword index's shard format (bundle/lexical.py)."""
VOCABULARY_VERSION: int = _SHARED["VOCABULARY_VERSION"]
"""The vocabulary's shard format (bundle/vocabulary.py)."""
PIECES_VERSION: int = _SHARED["PIECES_VERSION"]
"""The word piece files' format (bundle/wordpieces.py)."""
BROWSER_MODEL_VERSION: int = _SHARED["BROWSER_MODEL_VERSION"]
"""The format of the model files for the client's own forward pass (bundle/browser_model.py)."""
PIECE_KEY_CHARS: str = _SHARED["PIECE_KEY_CHARS"]
"""The characters of the word piece keys that have files of their own."""
PIECE_PUNCTUATION: str = _SHARED["PIECE_PUNCTUATION"]
"""The ASCII punctuation whose pieces (each its own word) share one keyed file."""
MAX_PIECE_FILE_BYTES: int = _SHARED["MAX_PIECE_FILE_BYTES"]
"""No keyed word piece file is larger: a reader stops reading one there."""
MAX_KEYED_SHARD_BYTES: int = _SHARED["MAX_KEYED_SHARD_BYTES"]
"""A browser reads a keyed list's shard (its size unlisted) up to this many bytes."""
MIN_WORD: int = _SHARED["MIN_WORD"]
MAX_WORD: int = _SHARED["MAX_WORD"]
"""The letters of a vocabulary word: at least MIN_WORD, at most MAX_WORD."""
STOPWORDS: frozenset[str] = frozenset(_SHARED["STOPWORDS"].split())
"""The words the keyword index leaves out (every catalog lists them too)."""
MAX_IDENTIFIER: int = _SHARED["MAX_IDENTIFIER"]
"""The longest code name the vocabulary holds."""
MIN_CORRECTED: int = _SHARED["MIN_CORRECTED"]
"""Shorter unknown words are searched as typed: too many site words lie one edit away."""
LONG_WORD: int = _SHARED["LONG_WORD"]
"""From this many letters a word may be two edits from its correction."""
HASH_CHARS: int = _SHARED["HASH_CHARS"]
"""Hex characters of sha256 in a payload's name."""
SHARD_HASH_CHARS: int = _SHARED["SHARD_HASH_CHARS"]
"""Hex characters of sha256 in a shard's name: its own hash (bundle/shard_lists.py)."""
ROW_CHECK_BYTES: int = _SHARED["ROW_CHECK_BYTES"]
"""Bytes of sha256 that end a query table row's payload (bundle/names.py)."""
MAX_MANIFEST_BYTES: int = _SHARED["MAX_MANIFEST_BYTES"]
"""A real manifest is under 1 kB; anything past this is not one."""
CATALOG_COPY: str = _SHARED["CATALOG_COPY"]
"""The current catalog under a name that does not change, so that a browser can ask for it
beside the manifest (and checks it against the manifest's SHA-256)."""
MAX_CATALOG_BYTES: int = _SHARED["MAX_CATALOG_COPY_BYTES"]
"""No catalog is larger (fastapi-docs' is 45 kB): a manifest that declares more is refused
before a byte of the catalog is read, by every reader."""
MAX_DIM: int = _SHARED["MAX_DIM"]
MAX_MODEL_TOKENS: int = _SHARED["MAX_MODEL_TOKENS"]
"""The longest input any model may be configured for (the probe runs one input this long)."""
MAX_QUERY_CHARS: int = _SHARED["MAX_QUERY_CHARS"]
"""The longest query any reader takes, in characters (Python and the browser alike)."""
DEFAULT_TOP_K: int = _SHARED["DEFAULT_TOP_K"]
MAX_TOP_K: int = _SHARED["MAX_TOP_K"]
"""The most results a search may return: the `top_k` option's limit, and every reader's
(the browser client, the searcher, the CLI, the service and the MCP server)."""
SCALAR_BYTES: dict[str, int] = _SHARED["SCALAR_BYTES"]
QUERY_ENCODERS: tuple[str, ...] = tuple(_SHARED["QUERY_ENCODERS"])
# what a site may choose (the plugin's `query_encoder`): an encoder, or `progressive` (the
# static encoder for a first query, the model fetched in idle time for the later ones)
SITE_QUERY_ENCODERS: tuple[str, ...] = (*QUERY_ENCODERS, "progressive")


def site_encoders(choice: str) -> tuple[str, ...]:
    """The query encoders a site built with `query_encoder: choice` ships: the one a
    browser's first query uses, then the one it fetches in idle time, if any."""
    return ("static", "transformer") if choice == "progressive" else (choice,)

SEARCH_MODES: tuple[str, ...] = tuple(_SHARED["SEARCH_MODES"])
PAGE_DEPTH: int = _SHARED["PAGE_DEPTH"]
VECTOR_CHUNKS: int = _SHARED["VECTOR_CHUNKS"]
"""The vector signal's first chunks that take part in the fusion (search/ranking.py)."""
PER_PAGE: int = _SHARED["PER_PAGE"]
NAME_WORDS: int = _SHARED["NAME_WORDS"]
NAME_KEYWORD_WEIGHT: float = float(_SHARED["NAME_KEYWORD_WEIGHT"])
"""A query of at most NAME_WORDS words, one shaped like code, names something: its
keyword signal weighs NAME_KEYWORD_WEIGHT in the fusion (search/ranking.py)."""
NAMED_HEADINGS: int = _SHARED["NAMED_HEADINGS"]
"""The keyword order's first sections whose headings a name is looked for in
(search/ranking.py, step 8)."""
TYPICAL_QUANTILE: float = _SHARED["TYPICAL_QUANTILE"]
SIZE_MARGIN: int = _SHARED["SIZE_MARGIN"]
EXCERPT_CHARS: int = _SHARED["EXCERPT_CHARS"]
"""Characters a result shows of its excerpt text."""
CODE_LINES: int = _SHARED["CODE_LINES"]
"""Lines of code an excerpt window shows at most."""
