"""The sites bench/compare measures: fastapi-docs at 1x, 4x, 16x and 64x, built five ways.

A scale-N project is the corpus plus N-1 versioned copies of all its pages
(`docs/v2/...`, `docs/v3/...`, up to `docs/v64/` at 64x). The copies keep every
page's text and title unchanged, so each copied chunk's embedded text (title,
heading path, body) is byte-identical to the original's and the plugin's embedding
cache serves it: the big builds run chunking, lexical indexing, quantizing and
writing at full size but embed nothing new. The version lives in the URL path and
in one nav entry per version (an "Older versions" section), so every page carries
the same navigation as one version of a versioned site would.

Each project is built five ways, each timed as a whole `mkdocs build` process:
`plugins: []` (no search at all; Pagefind then indexes this site), the corpus as
it is (`plugins: [search]`: Material's lunr search, the baseline "plain" build),
`plugins: [search, semantic]` as shipped (`vector_layout: auto`, partitioned from
4,096 chunks) and the same with `vector_layout: exact` (the reference the
partitioned layout is scored against).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

PLUGINS_SEARCH = "\nplugins:\n  - search\n"
# Theme chrome that is on every page (header, tabs, navigation and table of
# contents sidebars, footer, permalink anchors): Pagefind indexes the content only,
# as its docs recommend (data-pagefind-body, or these selectors without a template).
PAGEFIND_EXCLUDE = (".md-header, .md-tabs, .md-sidebar, .md-footer, .headerlink, "
                    ".md-content__button, .md-source-file, .md-skip")
SEMANTIC_LINE = re.compile(
    r"semantic: (?P<pages>\d+) pages, (?P<chunks>\d+) chunks, (?P<embedded>\d+) embedded, "
    r"(?P<reused>\d+) reused")


@dataclass
class Build:
    """One timed build step."""

    name: str
    seconds: float
    ok: bool = True
    error: str = ""
    facts: dict = field(default_factory=dict)
    # The machine's 1-minute load average when the step began and when it ended.
    load_average: list[float] = field(default_factory=list)


def load_now() -> float:
    return round(os.getloadavg()[0], 2)


def make_project(corpus: Path, dest: Path, copies: int) -> dict:
    """Copy the corpus to `dest` with `copies - 1` versioned copies of its pages."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(corpus, dest)
    docs = dest / "docs"
    taken = sorted(p.name for p in docs.iterdir() if re.fullmatch(r"v\d+", p.name))
    if taken:
        raise SystemExit(f"{corpus}/docs already has {', '.join(taken)}: the copies would "
                         "mix with its own pages")
    pages = sorted(p.relative_to(docs) for p in docs.rglob("*.md"))
    config = (dest / "mkdocs.yml").read_text(encoding="utf-8")
    keys = re.findall(r"^[A-Za-z_]+:", config, re.MULTILINE)
    if PLUGINS_SEARCH not in config or not keys or keys[-1] != "nav:":
        raise SystemExit(f"{corpus}/mkdocs.yml: expected 'plugins: [search]' and nav: last")
    versions = [f"v{n}" for n in range(2, copies + 1)]
    for version in versions:
        for page in pages:
            target = docs / version / page
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(docs / page, target)
    if versions:
        # Untitled entries: the copy's title comes from its h1, as the original's does.
        entries = "".join(f"  - {v}:\n    - {v}/index.md\n" for v in versions)
        config = config.rstrip("\n") + "\n- Older versions:\n" + entries
    (dest / "mkdocs.yml").write_text(config, encoding="utf-8")
    return {"copies": copies, "pages": len(pages) * copies, "source_pages": len(pages)}


def write_configs(project: Path, cache_dir: Path) -> dict[str, str]:
    """The four configs beside the corpus' own mkdocs.yml; returns name -> file."""
    config = (project / "mkdocs.yml").read_text(encoding="utf-8")
    semantic = (PLUGINS_SEARCH + "  - semantic:\n"
                f"      cache_dir: {json.dumps(str(cache_dir))}\n")
    files = {
        "nosearch": config.replace(PLUGINS_SEARCH, "\nplugins: []\n"),
        "plain": config,
        "semantic": config.replace(PLUGINS_SEARCH, semantic),
        "semantic_exact": config.replace(PLUGINS_SEARCH,
                                         semantic + "      vector_layout: exact\n"),
    }
    names = {}
    for name, text in files.items():
        path = project / f"{name}.yml"
        path.write_text(text, encoding="utf-8")
        names[name] = path.name
    return names


def mkdocs_build(project: Path, config: str, site: str, name: str) -> Build:
    """`mkdocs build` of one config into `project/site`, timed."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    load = load_now()
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-f", config, "-d", site],
        cwd=project, capture_output=True, text=True, env=env, timeout=5400)
    seconds = time.perf_counter() - started
    loads = [load, load_now()]
    if proc.returncode != 0:
        return Build(name, seconds, ok=False, error=_tail(proc.stderr), load_average=loads)
    facts = {}
    match = SEMANTIC_LINE.search(proc.stderr)
    if match:
        facts = {k: int(v) for k, v in match.groupdict().items()}
    return Build(name, seconds, facts=facts, load_average=loads)


def semantic_index(project: Path, plain_site: str, site: str, cache_dir: Path) -> Build:
    """Without the browser client the plugin cannot build: index the plain site instead."""
    shutil.copytree(project / plain_site, project / site, dirs_exist_ok=True)
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs_semantic", "index", site, "--cache-dir", str(cache_dir)],
        cwd=project, capture_output=True, text=True, timeout=1800)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        return Build("semantic-index", seconds, ok=False, error=_tail(proc.stderr + proc.stdout))
    return Build("semantic-index", seconds, facts={"via": "mkdocs-semantic index"})


def pagefind(project: Path, site: str, binary: Path, exclude: str = PAGEFIND_EXCLUDE) -> Build:
    """Pagefind's CLI over a built site, timed; writes `site/pagefind/`. `exclude`: the
    theme's chrome (default: Material's)."""
    load = load_now()
    started = time.perf_counter()
    proc = subprocess.run(
        [str(binary), "--site", site, "--exclude-selectors", exclude],
        cwd=project, capture_output=True, text=True, timeout=5400)
    seconds = time.perf_counter() - started
    loads = [load, load_now()]
    if proc.returncode != 0:
        return Build("pagefind", seconds, ok=False, error=_tail(proc.stderr + proc.stdout),
                     load_average=loads)
    facts = {}
    for key, pattern in (("pages", r"Indexed (\d+) pages"), ("words", r"Indexed (\d+) words")):
        match = re.search(pattern, proc.stdout)
        if match:
            facts[key] = int(match.group(1))
    return Build("pagefind", seconds, facts=facts, load_average=loads)


def tree_bytes(path: Path) -> int:
    """Bytes of all files under `path` (0 if it does not exist)."""
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def semantic_parts(site: Path) -> dict:
    """The plugin's files in a site, from its bundle's catalog (format 6).

    `folders`: bytes of the payload files the catalog lists, by folder (fragments, text,
    vectors, lexical, table, model), each file once: payloads are named by their
    content, so two byte-identical shards are one file. `listed`: the same with every
    catalog entry counted, which is what a site without identical shards would hold
    (the versioned copies of the bigger sites share vector parts and text shards).
    `tokenizer_bytes` and `model_bytes` split the model folder (the ONNX model is
    there only with `query_encoder: transformer`). `bundle_bytes`: manifest, catalog
    and every payload file but the ONNX model. `unlisted_bytes`: anything else in the
    bundle folder besides the client (0 when the writer left no stale files).
    `vectors`: the vector set's layout (and, partitioned, its partitions, rows probed and
    candidates scored exactly). `kinds`: bytes and files of each kind the report counts
    fetches by (report.part_of), each file once.
    """
    from report import part_of

    from mkdocs_semantic.bundle.reader import payloads_of, read_catalog, read_manifest

    root = site / "semantic"
    manifest = read_manifest(root)
    catalog = read_catalog(root, manifest)
    entries = payloads_of(catalog, root)
    payloads = list({p.name: p for p in entries}.values())
    folders, files = _by_folder(payloads)
    listed, listed_files = _by_folder(entries)
    transformer = catalog["encoders"].get("transformer")
    static = catalog["encoders"].get("static")
    model = transformer["model"][1] if transformer else 0
    tokenizer = (static or transformer or {}).get("tokenizer", [None, 0])[1]
    head = (root / "manifest.json").stat().st_size + manifest.catalog.bytes
    client = tree_bytes(root / "client") + tree_bytes(root / "semantic.js")
    written = head + sum(p.bytes for p in payloads)
    kinds: dict[str, list[int]] = {}
    for payload in payloads:
        kind = kinds.setdefault(part_of(f"/{root.name}/{payload.name}"), [0, 0])
        kind[0] += payload.bytes
        kind[1] += 1
    spec = catalog["vectors"][0]
    return {
        "format": manifest.format,
        "query_encoder": manifest.query_encoder,
        "vectors": {k: spec[k] for k in ("layout", "dtype", "dim", "partitions", "probe_rows",
                                         "candidates") if k in spec},
        "manifest_counts": manifest.counts,
        "manifest_and_catalog_bytes": head,
        "folders": folders,
        "folder_files": files,
        "kinds": kinds,
        "listed": listed,
        "listed_files": listed_files,
        "bundle_bytes": written - model,
        "tokenizer_bytes": tokenizer,
        "model_bytes": model,
        "client_bytes": client,
        "client_wasm_bytes": sum(f.stat().st_size for f in (root / "client").rglob("*.wasm")),
        "unlisted_bytes": tree_bytes(root) - written - client,
    }


def _by_folder(payloads: list) -> tuple[dict[str, int], dict[str, int]]:
    """Bytes and file counts of payloads, by the folder their names start with."""
    size: dict[str, int] = {}
    count: dict[str, int] = {}
    for payload in payloads:
        folder = payload.name.split("/")[0] if "/" in payload.name else "."
        size[folder] = size.get(folder, 0) + payload.bytes
        count[folder] = count.get(folder, 0) + 1
    return size, count


def as_dict(build: Build) -> dict:
    return asdict(build)


def _tail(text: str, lines: int = 12) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])
