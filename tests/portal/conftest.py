"""Shared by the data-folder and database tests."""

from __future__ import annotations

from pathlib import Path

PARITY = Path(__file__).resolve().parents[1] / "fixtures" / "parity" / "bundle"
