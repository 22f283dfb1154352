"""Shared test settings: a hypothesis profile without deadlines (the first kernel call JIT-compiles)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "keypeg",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("keypeg")
