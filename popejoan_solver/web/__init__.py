"""The web table (``popejoan serve``, docs/web.md): a page and a JSON API over the library.

Needs the ``web`` extra (Starlette and uvicorn); nothing else in the package imports it.
"""
