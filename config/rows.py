"""Model instances from the rows of written-out SQL, as the ORM would build them.

The judging page's hot path (the request's user, the assessor's queue, the next document)
writes its few statements out, because the ORM spends longer compiling them and resolving
how to build each row than the database takes to run them. These two functions keep the
instances the ORM's own: :func:`columns` names a model's concrete columns for a SELECT, and
:func:`instance` turns the next values of such a row into the model, each value passed through
the converters the ORM applies to that column. What a model's columns need (names, converters)
is worked out once per model and database connection alias, not per row.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from django.db import connections


def columns(db, alias: str, model) -> str:
    """``alias."col", …`` for each concrete field of ``model``, in the order :func:`instance` reads them."""
    return ", ".join(f"{alias}.{name}" for name in _layout(db.alias, db.vendor, model)[0])


def instance(db, model, values: Iterator):
    """The ``model`` instance built from the next values of ``values`` (a row read by :func:`columns`)."""
    _, names, converters = _layout(db.alias, db.vendor, model)
    converted = []
    for convert, value in zip(converters, values):
        for function, column in convert:
            value = function(value, column, db)
        converted.append(value)
    return model.from_db(db.alias, names, converted)


@cache
def _layout(alias: str, vendor: str, model) -> tuple[list[str], list[str], list[list]]:
    """Per model and connection: the quoted column names, the field names, each field's converters."""
    db = connections[alias]
    fields = model._meta.concrete_fields
    quoted = [db.ops.quote_name(f.column) for f in fields]
    converters = []
    for field in fields:
        column = field.get_col(model._meta.db_table)
        converters.append([(f, column) for f in db.ops.get_db_converters(column) + column.get_db_converters(db)])
    return quoted, [f.attname for f in fields], converters
