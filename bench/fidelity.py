"""How closely the static query table stands in for the model, site by site: the
fidelity every build measures (held-out phrases of the site; top-10 chunks in common
and the mean cosine, mkdocs_semantic/indexing/query_table/fidelity.py), read from each
built bundle's catalog, beside the site's size.

Builds, with the plugin and an embedding cache kept in bench/.cache/fidelity/:
../shared/corpora/fastapi-docs, ../shared/corpora/mkdocs-docs and example-site/.
Writes bench/results/fidelity.{json,md}.

    python bench/fidelity.py [--out DIR]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results_file import write_results  # bench/results_file.py

from mkdocs_semantic.bundle.reader import read_bundle
from mkdocs_semantic.indexing.query_table.fidelity import LOW_AGREEMENT, Fidelity

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared"
SITES = {
    "fastapi-docs": SHARED / "corpora" / "fastapi-docs",
    "mkdocs-docs": SHARED / "corpora" / "mkdocs-docs",
    "example-site": REPO / "example-site",
}


def with_plugin(config: Path, cache: Path) -> None:
    """The site's mkdocs.yml with the semantic plugin (and its cache folder) after search."""
    text = config.read_text(encoding="utf-8").replace("\n  - semantic\n", "\n")
    if "\n  - search\n" not in text:
        raise SystemExit(f"{config}: expected a `plugins:` list with `- search`")
    config.write_text(text.replace(
        "\n  - search\n", f"\n  - search\n  - semantic:\n      cache_dir: {cache}\n"),
        encoding="utf-8")


def build(name: str, source: Path, work: Path) -> dict:
    project = work / name
    shutil.copytree(source, project, ignore=shutil.ignore_patterns("site", ".cache"))
    cache = HERE / ".cache" / "fidelity" / name
    with_plugin(project / "mkdocs.yml", cache)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f",
                    str(project / "mkdocs.yml"), "-d", str(project / "site")], check=True)
    bundle = read_bundle(project / "site")
    found = Fidelity.from_json(bundle.catalog["encoders"]["static"].get("fidelity"))
    if found is None:
        raise SystemExit(f"{name}: the bundle records no fidelity")
    return {"pages": bundle.manifest.counts["pages"], "chunks": bundle.manifest.counts["chunks"],
            "phrases": found.phrases, "agreement": round(found.agreement, 3),
            "cosine": round(found.cosine, 3), "seconds": round(time.perf_counter() - started, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = {name: build(name, source, Path(tmp)) for name, source in SITES.items()}
    stamp = time.strftime("%Y-%m-%d %H:%M")
    lines = [
        "# Fidelity of the static query encoder, as every build measures it", "",
        f"Measured {stamp}. Reproduce: `python bench/fidelity.py`. Phrases: spans of 3 to 8 "
        "words of each site's sentences, held out of the table's fit; `top-10 in common`: "
        "the mean share of the model's first ten chunks that the static vector ranks first "
        f"ten too. A build warns below {LOW_AGREEMENT:.0%} (provisional: below every site "
        "here, until sets where the static encoder ranks below the model calibrate it).", "",
        "| site | pages | chunks | phrases | top-10 in common | cosine | build s |",
        "|---|---|---|---|---|---|---|",
        *[f"| {name} | {r['pages']} | {r['chunks']} | {r['phrases']} | {r['agreement']:.0%} "
          f"| {r['cosine']:.2f} | {r['seconds']} |" for name, r in rows.items()],
        "",
    ]
    write_results(args.out, "fidelity", {"measured": stamp, "low_agreement": LOW_AGREEMENT,
                                         "sites": rows}, "\n".join(lines))


if __name__ == "__main__":
    main()
