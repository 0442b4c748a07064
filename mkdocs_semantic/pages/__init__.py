"""Built pages and the browser client: the client's files copied into a site, the tags
that wire it into every page (`theme`) and the hints they carry (`hints`). The MkDocs
plugin and `mkdocs-semantic index` share them."""
