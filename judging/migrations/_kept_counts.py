"""The migrations of the kept counts (0016 JudgedCount, 0017 SampledCount): count what exists, then
create the triggers that keep the count, written per database; drop them on reverse.

The leading underscore keeps Django's migration loader from taking this module for a migration.
"""

from django.db import migrations


def kept_count(what: str, *, count_existing: str, postgresql: list[str], postgresql_drop: list[str],
               sqlite: list[str], sqlite_drop: list[str]) -> migrations.RunPython:
    """The operation that counts ``what`` once (``count_existing``) and creates its triggers."""

    def create(apps, schema_editor) -> None:
        vendor = schema_editor.connection.vendor
        if vendor not in ("postgresql", "sqlite"):
            raise RuntimeError(f"{what} need triggers written for {vendor}: only PostgreSQL and SQLite have them")
        _run(schema_editor, [count_existing, *(postgresql if vendor == "postgresql" else sqlite)])

    def drop(apps, schema_editor) -> None:
        _run(schema_editor, postgresql_drop if schema_editor.connection.vendor == "postgresql" else sqlite_drop)

    return migrations.RunPython(create, drop)


def _run(schema_editor, statements: list[str]) -> None:
    for sql in statements:
        schema_editor.execute(sql, params=None)
