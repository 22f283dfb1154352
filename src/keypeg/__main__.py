"""python -m keypeg: the keypeg command."""

from keypeg.cli import main

main()
