"""Alembic migrations of the ispbot database (run them with ``ispbot migrate``)."""
