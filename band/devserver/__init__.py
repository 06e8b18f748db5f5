"""A local Band platform: the Band wire protocol over HTTP and WebSocket, on SQLite.

Its parts, each importing only those below it: ``store`` (SQLite), ``contract`` (the wire:
bodies, queries, answers, OpenAPI) and ``access`` (the authorization model), ``socket`` (the
Phoenix channel and fan-out), ``api`` (the REST routes, each declared once) and ``web`` (the
room view), and ``app``, which builds the Starlette application from them.
"""
