"""Jobs over many deals: the worker pool, the SQLite files they fill (resumable, one row per
finished deal), a Dask cluster, and the batch and match runners (docs/bots.md)."""
