"""Helpers shared by the corpus scripts: downloads, the page cap, the MkDocs project."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE.parent / ".cache"
MAX_WORDS = 3000
PANDOC_WHEEL = "pypandoc_binary==1.17"
FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class Source:
    """One downloaded package: what the corpus README records."""

    registry: str
    name: str
    version: str
    licence: str


PANDOC_SOURCE = Source("PyPI", "pypandoc_binary (pandoc, the converter)",
                       PANDOC_WHEEL.split("==")[1], "MIT (pandoc: GPL-2.0-or-later)")


def pandoc_binary(downloads: Path) -> Path:
    """pandoc from PyPI's pypandoc_binary wheel (a static binary), unpacked once."""
    binary = downloads / "pandoc" / "pandoc"
    if binary.exists():
        return binary
    wheels = downloads / "wheels"
    run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
         "-d", str(wheels), PANDOC_WHEEL])
    wheel = next(wheels.glob("pypandoc_binary-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        binary.parent.mkdir(parents=True, exist_ok=True)
        binary.write_bytes(archive.read("pypandoc/files/pandoc"))
    binary.chmod(0o755)
    return binary


def html_to_markdown(pandoc: Path, html: str, *, timeout: int = 300) -> tuple[str, str]:
    """pandoc's GitHub Markdown of `html` (no raw HTML, lines unwrapped), and "" and the
    last line pandoc said when it gave nothing."""
    proc = subprocess.run([str(pandoc), "-f", "html", "-t", "gfm-raw_html", "--wrap=none"],
                          input=html, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0 or not proc.stdout.strip():
        return "", (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return proc.stdout, ""


def debian_package(package: str, debs: Path, unpacked: Path, name: str) -> tuple[Path, str]:
    """The Debian package `package` unpacked under `unpacked` (its .deb fetched into
    `debs` with `apt-get download` unless already there), and its version. `name`
    labels errors."""
    into = debs
    found = sorted(into.glob(f"{package}_*.deb"))
    if not found:
        into.mkdir(parents=True, exist_ok=True)
        log(f"{name}: apt-get download {package}")
        try:
            run(["apt-get", "download", package], cwd=into)
        except SystemExit as failed:
            last = (str(failed).strip().splitlines() or ["no output"])[-1]
            raise SystemExit(f"{name}: apt-get download {package} failed "
                             f"(apt-get update first?): {last}") from None
        found = sorted(into.glob(f"{package}_*.deb"))
        if not found:
            raise SystemExit(f"{name}: no {package}_*.deb after apt-get download")
    deb = found[-1]
    version = run(["dpkg-deb", "-f", str(deb), "Version"]).strip()
    root = unpacked / f"{package}_{version}"
    if not root.exists():
        root.mkdir(parents=True)
        run(["dpkg-deb", "-x", str(deb), str(root)])
    return root, version


def run(cmd: list[str], cwd: Path | None = None) -> str:
    """Run a command, fail loudly with its stderr."""
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return proc.stdout


def cap_words(markdown: str, limit: int = MAX_WORDS) -> tuple[str, bool]:
    """The page up to the paragraph where it passes `limit` words; a code fence
    left open by the cut is closed. Returns the text and whether it was cut."""
    blocks = markdown.split("\n\n")
    kept: list[str] = []
    words = 0
    for block in blocks:
        if words >= limit:
            break
        kept.append(block)
        words += len(block.split())
    if len(kept) == len(blocks):
        return markdown, False
    text = "\n\n".join(kept)
    fences = sum(1 for line in text.splitlines() if FENCE.match(line))
    if fences % 2:
        text += "\n```"
    return text.rstrip() + "\n", True


def write_project(out: Path, site_name: str, pages: dict[str, str], index: str,
                  nav: list[tuple[str, list[str]]] | None = None) -> None:
    """Write `out` as an MkDocs project: mkdocs.yml and docs/. The nav is the home
    page and the `nav` sections given (none: thousands of pages would each render a
    full nav; MkDocs builds the pages left out all the same)."""
    if out.exists():
        shutil.rmtree(out)
    docs = out / "docs"
    for rel, text in {"index.md": index, **pages}.items():
        path = docs / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    lines = ["nav:", "  - Home: index.md"]
    for label, section in nav or []:
        lines += [f"  - {label}:", *(f"    - {rel}" for rel in section)]
    (out / "mkdocs.yml").write_text(
        f"site_name: {site_name}\n" + "\n".join(lines) + "\n"
        "theme:\n  name: mkdocs\n"
        "plugins:\n  - search\n",
        encoding="utf-8")


def sources_table(sources: list[Source]) -> str:
    rows = ["| registry | package | version | licence |", "|---|---|---|---|"]
    rows += [f"| {s.registry} | {s.name} | {s.version} | {s.licence} |" for s in sources]
    return "\n".join(rows) + "\n"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
