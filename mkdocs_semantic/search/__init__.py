"""Searching a bundle: the `Searcher`, page-aware fusion of keyword and vector rankings
(`ranking`), the static query encoder (`query_encoder`) and result excerpts
(`excerpts`)."""

from .searcher import Result, Searcher

__all__ = ["Result", "Searcher"]
