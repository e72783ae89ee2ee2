"""The web table (``popejoan serve``, docs/web.md): a page and a JSON API over the library.

Needs the ``web`` extra (Starlette and uvicorn), but for :mod:`.serve`, the ``serve`` command,
which the command line finds by its entry point (``pyproject.toml``) and which imports the
extra only when it runs; nothing else in the package imports the web table.
"""
