"""Jobs over many deals (docs/bots.md): the worker pool (:mod:`.pool`), the SQLite files they
fill, resumable with one row per finished task (:mod:`.store`), a Dask cluster
(:mod:`.cluster`), SIGTERM's clean stop (:mod:`.stopping`), and the two runners on them: the
batch of solved deals (:mod:`.batch`) and the duplicate match between bots (:mod:`.match`)."""
