"""Query vectors for a bundle's vector set, and how every reader scores them.

Two encoders:

- `StaticQueryEncoder`: the query's tokens (special tokens included, truncated to
  `max_tokens`) each add their row of the bundle's token table; tokens without a row add
  nothing. The sum is an integer vector, so every reader computes the same one. No
  model runs: a table row is a few hundred bytes.
- the transformer: the bundle's ONNX model (embedding.OnnxEmbedder), as at build time.

Scoring against int8 vectors is exact integer arithmetic in every reader: the query
vector becomes int8 codes (`query_codes`), the dot product with each stored row is an
integer, and the score is `dot / (vector scale * |codes|)`, one float64 division.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..bundle.table import TableRows, summed_rows


class StaticQueryEncoder:
    """Query text -> integer vector, the sum of its tokens' table rows."""

    def __init__(self, *, tokenizer_path: Path, table: TableRows, max_tokens: int,
                 prefix: str = "") -> None:
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        # tokenizer.json may carry fixed padding and truncation: the encoder cuts itself.
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self.table = table
        self.max_tokens = max_tokens
        self.prefix = prefix

    @property
    def dim(self) -> int:
        return self.table.dim

    def token_ids(self, query: str) -> list[int]:
        return self.tokenizer.encode(self.prefix + query).ids[: self.max_tokens]

    def encode(self, query: str) -> np.ndarray | None:
        """The query's integer vector, or None when no token of it has a row."""
        return summed_rows(self.table, self.token_ids(query))




