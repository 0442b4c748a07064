"""The relevance sets searched as one (apps/sites.py: what `serve` and `mcp` do with
several SOURCEs): does a site's ranking survive the other sites' results?

Loads every set as bench/static_encoder.py does (the product bundle of each), puts them
in one SiteSet and, per query encoder (static, the default; transformer), measures each
set's queries in hybrid mode:

- alone: the set's own Searcher, as one site;
- site filter: the SiteSet asked for that site only (the same ranking by construction;
  measured, not assumed);
- together: the SiteSet over every site, unfiltered; a result from another site is a
  miss. Also the share of the first 10 results that come from other sites.

MRR@10 on the set's pages (SciFact is left out: its queries are not a docs reader's).

    python bench/sites_together.py [--sets fastapi,mkdocs,manpages,npm,postgres,python]

Writes bench/results/sites_together.{json,md}.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402
from readers_typing import EARLIER_SETS, sets_command  # noqa: E402
from results_file import write_results  # noqa: E402

from mkdocs_semantic.apps.service import Query, QueryService  # noqa: E402
from mkdocs_semantic.apps.sites import Site, SiteSet  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

ENCODERS = ("static", "transformer")


def mrr(sites: SiteSet, name: str, corpus: se.Corpus, names: list[str] | None
        ) -> tuple[float, float]:
    """MRR@10 of the set's queries through `sites` (`names`: the sites asked), and the
    share of the first 10 results from other sites."""
    total, foreign, shown = 0.0, 0, 0
    for query in corpus.queries:
        found = sites.search(Query(text=query.text, top_k=corpus.top_k), names).results
        pages = list(dict.fromkeys(
            f.result.url if f.site == name else f"{f.site}:{f.result.url}" for f in found))
        total += se.mrr_at_10(pages, query.relevant)
        foreign += sum(f.site != name for f in found[:10])
        shown += len(found[:10])
    return round(total / len(corpus.queries), 4), round(foreign / max(shown, 1), 3)


def main() -> int:
    args, wanted, embedder, loaders = sets_command(__doc__, sets=EARLIER_SETS)
    corpora = {}
    for name in wanted:
        print(f"{name}: loading", file=sys.stderr)
        corpora[name] = loaders[name]()
    results: dict = {"run": time.strftime("%Y-%m-%d %H:%M"), "sets": list(corpora),
                     "encoders": {}}
    for encoder in ENCODERS:
        services = {name: QueryService(Searcher(c.bundle, embedder if encoder == "transformer"
                                                else None, encoder=encoder))
                    for name, c in corpora.items()}
        sites = SiteSet([Site(name, service) for name, service in services.items()])
        rows = {}
        for name, corpus in corpora.items():
            alone = SiteSet([Site(name, services[name])])
            print(f"{encoder} {name}", file=sys.stderr)
            rows[name] = {"alone": mrr(alone, name, corpus, None)[0],
                          "filtered": mrr(sites, name, corpus, [name])[0]}
            rows[name]["together"], rows[name]["foreign_share"] = mrr(sites, name, corpus,
                                                                      None)
        results["encoders"][encoder] = rows
    write_results(args.out, "sites_together", results, render(results))
    return 0


def render(results: dict) -> str:
    lines = ["# The relevance sets searched as one", "",
             f"Reproduce: `python bench/sites_together.py`. Measured {results['run']}: "
             f"{', '.join(results['sets'])} in one SiteSet (apps/sites.py, what `serve` and "
             "`mcp` do with several SOURCEs). Hybrid MRR@10 of each set's queries: alone "
             "(its own Searcher), with the site filter (that site only), and together (every "
             "site, merged by score; another site's result is a miss). Foreign: the share of "
             "the first 10 results from other sites.", "",
             "| set | encoder | alone | site filter | together | foreign in first 10 |",
             "|---|---|---|---|---|---|"]
    for encoder, rows in results["encoders"].items():
        for name, row in rows.items():
            lines.append(f"| {name} | {encoder} | {row['alone']:.3f} | {row['filtered']:.3f} | "
                         f"{row['together']:.3f} | {row['foreign_share']:.0%} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
