"""Configuration of the `semantic` plugin: every option, typed and documented."""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c

from ..constants import DEFAULT_TOP_K, SITE_QUERY_ENCODERS

MAX_THREADS = 64
"""More onnxruntime threads than this only slow a build down (or hang it)."""


class Number(c.BaseConfigOption[float]):
    """A float option that also takes whole numbers: `min_score: 0` means 0.0."""

    def run_validation(self, value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise c.ValidationError(f"Expected a number but received: {value!r}")
        return float(value)


class ModelConfig(base.Config):
    """The embedding model. Leave it unset to use the bundled all-MiniLM-L6-v2 (int8)."""

    path = c.Optional(c.Type(str))
    """Path to an ONNX model file (relative to `mkdocs.yml`). Default: the packaged model."""

    tokenizer = c.Optional(c.Type(str))
    """Path to the model's Hugging Face `tokenizer.json`. Required with `path`."""

    pooling = c.Choice(("mean", "cls"), default="mean")
    """How token vectors become one vector: `mean` over the attention mask, or `cls`."""

    normalize = c.Type(bool, default=True)
    """L2-normalise vectors (needed for cosine similarity with the inner-product metric)."""

    dim = c.Optional(c.Type(int))
    """Expected output dimension; the build fails if the model disagrees."""

    max_tokens = c.Type(int, default=256)
    """The model's maximum sequence length in tokens (special tokens included)."""

    query_prefix = c.Type(str, default="")
    """Text put before every query (e.g. `"query: "` for E5 models)."""

    document_prefix = c.Type(str, default="")
    """Text put before every chunk (e.g. `"passage: "` for E5 models)."""


class SemanticConfig(base.Config):
    """Options of `plugins: [semantic]`."""

    enabled = c.Type(bool, default=True)
    """Turn the plugin off without removing it (e.g. `enabled: !ENV [SEMANTIC, true]`)."""

    cache = c.Type(bool, default=True)
    """Keep chunk embeddings between builds so that unchanged text is never embedded twice."""

    cache_dir = c.Type(str, default=".cache/plugin/semantic")
    """Where the embedding cache lives, relative to `mkdocs.yml`."""

    bundle_dir = c.Type(str, default="semantic")
    """Folder inside `site_dir` that receives the search bundle."""

    heading_levels = c.Type(int, default=3)
    """Split pages into sections at headings `h1` to `h<heading_levels>` (1-6)."""

    max_tokens = c.Type(int, default=256)
    """Largest chunk in model tokens, heading context included; at most `model.max_tokens`."""

    min_tokens = c.Type(int, default=24)
    """Sections smaller than this merge with a neighbour."""

    exclude = c.ListOfItems(c.Type(str), default=[])
    """Glob patterns of source files (e.g. `blog/drafts/*.md`) to leave out of the index."""

    dtype = c.Choice(("i8", "f16", "f32"), default="i8")
    """How vectors are stored: `i8` (one global scale, smallest), `f16`, or `f32`."""

    vector_layout = c.Choice(("auto", "exact", "partitioned"), default="auto")
    """How readers scan the vectors: `exact` (every vector, every query), `partitioned`
    (k-means partitions: a query reads the few nearest, a filtered query all; i8 only) or
    `auto` (partitioned from 256 kB of vectors up: 683 chunks at dim 384; see
    docs/how-it-works.md)."""

    threads = c.Type(int, default=0)
    """CPU threads for embedding, 0 to MAX_THREADS; 0 means one per core."""

    batch_size = c.Type(int, default=32)
    """Chunks embedded per model call."""

    facets = c.ListOfItems(c.Type(str), default=[])
    """Page meta keys readers can filter on, besides `section` and `tags` (e.g. `[version]`)."""

    top_k = c.Type(int, default=DEFAULT_TOP_K)
    """Results a search returns unless the reader asks for another number (1 to MAX_TOP_K).
    Every reader applies it: the browser UIs, the Python searcher, the CLI, the HTTP
    service and the MCP server."""

    min_score = c.Optional(Number())
    """Drop vector matches below this cosine similarity (off by default; see the docs)."""

    query_encoder = c.Choice(SITE_QUERY_ENCODERS, default="static")
    """How readers embed a query: `static` (a token table fitted on the site at build time:
    no model download in the browser), `transformer` (the model itself, shipped in the
    site: about 37 MB for a reader's first semantic search) or `progressive` (both: the
    table answers a reader's first query; the browser then fetches the model in idle
    time, keeps it across visits and uses it for the queries after)."""

    model = c.SubConfig(ModelConfig)
    """The embedding model; see `ModelConfig`."""

    ui = c.Choice(("auto", "dialog", "none"), default="auto")
    """Browser search UI: `auto` takes over the `mkdocs`/`material`/`readthedocs` theme's search
    box, which then no longer downloads the theme's own index (else a dialog on `/` and
    Ctrl-K), `dialog` always uses the dialog, `none` ships only the client."""
