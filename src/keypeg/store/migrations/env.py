"""Alembic environment: keypeg runs migrations itself, on the connection it passes in."""

from __future__ import annotations

from alembic import context

from keypeg.store.models import Base

connection = context.config.attributes.get("connection")
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
