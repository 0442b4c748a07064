"""`python -m mkdocs_semantic ...`: the `mkdocs-semantic` command."""

from .apps.cli import main

if __name__ == "__main__":
    main()
