"""python -m keypeg.cli: the keypeg command."""

from keypeg.cli import main

main()
