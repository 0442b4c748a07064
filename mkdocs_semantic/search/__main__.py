"""`python -m mkdocs_semantic.search SITE_DIR QUERY...`: print the top sections."""

from .searcher import main

raise SystemExit(main())
