"""The search bundle (format 12): its format (`format`), writer (`writer`) and reader
(`reader`), side by side, and the payloads they share.

Layout of `<site>/<bundle_dir>/`:

- `manifest.json`, small and never cached long: `format`, `generator`, `catalog` (name,
  bytes, sha256), `counts` (pages, chunks), `search` (defaults every reader applies:
  mode, top_k, min_score, filters) and `query_encoder` (`static` or
  `transformer`: how readers embed a query by default).
- `catalog.<h>.json`: what a reader needs to plan its downloads. It grows far more slowly
  than the site: every list that would grow with it is a payload, a keyed list (named
  from the key: a term's shard by a hash of it, a page's by its number; the catalog
  holds the set's hash, the count and a sizes payload) or a shard list
  (bundle/shard_lists.py: the first key and size of each shard, named by its number and
  the list's hash; in the catalog while short, else in directories of 32 shards).
  - `model`: the document model (id, sha256, dim, pooling, normalize, max_tokens, prefixes);
  - `pages`: `count`, `boosts` (page -> search.boost, where not 1) and `table`, the page
    table payload (bundle/page_table.py: chunks per page, which chunks continue a section);
  - `facets`: the payload that maps filter key -> value -> pages (and the partitions
    holding their chunks), read by filtered queries only;
  - `fragments`: a keyed list of pages (shard n: page n); `fragment_parts` (when a page
    is longer than its `chunks`): the long pages' excerpts in parts, a keyed list
    (bundle/fragment_parts.py); `text`: a shard list of pages (first page);
  - `lexical`: `version`, `scale`, `count`, `stopwords`, `head` (postings a term keeps
    for unfiltered queries) and `shards`, a keyed list of terms;
  - `vectors`: vector sets, each `{model, dtype, scale, dim, metric, sum, layout, ...}`
    (bundle/vectors/store.py): `exact` with `parts` (first page), or `partitioned` with
    `partitions`, `probe_rows`, `candidates`, `id_bytes`, `index` and `centroids`
    (and `bits`, every partition's bits file, when a query probes them all);
  - `encoders`: `static` (`vectors`: the set it queries, `tokenizer`, `max_tokens`,
    `dtype`, `scale`, `dim`, `rows`: the table's hash and its token ids as gaps) and,
    when the site ships its model, `transformer` (`vectors`, `model`, `tokenizer`).
- payloads, named by content hash or self-checked (see bundle/names.py), in folders:
  - `pages/pages.<h>.bin`: the page table; `facets/facets.<h>.json`: the facets;
  - `index/<leaf><n>.<h>.json`: a shard list's directory, `{at, first, bytes}`;
  - `lexical/sizes.<h>.json`, `fragments/sizes.<h>.json`, `parts/sizes.<h>.json`: a
    keyed list's shard sizes;
  - `fragments/frag<n>.<h>.json`: page n, `[[url, title, section, [[anchor, path, excerpt,
    kind], ...]]]`, kind `p` (page lead) or `s` (section); the excerpt is the text results
    may show (about 480 characters, see `Chunk.excerpt_parts`): a string, or where it
    holds code a list alternating prose and code, prose first (`["Run", "make all", "."]`);
  - `parts/part<n>.<h>.json`: part n of the long pages, as a page's fragments file with
    the rows of its chunks only;
  - `text/text<n>.<h>.json`: per page `[[text, anchors, anchor, path], ...]` (Python
    readers only; the chunk's own anchor and heading path, where fragments hold the
    deep link and the path results show);
  - `vectors/...`: see bundle/vectors/store.py;
  - `lexical/lex<n>.<h>.json`, `lexical/sizes.<h>.json` and `lexical/tail.<h>.json`: see
    `LexicalIndex.to_shards` and `shard_lists.write_keyed_list`;
  - `table/row<token id>.<h>.bin`: one row of the query table, dim int8 values and a
    4-byte check; `<h>` is the table's hash, not the file's (bundle/table.py);
  - `model/model.<h>.onnx`, `model/tokenizer.<h>.json`.

Chunk ids are positions in page order: chunk `starts[page] + local`. Everything a page
owns is addressed by page and position. A shard list's shards are named by their list's
hash, so an edit to one page renames the shards of the lists it changes; payloads named
by their own hash stay as they were.
"""

from .format import BundleError, FileEntry, Manifest
from .reader import Bundle, find_bundle_dir, read_bundle, read_catalog, read_manifest
from .writer import write_bundle

__all__ = [
    "Bundle",
    "BundleError",
    "FileEntry",
    "Manifest",
    "find_bundle_dir",
    "read_bundle",
    "read_catalog",
    "read_manifest",
    "write_bundle",
]
