"""Many sites in one data folder: `load` copies their bundles in and builds an HNSW
graph over each site's vectors; `serve` and `mcp` answer from it (docs/portal.md)."""
