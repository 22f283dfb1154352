"""keypeg's application layer: each use case written once, for every face (the terminal, the web pages,
the JSON API).

A use case loads what it acts on from the store, asks the play layer to act, and saves: it takes the
store and plain values (ids, codes, names), never a web request or a command line's options, and raises
the typed errors of :mod:`keypeg.errors` (not found, forbidden, conflict, refused, unavailable, too
costly), which each face maps in one table. The faces import this package and nothing below it for game
flow; the store is reached only through it.

Importing this package loads nothing: each use case's module loads what it needs.
"""
