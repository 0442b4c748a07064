"""What `mkdocs-semantic stats` says of a bundle: model, encoders, counts by section and
facet, files and bytes by folder."""

from __future__ import annotations

from collections import Counter

from ..bundle.folder import installed_client
from ..bundle.names import Payload
from ..constants import CATALOG_COPY
from ..indexing.query_table.fidelity import Fidelity
from .encoders import server_encoder


def bundle_facts(bundle) -> dict:
    """Everything `stats` shows, as plain data."""
    m = bundle.manifest
    sections: dict[str, dict[str, int]] = {}
    facets: dict[str, dict[str, dict[str, int]]] = {}
    seen_pages: set[str] = set()
    for chunk in bundle.chunks:
        first = chunk.url not in seen_pages
        seen_pages.add(chunk.url)
        row = sections.setdefault(chunk.section, {"pages": 0, "chunks": 0})
        row["pages"] += first
        row["chunks"] += 1
        for facet, values in (getattr(chunk, "facets", None) or {}).items():
            for value in values:
                cell = facets.setdefault(facet, {}).setdefault(value, {"pages": 0, "chunks": 0})
                cell["pages"] += first
                cell["chunks"] += 1
    catalog = bundle.catalog
    model = catalog["model"]
    client = installed_client(bundle.root)
    payloads = _bundle_files(bundle)
    return {
        "bundle": str(bundle.root),
        "format": m.format,
        "generator": m.generator,
        "model": {"id": model["id"], "dim": model["dim"], "max_tokens": model["max_tokens"]},
        "query_encoder": m.query_encoder,
        # the encoder browsers fetch in idle time for later queries (progressive), or None
        "idle_encoder": m.idle_encoder,
        # what `query`, `eval`, `serve` and `mcp` answer with by default
        "server_query_encoder": server_encoder(bundle, None),
        # how the build measured the static encoder against the model (None: not measured)
        "fidelity": catalog["encoders"].get("static", {}).get("fidelity"),
        "dtype": bundle.vectors.dtype,
        "pages": m.counts["pages"],
        "chunks": m.counts["chunks"],
        "kinds": dict(Counter(c.kind for c in bundle.chunks)),
        "sections": sections,
        "facets": facets,
        "files": {group: {"files": len(files), "bytes": sum(f.bytes for f in files)}
                  for group, files in _payload_groups(payloads).items()},
        "total_bytes": sum(f.bytes for f in payloads),
        # None for a downloaded bundle: readers outside the browser fetch no client
        "client": None if client is None else {"files": client.files, "bytes": client.bytes},
    }


def _bundle_files(bundle) -> list:
    """The bundle's payloads, and the catalog's copy under its stable name when it is
    on disk (a downloaded bundle has none)."""
    copy = bundle.root / CATALOG_COPY
    if not copy.is_file():
        return list(bundle.files)
    return [*bundle.files, Payload(CATALOG_COPY, copy.stat().st_size)]


def _payload_groups(files: list) -> dict[str, list]:
    """Payloads by folder (`catalog` for the catalog and its copy)."""
    groups: dict[str, list] = {}
    for payload in files:
        folder = payload.name.split("/")[0] if "/" in payload.name else "catalog"
        groups.setdefault(folder, []).append(payload)
    return groups


def render_facts(facts: dict) -> str:
    model = facts["model"]
    lines = [
        f"bundle     {facts['bundle']}",
        f"format     {facts['format']}",
        f"generator  {facts['generator']}",
        f"model      {model['id']} ({model['dim']} dims, {model['max_tokens']} tokens)",
        f"encoder    {facts['query_encoder']}"
        f"{' then ' + facts['idle_encoder'] if facts['idle_encoder'] else ''} (browsers), "
        f"{facts['server_query_encoder']} "
        f"(servers), vectors {facts['dtype']}",
        *([f"fidelity   {fidelity.line()}"]
          if (fidelity := Fidelity.from_json(facts["fidelity"])) is not None else []),
        f"pages      {facts['pages']}",
        f"chunks     {facts['chunks']} ("
        + ", ".join(f"{n} {kind}" for kind, n in sorted(facts["kinds"].items())) + ")",
        "",
    ]
    lines += _count_table("section", {k or "(top level)": v
                                      for k, v in facts["sections"].items()})
    for facet, values in facts["facets"].items():
        lines += ["", *_count_table(facet, values)]
    lines += ["", f"{'payload':<10} {'files':>6} {'bytes':>12}"]
    for group, f in facts["files"].items():
        lines.append(f"{group:<10} {f['files']:>6} {f['bytes']:>12,}")
    total_files = sum(f["files"] for f in facts["files"].values())
    lines.append(f"{'bundle':<10} {total_files:>6} {facts['total_bytes']:>12,}")
    client = facts["client"]
    if client is None:
        lines.append(f"{'client':<10} {'-':>6} {'-':>12}  (not in a downloaded bundle)")
    else:
        lines.append(f"{'client':<10} {client['files']:>6} {client['bytes']:>12,}  "
                     "(the browser client, in the built site)")
    return "\n".join(lines)


def _count_table(label: str, rows: dict[str, dict[str, int]]) -> list[str]:
    width = max([len(k) for k in rows] + [len(label)])
    out = [f"{label:<{width}}  {'pages':>6}  {'chunks':>6}"]
    out += [f"{k:<{width}}  {v['pages']:>6}  {v['chunks']:>6}" for k, v in rows.items()]
    return out
