"""What the keyword analyzer counts as one token of text."""

from __future__ import annotations

import re

TOKEN = re.compile(r"\w(?:[\w.:\-]*\w)?")
"""A token starts and ends with a letter, digit or underscore and may hold . : - inside:
`response_model_exclude_unset`, `fastapi.responses.JSONResponse`, `log-level`.
(JavaScript: /[\\p{L}\\p{N}_](?:[\\p{L}\\p{N}_.:-]*[\\p{L}\\p{N}_])?/gu, js/src/text/terms.js)"""
SEPARATORS = re.compile(r"[._:\-]+")
"""What splits an identifier into its parts."""
