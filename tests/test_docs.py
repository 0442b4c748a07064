"""The project's own documentation (docs/, the root mkdocs.yml) builds with
`mkdocs build --strict`: no dead link, no missing anchor, no page left out of nav.

The build runs with the semantic plugin switched off: embedding these docs with the
real model took 55 s and 1.2 GB on the 2-core test machine (51 s of it in the
plugin), and the point here is MkDocs' link and anchor check. Real builds with the
plugin are covered by tests/plugin/.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml
from mkdocs.utils.yaml import yaml_load

from .conftest import REPO

ROOT_CONFIG = REPO / "mkdocs.yml"


def without_semantic(plugins: list) -> list:
    """The root config's plugins, with `semantic` kept (its options still checked) but
    `enabled: false`."""
    out = []
    for entry in plugins:
        name = entry if isinstance(entry, str) else next(iter(entry))
        if name == "semantic":
            options = {} if isinstance(entry, str) else dict(entry[name] or {})
            entry = {"semantic": {**options, "enabled": False}}
        out.append(entry)
    return out


def strict_build(config: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config),
         "-d", str(site)],
        cwd=config.parent, capture_output=True, text=True, timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


def test_project_docs_build_with_strict_link_checks(tmp_path):
    with ROOT_CONFIG.open(encoding="utf-8") as f:
        root = yaml_load(f)
    # MkDocs 1.6 only reports a missing anchor at `info` unless told to warn
    assert root.get("validation", {}).get("anchors") == "warn", \
        "keep `validation: anchors: warn` in mkdocs.yml: --strict fails only on warnings"
    override = tmp_path / "mkdocs.yml"
    override.write_text(yaml.safe_dump({
        "INHERIT": str(ROOT_CONFIG),
        # relative paths resolve against this file, not the inherited one
        "docs_dir": str((REPO / root.get("docs_dir", "docs")).resolve()),
        "plugins": without_semantic(root["plugins"]),
    }), encoding="utf-8")

    proc = strict_build(override, tmp_path / "site")

    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "semantic:" not in proc.stderr  # the plugin really was off
    built = {p.relative_to(tmp_path / "site").as_posix()
             for p in (tmp_path / "site").rglob("index.html")}
    pages = sorted((REPO / "docs").glob("*.md"))
    assert len(built) >= len(pages) > 5


def test_the_docs_quote_the_limits_and_the_format_the_code_has():
    """A limit or a format version quoted in the docs is the one the code holds."""
    from mkdocs_semantic.constants import FORMAT_VERSION, MAX_TOP_K

    docs = {p.name: p.read_text(encoding="utf-8") for p in (REPO / "docs").glob("*.md")}
    ranges = [(name, int(top.replace(",", ""))) for name, text in docs.items()
              for top in re.findall(r"(?:`k`|top_k|top-k|results)[^\n]*?\b1 ?(?:to|-) ?([\d,]+)",
                                    text)]
    assert ranges and all(top == MAX_TOP_K for _, top in ranges), ranges
    formats = [(name, int(v)) for name, text in docs.items()
               for v in re.findall(r'"format": (\d+)', text)]
    assert formats and all(v == FORMAT_VERSION for _, v in formats), formats
