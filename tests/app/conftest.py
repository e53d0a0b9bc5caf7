from tests.store.conftest import blank_database, database, database_url  # noqa: F401
