"""Indexing, free of MkDocs: HTML to chunks (`chunking`), chunks to vectors (the model,
cached by content hash in `cache`, started ahead of rendering in `early`), the static
query table's fit (`query_table`), and the bundle written (`indexer`); `static_site`
indexes any built HTML site."""
