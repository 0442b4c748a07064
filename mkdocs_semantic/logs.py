"""Where the package logs. The plugin and the build pipeline it shares with
`mkdocs-semantic index` (indexer, caches, query table) log to MkDocs' logger for the
plugin, so that `mkdocs build` shows their lines and counts their warnings under
`--strict`; the CLI, the service and the MCP server log under `mkdocs_semantic`.
The CLI shows both (`LOGGERS`)."""

from __future__ import annotations

from mkdocs.plugins import get_plugin_logger

build_log = get_plugin_logger("semantic")
"""`mkdocs.plugins.semantic`; every message starts with `semantic: `."""

LOGGERS = (build_log.logger.name, "mkdocs_semantic")
"""Every logger of the package (with its children)."""
