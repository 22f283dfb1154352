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


def test_the_options_give_a_cluster_and_refuse_bad_values() -> None:
    import click
    from click.testing import CliRunner

    from keypeg.cli.cluster import cluster_options
    from keypeg.cluster import Cluster

    @click.command()
    @cluster_options
    def probe(cluster: Cluster) -> None:
        click.echo(repr(cluster))

    runner = CliRunner()
    assert runner.invoke(probe, []).output.strip() == repr(Cluster())
    assert runner.invoke(probe, ["--workers", "3"]).output.strip() == repr(Cluster(3, None))
    assert runner.invoke(probe, ["--scheduler", " tcp://h:1 "]).output.strip() == repr(Cluster(None, "tcp://h:1"))
    for bad in (["--workers", "0"], ["--workers", "x"], ["--scheduler", ""], ["--workers", "2", "--scheduler", "a:1"]):
        assert runner.invoke(probe, bad).exit_code == 2, bad


@pytest.mark.parametrize("address", ["tcp://a b:1", "ex_ample.com:80", "tcp://bad/host:1"])
def test_an_address_whose_host_is_not_a_host_is_refused_without_a_lookup(address: str) -> None:
    with pytest.raises(KeypegError, match="not a Dask scheduler's address"), workers(scheduler=address):
        pass
