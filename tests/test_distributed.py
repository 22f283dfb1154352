"""Trees and optimal searches split into tasks: the same trees and optima as in one process, here,
on a local Dask cluster, and on a cluster started by hand that loses a worker mid-run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import free_port
from keypeg import cluster as cluster_module
from keypeg.analysis.distributed import Traffic, distributed_optimum, distributed_tree
from keypeg.analysis.tree import build_tree
from keypeg.cli import cli
from keypeg.cluster import InProcess, Workers, workers
from keypeg.errors import KeypegError
from keypeg.rules import Rules
from keypeg.strategies import make_strategy
from keypeg.strategies.optimal import OptimalSolver
from keypeg.strategy_tree import tree_to_json

SMALL = [Rules(3, 4), Rules(4, 4), Rules(3, 5), Rules(3, 6, repeats=False)]
DETERMINISTIC = ["simple", "worst-case", "expected-size", "entropy", "most-parts"]


def same_tree(rules: Rules, name: str, place: Workers, split: int | None = None, **options: Any) -> Traffic:
    """The tree split into tasks is the tree of one process; what the tasks moved."""
    alone = build_tree(make_strategy(name, **options), rules)
    shared, traffic = distributed_tree(make_strategy(name, **options), rules, place, split=split)
    assert tree_to_json(shared) == tree_to_json(alone)  # every node, the conventions and the totals
    assert shared.stats == alone.stats
    assert sum(traffic.tasks.values()) >= 1 and traffic.sent > 0 and traffic.received > 0
    return traffic


@settings(max_examples=20)
@given(st.sampled_from(SMALL), st.sampled_from(DETERMINISTIC), st.integers(1, 300), st.sampled_from(["first", "last"]))
def test_a_tree_split_anywhere_is_the_tree_of_one_process(rules: Rules, name: str, split: int, tie: str) -> None:
    same_tree(rules, name, InProcess(), split, tie=tie)


@pytest.mark.parametrize("name", ["random", "careless"])
def test_a_strategy_that_draws_at_random_is_one_task(name: str) -> None:
    """Split as finely as asked (2 codes a task), a tree that draws at random is still grown whole: one
    task, where a deterministic strategy's is many."""
    assert same_tree(Rules(3, 5), name, InProcess(), 2, seed=11).tasks == {"grow": 1}
    assert same_tree(Rules(3, 5), "worst-case", InProcess(), 2, tie="random", seed=11).tasks == {"grow": 1}
    assert sum(same_tree(Rules(3, 5), "worst-case", InProcess(), 2, seed=11).tasks.values()) > 1


def test_a_tree_with_a_fixed_first_guess() -> None:
    rules = Rules(4, 5)
    same_tree(rules, "worst-case", InProcess(), 40, first=rules.parse("ABCD"))


GAMES = [Rules(3, 4), Rules(4, 4), Rules(3, 5, repeats=False), Rules(4, 5), Rules(4, 5, rows=5), Rules(4, 6, rows=5)]


@pytest.mark.parametrize(
    ("rules", "split"),
    [(rules, split) for rules in GAMES[:-1] for split in (1, 30, None)] + [(GAMES[-1], None)],
    ids=str,
)
def test_the_optimum_split_into_tasks_is_the_optimum(rules: Rules, split: int | None) -> None:
    alone = OptimalSolver(rules).tree()
    tree, nodes, traffic = distributed_optimum(rules, InProcess(), split=split)
    assert (tree.stats.total, tree.stats.max) == (alone.stats.total, alone.stats.max)
    assert nodes >= 0 and traffic.tasks["search"] >= 1
    assert tree_to_json(tree).count('"guess"') == tree.root.nodes()


def test_the_optimum_over_the_fitting_codes_and_a_chosen_secret_set() -> None:
    from keypeg.kernels import CodeSpace
    from keypeg.strategies.optimal import secret_set

    rules = Rules(4, 4)
    secrets = secret_set(CodeSpace.of(rules), "two-or-more-colours")
    alone = OptimalSolver(rules, pool="consistent", secrets=secrets).tree()
    tree, _, _ = distributed_optimum(rules, InProcess(), pool="consistent", secrets=secrets, split=10)
    assert tree.stats == alone.stats
    assert tree.conventions == alone.conventions


def test_too_few_rows_is_an_error() -> None:
    with pytest.raises(KeypegError, match="within 3 guesses"):
        distributed_optimum(Rules(4, 5, rows=3), InProcess())


# -- on a local Dask cluster ------------------------------------------------------------------


@pytest.fixture(scope="module")
def local() -> Iterator[Workers]:
    with workers(2) as place:
        yield place


@pytest.mark.parametrize("name", [*DETERMINISTIC, "random"])
def test_a_local_cluster_grows_the_same_tree(local: Workers, name: str) -> None:
    same_tree(Rules(4, 6), name, local, None, seed=5)


def test_a_local_cluster_finds_the_same_optima(local: Workers) -> None:
    for rules in GAMES[2:]:
        tree, _, traffic = distributed_optimum(rules, local)
        assert tree.stats == OptimalSolver(rules).tree().stats, rules
        assert traffic.tasks["search"] > 1


def test_the_peak_memory_of_each_worker(local: Workers) -> None:
    peaks = local.peak_memory()
    assert len(peaks) == 2 and all(2**20 < peak < 2**33 for peak in peaks.values())


def run(*args: str) -> tuple[int, str, str]:
    done = CliRunner().invoke(cli, list(args))
    return done.exit_code, done.stdout, done.stderr


def figures(output: str) -> dict[str, Any]:
    """A command's JSON output but the seconds and the sets searched."""
    data: dict[str, Any] = json.loads(output)
    data.pop("seconds")
    data.pop("nodes", None)
    data.get("conventions", {}).pop("nodes", None)
    return data


def test_the_commands_on_a_cluster_print_what_they_print_alone(local: Workers) -> None:
    address = local.client.scheduler.address  # type: ignore[attr-defined]
    args = ["analyze", "-p", "4", "-c", "5", "-s", "entropy", "--json"]
    code, alone, _ = run(*args)
    code_there, there, said = run(*args, "--scheduler", address)
    assert (code, code_there) == (0, 0)
    assert figures(there) == figures(alone)
    assert f"entropy on the cluster at {address}:" in said and "peak memory per worker" in said
    args = ["optimal", "-p", "3", "-c", "5", "--no-save", "--json"]
    assert figures(run(*args, "--scheduler", address)[1]) == figures(run(*args)[1])


@pytest.mark.parametrize(
    "options",
    [
        ["--workers", "0"],
        ["--workers", "-3"],
        ["--workers", "two"],
        ["--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"],
        ["--scheduler", ""],
        ["--scheduler", "nowhere"],
        ["--scheduler", "http://127.0.0.1:8786"],
        ["--scheduler", "tcp://127.0.0.1:1"],
    ],
)
def test_bad_cluster_options_are_one_line_errors(options: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster_module, "CONNECT_SECONDS", 1.0)
    for command in (["analyze", "-p", "3", "-c", "3"], ["optimal", "-p", "3", "-c", "3", "--no-save"]):
        code, out, said = run(*command, *options)
        assert code == 2 and out == "", said
        assert said.startswith("error: ") and said.count("\n") == 1, said


PROBE = """
import sys
from keypeg.cli import cli
try:
    cli(["analyze", "-p", "3", "-c", "4", "-s", "most-parts"], standalone_mode=False)
except SystemExit:
    pass
print(sorted(m for m in ("dask", "distributed", "tornado") if m in sys.modules), file=sys.stderr)
"""


def test_without_the_cluster_options_nothing_of_dask_is_imported() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "[]"


# -- a cluster started by hand, losing a worker -----------------------------------------------


def dask(*args: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    command = [str(Path(sys.executable).with_name("dask")), *args]
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.mark.slow
def test_a_cluster_that_loses_a_worker_mid_run_gives_the_same_tree(tmp_path: Path) -> None:
    from distributed import Client

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p), "NUMBA_NUM_THREADS": "1"}
    address = f"tcp://127.0.0.1:{free_port()}"
    port = address.rsplit(":", 1)[1]
    started = [dask("scheduler", "--host", "127.0.0.1", "--port", port, "--dashboard-address", ":0", env=env)]
    try:
        for _ in range(2):
            started.append(dask("worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard", env=env))
        with Client(address, timeout=30) as watcher:
            watcher.wait_for_workers(2, timeout=60)
            pids = watcher.run(os.getpid)
            args = ["analyze", "-p", "5", "-c", "8", "-s", "most-parts", "--json"]
            command = [sys.executable, "-m", "keypeg", *args, "--scheduler", address]
            run_ = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            killed = None
            deadline = time.monotonic() + 120
            while killed is None and run_.poll() is None and time.monotonic() < deadline:
                busy = [w for w, keys in watcher.processing().items() if keys]
                if busy:
                    killed = busy[0]
                    os.kill(pids[killed], signal.SIGKILL)
                time.sleep(0.02)
            out, said = run_.communicate(timeout=180)
        assert killed is not None, "the run ended before a worker could be killed"
        assert run_.returncode == 0, said
        assert figures(out) == figures(run(*args)[1])
    finally:
        for process in started:
            process.kill()
            process.wait(timeout=30)


@pytest.mark.slow
def test_ctrl_c_stops_the_cluster_with_one_line() -> None:
    """Ctrl-C in a terminal reaches every process of the group: the command says one line and exits
    130, its workers say nothing and are gone."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    command = [sys.executable, "-m", "keypeg", "analyze", "-p", "6", "-c", "8", "-s", "most-parts", "--workers", "2"]
    running = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    group = ["ps", "-o", "pid=", "-g", str(running.pid)]
    assert running.stderr is not None
    before = [running.stderr.readline()]  # perhaps a note that kernels compile first
    while not before[-1].startswith("working on 2 local worker processes"):  # up: Ctrl-C is heard from here on
        assert before[-1], before
        before.append(running.stderr.readline())
    os.killpg(running.pid, signal.SIGINT)
    said = running.stderr.read()  # the same reader as the lines before: nothing read twice or lost
    assert running.wait(timeout=60) == 130 and running.stdout is not None and running.stdout.read() == ""
    assert said == "interrupted: nothing was saved\n", said  # after the ready line, the one line it says
    deadline = time.monotonic() + 60
    while subprocess.run(group, capture_output=True, text=True).stdout.split():  # the workers end too
        assert time.monotonic() < deadline, subprocess.run(["ps", "-f", "-g", str(running.pid)], capture_output=True)
        time.sleep(0.2)
