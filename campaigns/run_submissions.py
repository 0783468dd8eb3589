"""A team submits a run: the one way in for the team page's form and the API (evaluation/api.py).

The same checks, limits and deadline, in the same order, with the same messages, whichever way
the file comes: uploads open (the deadline, not archived), the team's hourly limit
(``RUN_UPLOADS_PER_HOUR``, every attempt counted before the form is read, under a lock), the
form's fields, the size limit (``RUN_UPLOAD_MAX_BYTES``), then the import's checks (the file,
the tag, the topics, the team's number of runs). Every refusal is an :class:`UploadRefused` saying what, and nothing is
stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django import forms
from django.conf import settings

from campaigns.models import Campaign, Run, Team, UploadAttempt
from campaigns.run_imports import RunSource, import_runs
from evaluation.measures.trec_files import TrecFormatError


class RunUploadForm(forms.Form):
    # An empty file goes to the reader, whose message names it, as for every other problem.
    file = forms.FileField(label="Run file", allow_empty_file=True,
                           help_text="6 columns: topic Q0 docno rank score tag; one run per file.")
    ir_metadata = forms.FileField(
        label="ir-metadata.yml", required=False, allow_empty_file=True,
        help_text="Optional: the run's ir_metadata (ir-metadata.org) as YAML, unless the run file has it "
                  "as a '# ir_metadata.start' header.")
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    priority = forms.IntegerField(min_value=1, max_value=99, initial=1, required=False,
                                  help_text="Pooling priority within your team: 1 is pooled first.")
    run_type = forms.ChoiceField(choices=Run.RunType.choices, initial=Run.RunType.AUTOMATIC, required=False,
                                 widget=forms.RadioSelect, label="Run type", help_text=Run.RUN_TYPE_HELP)


    def clean_priority(self) -> int:
        """1 unless given: the API documents the field as optional, like ``run_type`` and ``description``."""
        priority = self.cleaned_data["priority"]
        return self.fields["priority"].initial if priority is None else priority


class UploadRefused(ValueError):
    """Why a submission stored nothing. ``reason`` is one of the class's constants; ``field`` the
    form field at fault (None: the submission as a whole); ``retry_at`` when the team may upload
    again (``RATE``); ``errors`` the form's errors by field (``INVALID``); ``file``, ``line`` and
    ``problem`` the reader's (``RUN_FILE``; ``line`` None when no line is at fault)."""

    CLOSED = "closed"
    RATE = "rate_limited"
    INVALID = "invalid"
    RUN_FILE = "run_file"

    def __init__(self, message: str, *, reason: str, field: str | None = None, retry_at: datetime | None = None,
                 errors: dict | None = None, file: str | None = None, line: int | None = None,
                 problem: str | None = None) -> None:
        super().__init__(message)
        self.message, self.reason, self.field, self.retry_at = message, reason, field, retry_at
        self.errors, self.file, self.line, self.problem = errors or {}, file, line, problem


@dataclass
class Submission:
    run: Run
    warnings: list[str] = field(default_factory=list)


#: A participant cannot add topics: their run must use the campaign's topic identifiers.
PARTICIPANT_TOPIC_ADVICE = "a run may name only the campaign's topics, as its topics page lists them"


def submit_run(campaign: Campaign, team: Team, form: RunUploadForm, *, user=None) -> Submission:
    """Store the run of a bound ``form`` for ``team`` of ``campaign``, or raise UploadRefused.

    ``user`` is who uploads (None through the API: the team's token, not a person). Every
    attempt while uploads are open is counted before anything else is read, accepted or not
    (a form with errors too), and a team's parallel attempts are counted one at a time.
    """
    if not campaign.uploads_open():
        raise UploadRefused(f"{campaign.uploads_closed_reason()} Nothing was stored.", reason=UploadRefused.CLOSED)
    # Counted before the form is read, refused or not (UploadAttempt.claim locks the count).
    attempt, again = UploadAttempt.claim(team, settings.RUN_UPLOADS_PER_HOUR, user=user)
    if again is not None:
        raise UploadRefused(f"Your team has made {settings.RUN_UPLOADS_PER_HOUR} uploads in the last hour, the limit; "
                            f"upload again after {again:%H:%M} UTC. Nothing was stored.",
                            reason=UploadRefused.RATE, retry_at=again)
    if not form.is_valid():
        raise UploadRefused("The form has errors. Nothing was stored.", reason=UploadRefused.INVALID,
                            errors={name: [e["message"] for e in errs] for name, errs in form.errors.get_json_data().items()})
    upload, metadata = form.cleaned_data["file"], form.cleaned_data["ir_metadata"]
    try:
        if upload.size > settings.RUN_UPLOAD_MAX_BYTES:
            raise TrecFormatError(upload.name, None, f"the file is larger than the limit of {settings.RUN_UPLOAD_MAX_BYTES:,} bytes")
        runs, report = import_runs(
            campaign, [RunSource(upload, name=upload.name, metadata=metadata, metadata_name=metadata and metadata.name)],
            team_name=team.name, description=form.cleaned_data["description"], priority=form.cleaned_data["priority"],
            run_type=form.cleaned_data["run_type"] or Run.RunType.AUTOMATIC,
            uploaded_by=user, max_bytes=settings.RUN_UPLOAD_MAX_BYTES, max_runs_per_team=campaign.runs_per_team,
            unknown_topic_advice=PARTICIPANT_TOPIC_ADVICE,
        )
    except TrecFormatError as exc:  # names the file and the line
        raise UploadRefused(f"{exc}. Nothing was stored.", reason=UploadRefused.RUN_FILE, field="file",
                            file=exc.path, line=exc.line, problem=exc.problem) from None
    except ValueError as exc:
        raise UploadRefused(f"{exc}. Nothing was stored.", reason=UploadRefused.RUN_FILE, field="file",
                            file=upload.name, problem=str(exc)) from None
    UploadAttempt.objects.filter(pk=attempt.pk).update(accepted=True)
    return Submission(runs[0], report.warnings)
