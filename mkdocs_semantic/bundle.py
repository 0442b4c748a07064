"""The search bundle: `write_bundle` and `read_bundle`, side by side.

Layout of `<site>/<bundle_dir>/` (format 1):

- `manifest.json`: format, generator, model, quantization, metric, counts, files.
- `index.<h>.usearch`: a usearch index of the stored vectors, key = chunk number,
  added with one thread so that slot order is key order.
- `chunks.<h>.json`: what a result shows and filters on, kept small for browsers:
  `{"pages": [[url, title, section, facets, boost]],
    "chunks": [[page, anchor, path, excerpt, kind]]}`.
- `lexical.<h>.json`: the BM25 index (see `lexical.py`).
- `text.<h>.json`: full chunk text and covered anchors for Python readers:
  `{"chunks": [[text, anchors]]}`.
- `model.<h>.onnx`, `tokenizer.<h>.json`: the model that embeds queries.

`<h>` is the start of the file's sha256, so payload files can be cached forever.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import numpy as np

from . import __version__
from .chunking import Chunk
from .embedding import ModelSpec, sha256_file
from .files import atomic_write
from .lexical import LexicalFields, LexicalIndex
from .native import usearch_index_class
from .quantize import Quantized

FORMAT_VERSION = 1
MANIFEST = "manifest.json"
METRIC = "ip"
HASH_CHARS = 12
_HASHED_NAME = re.compile(r"^(index|chunks|text|lexical|model|tokenizer)\.[0-9a-f]{12}\.\w+$")
_TEMPORARY = re.compile(r"^\.(manifest\.json|semantic\.js|"
                        r"(index|chunks|text|lexical|model|tokenizer)\.[0-9a-f]{12}\.\w+)-\w+$")
_CLIENT_HASH = re.compile(r"^[0-9a-f]{12}$")
_OWN_MANIFEST = re.compile(r'^\{\s*"format":\s*\d+,\s*"generator":\s*"mkdocs-semantic-search ')
_OWN_API_ENTRY = re.compile(r'export \* from "\./client/[0-9a-f]{12}/semantic\.js";\n')
API_ENTRY = "semantic.js"
"""The stable entry point of the browser client's JavaScript API (written by client.py)."""
CLIENT_FOLDER = "client"
"""Where client.py copies the browser client, one `<hash>/` folder per client build."""
PAYLOADS = ("index", "chunks", "text", "lexical", "model", "tokenizer")
DEFAULT_SEARCH = {"mode": "hybrid", "top_k": 10, "min_score": None, "rrf_k": 60}
KIND_CODES = {"page": "p", "section": "s"}
KIND_NAMES = {v: k for k, v in KIND_CODES.items()}


class BundleError(ValueError):
    """A bundle cannot be read; the message names the file and what to do."""


@dataclass
class FileEntry:
    name: str
    bytes: int
    sha256: str


@dataclass
class Manifest:
    format: int
    generator: str
    model: dict
    quantization: dict
    metric: str
    counts: dict
    files: dict[str, FileEntry] = field(default_factory=dict)
    search: dict = field(default_factory=lambda: dict(DEFAULT_SEARCH))
    """Defaults every reader applies: mode, top_k, min_score, rrf_k, and the filter keys."""

    def to_json(self) -> dict:
        data = dict(self.__dict__)
        data["files"] = {k: v.__dict__ for k, v in self.files.items()}
        return data

    @classmethod
    def from_json(cls, data: dict, source: Path) -> Manifest:
        fmt = data.get("format") if isinstance(data, dict) else None
        if fmt != FORMAT_VERSION:
            raise BundleError(
                f"{source} is bundle format {fmt!r}; this mkdocs-semantic-search "
                f"({__version__}) reads format {FORMAT_VERSION}: rebuild the site with this "
                "version, or install the version that wrote it"
            )
        try:
            files = {k: FileEntry(**v) for k, v in data["files"].items()}
            return cls(
                format=fmt,
                generator=data["generator"],
                model=data["model"],
                quantization=data["quantization"],
                metric=data["metric"],
                counts=data["counts"],
                files=files,
                search=data["search"],
            )
        except (KeyError, TypeError) as exc:
            raise BundleError(f"{source} is not a valid manifest ({exc}): rebuild the site") \
                from exc


@dataclass
class Bundle:
    """A bundle read back: its manifest, chunks and stored vectors."""

    root: Path
    manifest: Manifest
    chunks: list[Chunk]
    vectors: np.ndarray
    lexical: LexicalIndex

    @property
    def scale(self) -> float:
        return float(self.manifest.quantization["scale"])

    def path_of(self, logical: str) -> Path:
        return self.root / self.manifest.files[logical].name

    def model_spec(self) -> ModelSpec:
        """The model that made the bundle's vectors, from the bundle's own (verified) files."""
        for logical in ("model", "tokenizer"):
            entry = self.manifest.files[logical]
            path = self.root / entry.name
            if not path.is_file() or sha256_file(path) != entry.sha256:
                raise BundleError(
                    f"{path} is missing or does not match manifest.json: rebuild the site"
                )
        m = self.manifest.model
        return ModelSpec(
            id=m["id"],
            model_path=self.path_of("model"),
            tokenizer_path=self.path_of("tokenizer"),
            sha256=m["sha256"],
            pooling=m["pooling"],
            normalize=m["normalize"],
            max_tokens=m["max_tokens"],
            query_prefix=m["query_prefix"],
            document_prefix=m["document_prefix"],
            dim=m["dim"],
        )


def bundle_dir_problem(value: str) -> str | None:
    """Why `value` cannot be the bundle folder inside a site, or None when it can.

    The bundle folder must be a folder of its own: the writer replaces what it wrote
    there before, so it must never share a folder with pages or the site root.
    """
    path = PurePosixPath(value.replace("\\", "/"))
    parts = [p for p in path.parts if p not in ("", ".", "/")]
    if path.is_absolute() or Path(value).is_absolute() or ".." in path.parts:
        return "a relative folder inside the site, such as 'semantic'"
    if not parts:
        return "a folder of its own inside the site, not the site root; e.g. 'semantic'"
    return None


def foreign_entries(out: Path) -> list[str]:
    """Entries in the bundle folder `out` that this package did not write (relative paths).

    The writer deletes and replaces only what this lists as its own, and refuses to
    write into a folder that holds anything else.
    """
    if not out.exists():
        return []
    if not out.is_dir():
        return ["."]
    foreign = []
    for entry in sorted(out.iterdir()):
        if entry.name == CLIENT_FOLDER and entry.is_dir() and not entry.is_symlink():
            foreign += [f"{CLIENT_FOLDER}/{child.name}" for child in sorted(entry.iterdir())
                        if not _is_client_copy(child)]
        elif not (entry.is_file() and not entry.is_symlink() and _is_own_file(entry)):
            foreign.append(entry.name + ("/" if entry.is_dir() else ""))
    return foreign


def claim_bundle_dir(out: Path) -> None:
    """Fail, naming what is there, unless `out` is missing or holds only bundle files."""
    foreign = foreign_entries(out)
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5
                                           else "")
        raise BundleError(
            f"{out} holds files this plugin did not write ({shown}); it writes its bundle "
            "only into a folder of its own, so nothing was written or deleted. Choose a "
            "bundle folder that no page or other plugin uses, or remove those files"
        )


def _is_own_file(path: Path) -> bool:
    """Ours by name; the two plain names (a PWA has a manifest.json too) also by content."""
    name = path.name
    if name in (MANIFEST, API_ENTRY):
        head = _head(path)
        return (_OWN_MANIFEST.search(head) if name == MANIFEST
                else _OWN_API_ENTRY.fullmatch(head)) is not None
    # a write killed half way leaves atomic_write's temporary file behind
    return _HASHED_NAME.match(name) is not None or _TEMPORARY.match(name) is not None


def _head(path: Path, size: int = 512) -> str:
    try:
        with path.open("rb") as fh:
            return fh.read(size).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _is_client_copy(path: Path) -> bool:
    return (path.is_dir() and not path.is_symlink()
            and _CLIENT_HASH.match(path.name) is not None)


def _hashed_name(stem: str, suffix: str, digest: str) -> str:
    return f"{stem}.{digest[:HASH_CHARS]}{suffix}"


def _write_payload(out: Path, stem: str, suffix: str, data: bytes) -> FileEntry:
    digest = hashlib.sha256(data).hexdigest()
    name = _hashed_name(stem, suffix, digest)
    atomic_write(out / name, data, shared=True)
    return FileEntry(name=name, bytes=len(data), sha256=digest)


def _copy_payload(out: Path, stem: str, source: Path, digest: str | None = None) -> FileEntry:
    digest = digest or sha256_file(source)
    name = _hashed_name(stem, source.suffix, digest)
    target = out / name
    if not (target.exists() and target.stat().st_size == source.stat().st_size):
        shutil.copyfile(source, target)
    return FileEntry(name=name, bytes=source.stat().st_size, sha256=digest)


def _json_bytes(data: object) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _usearch_bytes(stored: Quantized, workdir: Path) -> bytes:
    Index = usearch_index_class()
    count, dim = stored.vectors.shape
    index = Index(ndim=dim, metric=METRIC, dtype=stored.dtype)
    if count:
        index.add(np.arange(count, dtype=np.uint64), stored.vectors, threads=1)
    fd, tmp = tempfile.mkstemp(suffix=".usearch", dir=workdir)
    os.close(fd)
    try:
        index.save(tmp)
        return Path(tmp).read_bytes()
    finally:
        Path(tmp).unlink(missing_ok=True)


def write_bundle(out: Path, *, chunks: list[Chunk], stored: Quantized, spec: ModelSpec,
                 lexical: LexicalIndex | None = None, search: dict | None = None,
                 model_sha256: str | None = None) -> Manifest:
    """Write the bundle into `out`, replacing an older one; returns its manifest.

    Raises BundleError, writing nothing, if `out` holds files this package did not write.
    """
    claim_bundle_dir(out)
    if len(chunks) != len(stored.vectors):
        raise ValueError(f"{len(chunks)} chunks but {len(stored.vectors)} vectors")
    if lexical is None:
        lexical = LexicalIndex.build([lexical_fields(c) for c in chunks])
    out.mkdir(parents=True, exist_ok=True)
    page_numbers: dict[str, int] = {}
    pages: list[list] = []
    rows: list[list] = []
    texts: list[list] = []
    for chunk in chunks:
        if chunk.url not in page_numbers:
            page_numbers[chunk.url] = len(pages)
            pages.append([chunk.url, chunk.title, chunk.section, chunk.facets, chunk.boost])
        rows.append([page_numbers[chunk.url], chunk.anchor, chunk.path, chunk.excerpt,
                     KIND_CODES[chunk.kind]])
        texts.append([chunk.text, chunk.anchors])
    files = {
        "index": _write_payload(out, "index", ".usearch", _usearch_bytes(stored, out)),
        "chunks": _write_payload(out, "chunks", ".json", _json_bytes({"pages": pages,
                                                                      "chunks": rows})),
        "text": _write_payload(out, "text", ".json", _json_bytes({"chunks": texts})),
        "lexical": _write_payload(out, "lexical", ".json", _json_bytes(lexical.to_json())),
        "model": _copy_payload(out, "model", spec.model_path, model_sha256),
        "tokenizer": _copy_payload(out, "tokenizer", spec.tokenizer_path),
    }
    model = spec.manifest_entry()
    model["sha256"] = files["model"].sha256
    model["dim"] = int(stored.vectors.shape[1]) if len(stored.vectors) else spec.dim
    manifest = Manifest(
        format=FORMAT_VERSION,
        generator=f"mkdocs-semantic-search {__version__}",
        model=model,
        quantization={"dtype": stored.dtype, "scale": stored.scale},
        metric=METRIC,
        counts={"pages": len(pages), "chunks": len(chunks)},
        files=files,
        search={**DEFAULT_SEARCH, **(search or {}), "filters": filter_keys(chunks)},
    )
    atomic_write(out / MANIFEST, json.dumps(manifest.to_json(), indent=1).encode("utf-8"),
                 shared=True)
    keep = {entry.name for entry in files.values()}
    for old in out.iterdir():
        if _HASHED_NAME.match(old.name) and old.name not in keep:
            old.unlink()
    return manifest


def lexical_fields(chunk: Chunk) -> LexicalFields:
    return LexicalFields(title=chunk.title, heading=" ".join(chunk.path), body=chunk.text)


def filter_keys(chunks: list[Chunk]) -> list[str]:
    """The keys a reader may filter on: `section`, then every facet some page has."""
    keys = dict.fromkeys(["section"])
    for chunk in chunks:
        keys.update(dict.fromkeys(chunk.facets))
    return list(keys)


def find_bundle_dir(path: Path) -> Path:
    """Accept a bundle directory or a site directory that holds one."""
    path = Path(path)
    if (path / MANIFEST).is_file():
        return path
    candidates = sorted(p.parent for p in path.glob(f"*/{MANIFEST}"))
    if len(candidates) == 1:
        return candidates[0]
    if not path.exists():
        raise BundleError(f"{path} does not exist: build the site first (mkdocs build)")
    raise BundleError(
        f"no {MANIFEST} in {path} or its sub-folders: point at the site directory or "
        "its semantic/ folder, after a build with plugins: [semantic]"
    )


def _read_verified(root: Path, entry: FileEntry) -> bytes:
    path = root / entry.name
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BundleError(f"{path} is missing or unreadable ({exc}): rebuild the site") from exc
    if len(data) != entry.bytes or hashlib.sha256(data).hexdigest() != entry.sha256:
        raise BundleError(
            f"{path} does not match manifest.json (truncated or changed): rebuild the site"
        )
    return data


def read_manifest(root: Path) -> Manifest:
    path = root / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BundleError(f"cannot read {path} ({exc}): rebuild the site") from exc
    return Manifest.from_json(data, path)


def read_bundle(path: Path) -> Bundle:
    """Read and verify a bundle (payload sizes and sha256 against the manifest)."""
    root = find_bundle_dir(Path(path))
    manifest = read_manifest(root)
    for logical in PAYLOADS:
        if logical not in manifest.files:
            raise BundleError(f"{root / MANIFEST} lists no {logical} file: rebuild the site")
    try:
        listing = json.loads(_read_verified(root, manifest.files["chunks"]))
        text_rows = json.loads(_read_verified(root, manifest.files["text"]))["chunks"]
        pages = listing["pages"]
        chunks = []
        for (page, anchor, path_, _excerpt, kind), (text, anchors) in zip(
            listing["chunks"], text_rows, strict=True
        ):
            url, title, section, facets, boost = pages[page]
            chunks.append(Chunk(url=url, anchor=anchor, title=title, path=path_, text=text,
                                kind=KIND_NAMES[kind], anchors=anchors, section=section,
                                facets=facets, boost=boost))
        lexical = LexicalIndex.from_json(json.loads(_read_verified(root,
                                                                   manifest.files["lexical"])))
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise BundleError(f"the chunk files in {root} are malformed ({exc}): rebuild the site") \
            from exc
    vectors = _read_index(root, manifest)
    if len(vectors) != len(chunks) or len(chunks) != manifest.counts.get("chunks"):
        raise BundleError(
            f"{root}: {len(vectors)} vectors, {len(chunks)} chunks, manifest says "
            f"{manifest.counts.get('chunks')}: rebuild the site"
        )
    if lexical.count != len(chunks):
        raise BundleError(f"{root}: the lexical index covers {lexical.count} chunks, not "
                          f"{len(chunks)}: rebuild the site")
    return Bundle(root=root, manifest=manifest, chunks=chunks, vectors=vectors, lexical=lexical)


def _read_index(root: Path, manifest: Manifest) -> np.ndarray:
    Index = usearch_index_class()
    entry = manifest.files["index"]
    _read_verified(root, entry)
    path = root / entry.name
    try:
        index = Index.restore(str(path), view=True)
    except Exception as exc:
        raise BundleError(f"{path} is not a usearch index ({exc}): rebuild the site") from exc
    if index is None:
        raise BundleError(f"{path} is not a usearch index: rebuild the site")
    count = len(index)
    if count == 0:
        return np.zeros((0, int(manifest.model["dim"] or 0)), dtype=np.float32)
    return np.asarray(index.get(np.arange(count, dtype=np.uint64)))
