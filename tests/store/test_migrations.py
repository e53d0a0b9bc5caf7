from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from bot import cli
from bot.commands.migrate import run as migrate_command
from bot.store import DatabaseAheadError, DatabaseBehindError, migrate
from bot.store.models import Base
from bot.store.urls import async_url
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from tests.store.dbtools import ENV_URL, ScratchDatabase, postgresql_url, separate_database

TABLES = {
    "chats", "links", "link_attempts", "processed_updates", "inbox", "outbox", "invites", "outage_watches",
    "trust_unblocks", "handoffs", "desk_jobs", "contacts", "contact_events",
    "contested_bills",
}

# A revision newer than this code's head, as a later version of ispbot would ship.
NEXT_REVISION = '''
from alembic import op

revision = "9999"
down_revision = "{head}"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_test_outbox_customer", "outbox", ["customer"])


def downgrade() -> None:
    op.drop_index("ix_test_outbox_customer", "outbox")
'''


async def test_upgrade_brings_a_fresh_database_to_head(
    blank_database: ScratchDatabase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # no alembic.ini here: the package finds its own scripts
    assert await migrate.current_revision(blank_database) is None

    await migrate.upgrade(blank_database)
    await migrate.upgrade(blank_database)  # a second run is a no-op

    assert await migrate.current_revision(blank_database) == migrate.head_revision()
    await migrate.ensure_current(blank_database)
    async with blank_database.engine.connect() as connection:
        tables = await connection.run_sync(lambda sync: set(inspect(sync).get_table_names()))
    assert tables >= TABLES


async def test_an_open_handoffs_forum_topic_becomes_its_desk_reference(blank_database: ScratchDatabase) -> None:
    """Upgraded while a conversation waits in its topic, the staff go on answering in that topic."""
    await migrate.upgrade(blank_database, "0009")
    async with blank_database.engine.begin() as connection:
        await connection.execute(text(
            "INSERT INTO handoffs (chat_id, ticket_id, customer_code, topic_id, opened_at) "
            "VALUES (42, 7, 5001, 1234, '2026-11-27 06:00:00'), (43, 8, 5001, NULL, '2026-11-27 06:00:00')",
        ))
    await migrate.upgrade(blank_database)
    async with blank_database.engine.connect() as connection:
        rows = (await connection.execute(text("SELECT chat_id, desk_ref FROM handoffs ORDER BY chat_id"))).all()
    assert [tuple(row) for row in rows] == [(42, "1234"), (43, None)]


async def test_processes_started_together_migrate_one_after_the_other() -> None:
    """Each container of a scaled deployment runs ``ispbot migrate`` as it starts: on PostgreSQL they
    take turns (the later ones find the schema current) instead of failing on each other's tables."""
    base = postgresql_url()
    if base is None:
        pytest.skip(f"several processes share one PostgreSQL: set {ENV_URL}")
    async with separate_database(base) as url:
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("ISPBOT_")}, "ISPBOT_DATABASE_URL": url}
        runs = await asyncio.gather(*(
            asyncio.to_thread(subprocess.run, [sys.executable, "-m", "bot.cli", "migrate"], env=env,
                              capture_output=True, text=True, timeout=120, check=False)
            for _ in range(4)
        ))
        assert [run.returncode for run in runs] == [0] * 4, [run.stderr[-600:] for run in runs]
        assert await migrate.current_revision(url) == migrate.head_revision()


async def test_migrated_schema_matches_the_models(database: ScratchDatabase) -> None:
    def differences(connection: Connection) -> list[object]:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return [diff for diff in compare_metadata(context, Base.metadata) if diff[0] != "remove_table"]

    async with database.engine.connect() as connection:
        assert await connection.run_sync(differences) == []


async def test_ensure_current_refuses_an_unmigrated_database(blank_database: ScratchDatabase) -> None:
    with pytest.raises(DatabaseBehindError, match="run `ispbot migrate`"):
        await migrate.ensure_current(blank_database)


async def test_ensure_current_refuses_a_database_behind_and_upgrade_catches_up(
    database: ScratchDatabase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    newer = tmp_path / "migrations"
    shutil.copytree(migrate.MIGRATIONS, newer, ignore=shutil.ignore_patterns("__pycache__"))
    head = migrate.head_revision()
    (newer / "versions" / "9999_test.py").write_text(NEXT_REVISION.replace("{head}", head))
    monkeypatch.setattr(migrate, "MIGRATIONS", newer)

    behind = rf"revision {head} but this ispbot needs 9999: run `ispbot migrate`"
    with pytest.raises(DatabaseBehindError, match=behind):
        await migrate.ensure_current(database)
    await migrate.upgrade(database)
    await migrate.ensure_current(database)
    assert await migrate.current_revision(database) == "9999"


async def test_ensure_current_refuses_a_database_from_a_newer_version(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        await session.execute(text("UPDATE alembic_version SET version_num = 'fffffff'"))
    with pytest.raises(DatabaseAheadError, match="newer version"):
        await migrate.ensure_current(database)


async def test_upgrade_accepts_a_url_and_a_plain_sqlite_url(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'plain.sqlite3'}"
    await migrate.upgrade(url)
    await migrate.ensure_current(url)


def test_plain_urls_get_the_async_driver() -> None:
    assert async_url("sqlite:///x.sqlite3").drivername == "sqlite+aiosqlite"
    assert async_url("postgresql://u@h/db").drivername == "postgresql+asyncpg"
    assert async_url("postgres://u@h/db").drivername == "postgresql+asyncpg"
    assert async_url("postgresql+asyncpg://u@h/db").drivername == "postgresql+asyncpg"
    with pytest.raises(ValueError, match="unsupported"):
        async_url("mysql://u@h/db")


def test_migrate_command_checks_then_upgrades(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def command(*, check: bool) -> int:
        url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
        return migrate_command(argparse.Namespace(database_url=url, check=check))

    assert command(check=True) == 1
    assert "run `ispbot migrate`" in capsys.readouterr().err
    assert command(check=False) == 0
    assert command(check=True) == 0
    assert "(current)" in capsys.readouterr().out


def test_migrate_reads_the_database_from_dotenv_in_the_working_folder_under_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ISPBOT_DATABASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("ISPBOT_DATABASE_URL=sqlite:///from-dotenv.sqlite3\n")
    assert cli.main(["migrate"]) == 0
    assert (tmp_path / "from-dotenv.sqlite3").exists() and not (tmp_path / "ispbot.sqlite3").exists()
    monkeypatch.setenv("ISPBOT_DATABASE_URL", "sqlite:///from-environment.sqlite3")
    assert cli.main(["migrate"]) == 0
    assert (tmp_path / "from-environment.sqlite3").exists()
    assert "from-environment.sqlite3: upgraded to revision" in capsys.readouterr().out


def test_migrate_names_a_wrong_database_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("ISPBOT_DATABASE_URL=mysql://u@h/db\n")
    assert cli.main(["migrate"]) == 2
    assert capsys.readouterr().err.startswith("ispbot migrate: configuration: ISPBOT_DATABASE_URL: not a database URL")
    assert list(tmp_path.iterdir()) == [tmp_path / ".env"]  # nothing created
