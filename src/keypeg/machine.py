"""What this machine has and is doing now: memory, cores, load, and the budgets read from the
environment. Standard library only, so the kernels may ask too.

Every reading of the machine (``/proc/meminfo``, the cgroup's limit, the CPU affinity, the runnable
threads, the load average) and every wait between readings is here; the policy numbers they are
compared with are :mod:`keypeg.limits`'.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from keypeg.limits import MEMORY_LIMIT_ENV, MEMORY_SHARE, TIME_LIMIT, TIME_LIMIT_ENV, parse_bytes

__all__ = [
    "available_memory",
    "memory_budget",
    "time_budget",
    "cores",
    "busy_cores",
    "idle_cores",
    "LOADAVG",
    "TASKS",
    "CGROUP",
    "MEMINFO",
]

MEMINFO = Path("/proc/meminfo")
"""Linux's memory figures (``MemAvailable``)."""
CGROUP = Path("/sys/fs/cgroup")
"""The process's cgroup (v2), whose ``memory.max`` and ``memory.current`` bound what it may still take."""
LOADAVG = Path("/proc/loadavg")
"""Linux's load figures; the fourth field counts the threads runnable now (``running/all``)."""
TASKS = Path("/proc/self/task")
"""This process's threads, each with a ``stat`` file whose third field is its state (``R``: runnable)."""


def _meminfo_available() -> int | None:
    try:
        with MEMINFO.open(encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (OSError, ValueError, AttributeError):
        return None


def _cgroup_room() -> int | None:
    """What the process's cgroup (v2) still allows, if it sets a limit."""
    try:
        limit = (CGROUP / "memory.max").read_text().strip()
        if limit == "max":
            return None
        used = int((CGROUP / "memory.current").read_text().strip())
        return max(int(limit) - used, 0)
    except (OSError, ValueError):
        return None


def available_memory() -> int | None:
    """Bytes of memory available now (the least of ``MemAvailable`` and the cgroup's room), if known."""
    known = [m for m in (_meminfo_available(), _cgroup_room()) if m is not None]
    return min(known) if known else None


def memory_budget() -> int | None:
    """The most memory one piece of work may take unforced: ``$KEYPEG_MEMORY_LIMIT`` if set, else
    :data:`~keypeg.limits.MEMORY_SHARE` of :func:`available_memory` (``None``: unknown, not guarded)."""
    override = os.environ.get(MEMORY_LIMIT_ENV, "").strip()
    if override:
        return parse_bytes(override)
    available = available_memory()
    return None if available is None else int(available * MEMORY_SHARE)


def time_budget() -> float:
    """The most seconds one piece of work may take unforced: ``$KEYPEG_TIME_LIMIT`` or
    :data:`~keypeg.limits.TIME_LIMIT`."""
    override = os.environ.get(TIME_LIMIT_ENV, "").strip()
    if override:
        try:
            seconds = float(override)
        except ValueError:
            raise ValueError(f"{TIME_LIMIT_ENV} must be a number of seconds, not {override[:40]!r}") from None
        if not seconds >= 0:
            raise ValueError(f"{TIME_LIMIT_ENV} must be a number of seconds, not {override[:40]!r}")
        return seconds
    return TIME_LIMIT


def cores() -> int:
    """The processor cores this process may run on (the kernels' threads)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _own_runnable() -> int:
    """This process's runnable threads (the caller among them; 1 if they cannot be read)."""
    count = 0
    try:
        for stat in TASKS.glob("*/stat"):
            try:
                text = stat.read_text()
            except OSError:  # the thread ended meanwhile
                continue
            count += text[text.rfind(")") + 2 : text.rfind(")") + 3] == "R"
    except OSError:
        return 1
    return max(count, 1)


def busy_cores(readings: int = 5) -> float:
    """The cores other work keeps busy now: the fewest runnable threads of other processes in a few
    readings of :data:`LOADAVG` a millisecond apart (a thread that wants a core is runnable in all of
    them, a passing one is not), else the one-minute load average (which also remembers the last
    minute's work), else 0. This process's own threads (:data:`TASKS`) are not other work: numba's
    worker threads, spinning for a while after a parallel kernel, would otherwise count as busy."""
    try:
        seen = []
        for _ in range(readings):
            seen.append(int(LOADAVG.read_text().split()[3].split("/")[0]) - _own_runnable())
            time.sleep(0.001)
        return float(max(min(seen), 0))
    except (OSError, ValueError, IndexError):
        try:
            return os.getloadavg()[0]
        except (AttributeError, OSError):  # no load average on this system
            return 0.0


def idle_cores() -> float:
    """The cores this process may use that other work leaves idle now: :func:`cores` less
    :func:`busy_cores` (negative when the machine is oversubscribed)."""
    return cores() - busy_cores()
