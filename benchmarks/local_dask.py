"""A two-worker Dask cluster on this machine, as the batch and match benchmarks measure it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def local_cluster() -> Iterator[str]:
    """Two single-threaded worker processes on 127.0.0.1; yields the scheduler's address.

    Dask's nannies start workers with MALLOC_TRIM_THRESHOLD_=65536; the figures in
    docs/performance.md were taken with it raised, as here."""
    import dask
    from distributed import LocalCluster

    dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": 1 << 30})
    with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None, processes=True) as cluster:
        yield str(cluster.scheduler_address)
