"""Native extensions that must be loaded in a fixed order."""

from __future__ import annotations


def usearch_index_class():
    """usearch's `Index`, loaded after onnxruntime.

    Importing usearch's extension first makes the later `import onnxruntime` crash the
    process (seen with usearch 2.26 and onnxruntime 1.31), so onnxruntime always goes first.
    """
    import onnxruntime  # noqa: F401
    from usearch.index import Index

    return Index


def usearch_exact_search():
    """usearch's exact (brute-force) `search` and its inner-product metric, loaded after
    onnxruntime for the same reason."""
    import onnxruntime  # noqa: F401
    from usearch.index import MetricKind, search

    return search, MetricKind.IP
