"""keypeg.cluster: the same results here and on a local Dask cluster."""

from __future__ import annotations

import pytest

from keypeg.cluster import InProcess, workers
from keypeg.errors import KeypegError


def square(n: int) -> int:
    return n * n


def test_in_process_runs_in_order_without_importing_dask() -> None:
    with workers() as here:
        assert isinstance(here, InProcess)
        assert list(here.run(square, [3, 1, 2])) == [(0, 9), (1, 1), (2, 4)]


@pytest.mark.parametrize(("count", "scheduler"), [(0, None), (2, "tcp://127.0.0.1:1")])
def test_bad_choices_are_one_line_errors(count: int, scheduler: str | None) -> None:
    with pytest.raises(KeypegError), workers(count, scheduler):
        pass


@pytest.mark.slow
def test_a_local_cluster_gives_every_result_once() -> None:
    with workers(2) as cluster:
        assert cluster.count == 2
        results = dict(cluster.run(square, range(20)))
    assert results == {n: n * n for n in range(20)}
