"""The MkDocs plugin: hooks (`plugin`) and options (`config`); the browser client is wired
into the theme's pages by `pages/`, which `mkdocs-semantic index` shares."""

from .plugin import SemanticPlugin

__all__ = ["SemanticPlugin"]
