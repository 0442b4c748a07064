"""Hand memory that a finished build step freed back to the system."""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import cache


@cache
def _malloc_trim():
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):  # not glibc (macOS, musl, Windows)
        return None


def return_freed_memory() -> None:
    """glibc keeps freed heap pages for reuse, so a process's resident size stays at
    its peak after large frees; malloc_trim(0) returns them. Nothing elsewhere."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
