"""What every import and export command shares: the --campaign option, the output file and error reporting."""

from __future__ import annotations

from contextlib import contextmanager

from django.conf import settings
from django.core.management.base import CommandError

from campaigns.imports import UnknownTopics
from campaigns.models import Campaign


def add_campaign_argument(parser) -> None:
    parser.add_argument("--campaign", required=True, metavar="SLUG", help="The campaign's slug.")


def add_unknown_topics_argument(parser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--skip-unknown-topics",
        dest="unknown_topics",
        action="store_const",
        const=UnknownTopics.SKIP,
        help="Skip lines for topics the campaign does not have, with a warning (default: reject the file).",
    )
    group.add_argument(
        "--create-topics",
        dest="unknown_topics",
        action="store_const",
        const=UnknownTopics.CREATE,
        help="Create topics the campaign does not have, with no text.",
    )
    parser.set_defaults(unknown_topics=UnknownTopics.REJECT)


def add_source_arguments(parser, *, nargs: str = "?") -> None:
    """A file argument, or ``--irds DATASET_ID`` instead (``campaigns.irds``)."""
    parser.add_argument("file", nargs=nargs)
    parser.add_argument(
        "--irds",
        metavar="DATASET_ID",
        help="Read from this ir_datasets dataset instead of a file (needs the ir_datasets package; "
        "downloads into IR_DATASETS_HOME on first use).",
    )


def irds_or_file(options) -> str | None:
    """The --irds dataset id, or None for a file; CommandError unless exactly one was given."""
    files = options["file"] if isinstance(options["file"], list) else [options["file"]] if options["file"] else []
    if options["irds"] and files:
        raise CommandError("give either a file or --irds DATASET_ID, not both")
    if not options["irds"] and not files:
        raise CommandError("give a file, or --irds DATASET_ID to read an ir_datasets dataset")
    return options["irds"]


def open_output(path: str, *, newline: str | None = None):
    """Open ``path`` to write text (UTF-8), or stop with a one-line error naming it."""
    try:
        return open(path, "w", encoding="utf-8", newline=newline)
    except OSError as exc:
        raise CommandError(f"cannot write {path}: {exc.strerror or exc}") from None


def campaign_from(options) -> Campaign:
    try:
        return Campaign.objects.get(slug=options["campaign"])
    except Campaign.DoesNotExist:
        raise CommandError(f"no campaign with slug {options['campaign']!r} (create it with create_campaign)") from None


def max_bytes() -> int:
    return settings.IMPORT_MAX_BYTES


@contextmanager
def reported_errors():
    """Turn a bad file or a bad value into a one-line error and a non-zero exit."""
    try:
        yield
    except ValueError as exc:  # TrecFormatError is a ValueError
        raise CommandError(f"{exc}; nothing was stored" if _is_import_error(exc) else str(exc)) from None


def _is_import_error(exc: ValueError) -> bool:
    from evaluation.measures.trec_files import TrecFormatError

    return isinstance(exc, TrecFormatError)
