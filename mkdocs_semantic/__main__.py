"""`python -m mkdocs_semantic ...`: the `mkdocs-semantic` command."""

from .cli import main

if __name__ == "__main__":
    main()
