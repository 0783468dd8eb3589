"""The run submission API, ``/api/``: a team uploads runs and reads scores by script (docs/participant.md).

Built on django-ninja: typed request and response schemas, the OpenAPI description generated
from them (``/api/openapi.json``), and its throttling. A request authenticates with its team's
token only (``Authorization: Bearer TOKEN``, campaigns.models.TeamToken), never with the session
cookie: a browser does not attach the token to a request another site makes it send, so CSRF
protection is not needed here and the session-cookie pages keep theirs.

The API asks the web's questions, never copies of them: uploads go through
``campaigns.run_submissions.submit_run`` (the team page's form, limits and deadline), scores
through ``evaluation.score_access`` (the score pages' visibility). Every error is JSON with a
``detail`` message and a ``reason`` word (config/api_answers.py makes the answers made outside
ninja the same: a wrong method, a refused request); a refused run file also names the ``file``,
``line`` and ``problem``.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import Annotated

from django.conf import settings
from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from ninja import Field, File, Form, NinjaAPI, Schema, Status, UploadedFile
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError
from ninja.security import HttpBearer
from ninja.throttling import SimpleRateThrottle
from pydantic import WithJsonSchema

from campaigns.models import Campaign, Run, TeamToken
from campaigns.run_submissions import RunUploadForm, UploadRefused, submit_run
from evaluation import score_exports, scoring
from evaluation.score_access import ScoreAccess, scores_for_team

logger = logging.getLogger(__name__)


class TeamTokenAuth(HttpBearer):
    """``Authorization: Bearer TOKEN``: the request acts as the token's team (``request.auth``, a TeamToken)."""

    def authenticate(self, request: HttpRequest, token: str) -> TeamToken | None:
        return TeamToken.authenticate(token)


class TeamTokenThrottle(SimpleRateThrottle):
    """``settings.API_RATE`` requests per team token, counted per team: a rotated token goes on
    with its team's count. The rate is read on every request, so a changed setting holds at once."""

    scope = "api"

    def __init__(self) -> None:  # no rate parsed here: allow_request reads the setting
        pass

    def allow_request(self, request: HttpRequest) -> bool:
        self.rate = settings.API_RATE
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request)

    def get_cache_key(self, request: HttpRequest) -> str:
        return self.cache_format % {"scope": self.scope, "ident": f"team-{request.auth.team_id}"}


api = NinjaAPI(
    title="Assess: run submission API",
    version="1",
    description="Upload runs and read scores for your team, with your team's API token as a bearer token. "
                "Guide: docs/participant.md#the-api.",
    auth=TeamTokenAuth(),
    throttle=TeamTokenThrottle(),
    docs_url=None,  # ninja's docs page loads Swagger UI from a CDN, which the site's CSP refuses
    urls_namespace="api",
)


# --------------------------------------------------------------------------------------------
# Errors: JSON, with a message saying what to do


#: Every error's ``reason``, by status (config/api_answers.py gives the errors made outside ninja the same).
REASONS = {400: "invalid", 401: "unauthenticated", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
           413: "too_large", 429: "rate_limited", 500: "server_error"}


class Error(Schema):
    detail: str = Field(description="What went wrong and what to do, in a sentence.")
    reason: str = Field(description="A word for scripts: " + ", ".join(sorted({*REASONS.values(), "closed", "run_file"})))


def _error(request: HttpRequest, status: int, detail: str, *, reason: str | None = None, **fields) -> HttpResponse:
    body = {"detail": detail, "reason": reason or REASONS.get(status, "error"), **fields}
    return api.create_response(request, body, status=status)


@api.exception_handler(AuthenticationError)
def _unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    response = _error(request, 401, "no valid API token: send your team's token as 'Authorization: Bearer TOKEN' "
                                    "(a rotated or revoked token no longer works; see your team page)")
    response["WWW-Authenticate"] = "Bearer"
    return response


@api.exception_handler(Throttled)
def _throttled(request: HttpRequest, exc: Throttled) -> HttpResponse:
    return _error(request, 429, f"too many requests: your team's token may make {settings.API_RATE}; "
                                "wait as the Retry-After header says")


@api.exception_handler(PermissionDenied)
def _forbidden(request: HttpRequest, exc: PermissionDenied) -> HttpResponse:
    return _error(request, 403, str(exc) or "forbidden")


@api.exception_handler(Http404)
def _not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return _error(request, 404, str(exc) or "not found")


@api.exception_handler(ValidationError)
def _invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    errors: dict[str, list[str]] = {}
    for error in exc.errors:
        name = str(error.get("loc", ["request"])[-1])
        errors.setdefault(name, []).append(str(error.get("msg", "invalid")))
    listed = "; ".join(f"{name}: {', '.join(msgs)}" for name, msgs in errors.items())
    return _error(request, 400, f"the request has errors ({listed}). Nothing was stored.", errors=errors)


@api.exception_handler(MultiPartParserError)
@api.exception_handler(SuspiciousOperation)
def _malformed(request: HttpRequest, exc: Exception) -> HttpResponse:
    """A body Django refuses to parse (a broken multipart body, too many fields): as the pages answer it, 400."""
    return _error(request, 400, f"the request body cannot be read ({exc}). Nothing was stored.")


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    return _error(request, exc.status_code, str(exc))


@api.exception_handler(Exception)
def _unexpected(request: HttpRequest, exc: Exception) -> HttpResponse:
    logger.exception("API request %s failed", request.path)
    return _error(request, 500, "the server failed to answer; the administrators find the cause in its log")


@csrf_exempt  # no session here: a POST to a wrong address is a 404, not a CSRF failure
def unknown_path(request: HttpRequest, rest: str = "") -> HttpResponse:
    """Any other address under /api/ (config/urls.py): a JSON 404 naming the description."""
    return _error(request, 404, f"no API endpoint at {request.path}; the endpoints are listed at /api/openapi.json")


# --------------------------------------------------------------------------------------------
# The team


def _campaign_of(token: TeamToken, slug: str) -> Campaign:
    """The token's campaign, if it is ``slug``; 403 otherwise (a team's token reaches its own campaign only)."""
    campaign = token.team.campaign
    if campaign.slug != slug:
        raise PermissionDenied(f"this token is team {token.team.name!r}'s in campaign {campaign.slug!r}; "
                               f"it reaches no other campaign")
    return campaign


class RunOut(Schema):
    tag: str
    run_type: str
    priority: int
    lines: int
    uploaded: datetime


def _run_out(run: Run) -> dict:
    return {"tag": run.tag, "run_type": run.run_type, "priority": run.priority, "lines": run.line_count,
            "uploaded": run.uploaded}


class TeamOut(Schema):
    team: str
    campaign: str
    runs_per_team: int
    runs_due: datetime | None
    uploads_open: bool
    scores_released: bool
    runs: list[RunOut]


@api.get("/team", response={200: TeamOut, 400: Error, 401: Error, 429: Error}, summary="Your team, its runs and the upload rules")
def team(request: HttpRequest):
    token = request.auth
    campaign = token.team.campaign
    return {
        "team": token.team.name, "campaign": campaign.slug, "runs_per_team": campaign.runs_per_team,
        "runs_due": campaign.runs_due, "uploads_open": campaign.uploads_open(),
        "scores_released": scores_for_team(token.team).released,
        "runs": [_run_out(run) for run in token.team.runs.order_by("tag")],
    }


# --------------------------------------------------------------------------------------------
# Uploads


class SubmittedRun(RunOut):
    warnings: list[str]
    ir_metadata: dict | None


class Refused(Error):
    file: str | None = None
    line: int | None = None
    problem: str | None = None
    errors: dict[str, list[str]] | None = None
    retry_after: datetime | None = None


#: The form's optional fields as the OpenAPI description states them; the form checks them (its
#: messages, and only after the attempt is counted: campaigns.run_submissions).
PRIORITY_SCHEMA = WithJsonSchema({"type": "integer", "minimum": 1, "maximum": 99, "default": 1,
                                  "description": RunUploadForm.base_fields["priority"].help_text})
RUN_TYPE_SCHEMA = WithJsonSchema({"type": "string", "enum": Run.RunType.values, "default": Run.RunType.AUTOMATIC.value,
                                  "description": Run.RUN_TYPE_HELP})

REFUSED_STATUS = {UploadRefused.CLOSED: 403, UploadRefused.RATE: 429, UploadRefused.INVALID: 400, UploadRefused.RUN_FILE: 400}


@api.post(
    "/campaigns/{slug}/runs",
    response={201: SubmittedRun, 400: Refused, 401: Error, 403: Refused, 429: Refused},
    summary="Upload a run (multipart form data, the team page's fields)",
    description="The team page's form, checks, limits and deadline: `file` (a TREC run, gzip allowed), optional "
                "`ir_metadata` (an ir-metadata.yml), `description`, `priority` (1-99, default 1), `run_type` "
                "(automatic, manual, feedback; default automatic). A refused upload stores nothing and says why; a bad run file names the "
                "file, the line and the problem.",
)
def upload_run(request: HttpRequest, slug: str, file: File[UploadedFile], ir_metadata: File[UploadedFile | None] = None,
               description: Form[str] = "",
               priority: Annotated[int, PRIORITY_SCHEMA] = Form(1), run_type: Annotated[str, RUN_TYPE_SCHEMA] = Form(Run.RunType.AUTOMATIC.value)):
    campaign = _campaign_of(request.auth, slug)
    form = RunUploadForm(request.POST, request.FILES)  # the web form's own fields and checks
    try:
        submission = submit_run(campaign, request.auth.team, form)
    except UploadRefused as exc:
        response = _error(request, REFUSED_STATUS[exc.reason], exc.message, reason=exc.reason, file=exc.file,
                          line=exc.line, problem=exc.problem, errors=exc.errors or None,
                          retry_after=exc.retry_at.isoformat() if exc.retry_at else None)
        if exc.retry_at is not None:
            response["Retry-After"] = str(max(1, int((exc.retry_at - timezone.now()).total_seconds()) + 1))
        return response
    run = submission.run
    return Status(201, {**_run_out(run), "warnings": submission.warnings, "ir_metadata": run.ir_metadata})


# --------------------------------------------------------------------------------------------
# Scores


class Mean(Schema):
    measure: str
    rank: int
    run: str
    team: str
    run_type: str
    mean: float
    topics: int
    sampling_low: float | None
    sampling_high: float | None
    topics_low: float | None
    topics_high: float | None
    sampling_centre: float | None
    sampling_method: str


class Scores(Schema):
    campaign: str
    released: bool
    runs: list[str]
    means: list[Mean]


def _access(request: HttpRequest, slug: str) -> ScoreAccess:
    _campaign_of(request.auth, slug)
    return scores_for_team(request.auth.team)


@api.get("/campaigns/{slug}/scores", response={200: Scores, 400: Error, 401: Error, 403: Error, 429: Error},
         summary="The means of the runs your team sees: its own, every run once the scores are released")
def scores(request: HttpRequest, slug: str):
    access = _access(request, slug)
    means = []
    for rank, score in scoring.board_table(access.runs):
        means.append({
            "measure": score.measure, "rank": rank, "run": score.run.tag, "team": score.run.team.name,
            "run_type": score.run.run_type, "mean": score.value, "topics": score.topics, **score_exports.mean_intervals(score),
        })
    return {"campaign": access.campaign.slug, "released": access.released,
            "runs": list(access.runs.order_by("tag").values_list("tag", flat=True)), "means": means}


@api.get("/campaigns/{slug}/runs/{tag}/scores", response={200: dict, 400: Error, 401: Error, 403: Error, 404: Error, 429: Error},
         summary="One run's per-topic scores and means (the run page's JSON download)")
def run_scores(request: HttpRequest, slug: str, tag: str):
    run = _access(request, slug).run(tag)
    return json.loads(score_exports.run_scores_json(run))
