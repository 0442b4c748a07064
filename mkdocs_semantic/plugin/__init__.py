"""The MkDocs plugin: hooks (`plugin`), options (`config`) and the browser client wired
into the theme's pages (`theme`)."""

from .plugin import SemanticPlugin

__all__ = ["SemanticPlugin"]
