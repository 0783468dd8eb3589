from __future__ import annotations

import secrets

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.utils import timezone
from django_htmx.http import HttpResponseClientRefresh

from campaigns.downloads import TEXT, attachment
from campaigns.models import Run
from judging import import_jobs, judgment_files, late_runs, pool_builds, pool_designs, pool_specs, pool_summary, pools, tasks, topic_relevance
from campaigns.collection_files import write_topics
from judging.forms import CampaignForm
from campaigns.imports import UnknownTopics
from campaigns.job_progress import LiveProgress
from judging.qrels import export_qrels
from campaigns.models import Campaign, ImportJob, Membership, Topic
from judging.models import Judgment, Pool, PoolBuild, PoolEntry
from campaigns.access import campaign_for_organizer, may_create_campaigns, organizes, takes_part

IMPORT_KINDS = [
    {"name": "topics", "title": "Topics", "help": "TREC <top> SGML (also Microblog's and CLEF's), XML <topic number=…>, TSV (id<TAB>title[<TAB>description[<TAB>narrative]]) or JSONL."},
    {
        "name": "documents",
        "title": "Documents",
        "help": 'TREC <DOC><DOCNO>…</DOCNO>…</DOC> (or <DOC id="…">), JSONL {"docno", "title", "text" | "html"} '
                '(also {"id", "contents"}), or TSV docno<TAB>[title<TAB>]text; gzip accepted.',
    },
    {
        "name": "runs",
        "title": "Runs",
        "help": "6-column TREC runs (topic Q0 docno rank score tag), one run per file; several files at once.",
        "multiple": True,
        "unknown_topics": True,
    },
    {
        "name": "qrels",
        "title": "Judgments (qrels)",
        "help": "4-column qrels, or 5-column sampled qrels (topic iter docno stratum rel; rel −1 = pooled, not sampled).",
        "unknown_topics": True,
    },
]


@login_required
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The campaigns the user organizes (every one for a superuser) or takes part in, with their role in each.

    Someone who only assesses (no campaign to organize or create, no team) lands on their topics instead.
    """
    user = request.user
    invited = Membership.objects.pending().filter(user=user).count()
    organized = set(Campaign.objects.organized_by(user).values_list("pk", flat=True))
    if (not organized and not invited and not user.teams.exists() and not may_create_campaigns(user)
            and user.assignments.exists()):
        return redirect("assess_home")
    roles = _roles_by_campaign(user)
    campaigns = (Campaign.objects.filter(pk__in=organized | set(roles))
                 .annotate(topic_count=Count("topics")))
    rows = [{"campaign": c, "organizes": c.pk in organized,
             "roles": ["organizer"] if c.pk in organized else sorted(roles[c.pk])} for c in campaigns]
    context = {"rows": rows, "may_create": may_create_campaigns(user), "invited": invited}
    return render(request, "judging/home.html", context)


def _roles_by_campaign(user) -> dict[int, set[str]]:
    """Campaign id → the user's roles in it without organizing it: assessor (an active membership,
    assigned topics or judgments made), participant (a team)."""
    roles: dict[int, set[str]] = {}
    assessed = {*Membership.objects.active().filter(user=user, role=Membership.Role.ASSESSOR)
                .values_list("campaign_id", flat=True),
                *user.assignments.values_list("campaign_id", flat=True),
                *Judgment.objects.filter(assessor=user).values_list("campaign_id", flat=True).distinct()}
    for campaign_id in assessed:
        roles.setdefault(campaign_id, set()).add("assessor")
    for campaign_id in user.teams.values_list("campaign_id", flat=True):
        roles.setdefault(campaign_id, set()).add("participant")
    return roles


@login_required
@require_http_methods(["GET", "POST"])
def campaign_new(request: HttpRequest) -> HttpResponse:
    """Create a campaign: name, address, scale, relevance threshold, depth and guidelines; its
    creator organizes it (``campaigns.access`` says who may create one)."""
    if not may_create_campaigns(request.user):
        raise PermissionDenied("only site administrators and the organizer group create campaigns")
    form = CampaignForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            campaign = form.save()
            campaign.organizers.add(request.user)
        messages.success(request, f"Created {campaign.name}. Next: import its topics, documents and runs, "
                                  f"and add its people.")
        return redirect(campaign)
    status = 400 if request.method == "POST" else 200
    return render(request, "judging/campaign_new.html", {"form": form}, status=status)


@login_required
@require_GET
def campaign(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organizer(request, slug)
    counts = {
        "topics": campaign.topics.count(),
        "documents": campaign.documents.count(),
        "runs": campaign.runs.count(),
        "teams": campaign.teams.count(),
        "pooled": PoolEntry.objects.filter(pool__campaign=campaign).count(),
        "judgments": campaign.judgments.count(),
        "notes": campaign.judgments.exclude(note="").filter(note_handled_at=None).count(),
    }
    runs = campaign.runs.select_related("team").order_by("tag")
    return render(request, "judging/campaign.html", {"campaign": campaign, "counts": counts, "runs": runs})


@login_required
@require_GET
def campaign_import(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organizer(request, slug)
    recent = campaign.import_jobs.all()[:RECENT_IMPORTS]
    return render(request, "judging/import.html", _import_context(campaign, recent=recent))


#: Import jobs listed on the import page, newest first.
RECENT_IMPORTS = 5


def _import_context(campaign: Campaign, **extra) -> dict:
    return {"campaign": campaign, "kinds": IMPORT_KINDS, "run_types": Run.RunType.choices, **extra}


@login_required
@require_POST
def campaign_import_kind(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    """Store the uploaded files and queue their import (``judging.import_jobs``); the job's page
    shows its progress, then its outcome."""
    campaign = campaign_for_organizer(request, slug)
    files = request.FILES.getlist("file")
    unknown = request.POST.get("unknown_topics", UnknownTopics.REJECT)
    error = _import_problem(kind, files, unknown)
    if error:
        context = _import_context(campaign, error=error)
        template = "judging/import.html#import-forms" if request.htmx else "judging/import.html"
        return render(request, template, context, status=400)
    options = {"unknown_topics": unknown, "only_needed": bool(request.POST.get("only_needed")),
               "team": request.POST.get("team", ""), "run_type": request.POST.get("run_type", "automatic"),
               "tag_from_filename": bool(request.POST.get("tag_from_filename"))}
    job = import_jobs.start_import(campaign, kind, files, options, request.user)
    import_jobs.queue(job)  # committed by start_import (requests are not atomic)
    job.refresh_from_db()
    failed = job.status == ImportJob.Status.FAILED
    if request.htmx or failed:
        template = "judging/import.html#import-forms" if request.htmx else "judging/import.html"
        return render(request, template, _import_context(campaign, job=job), status=400 if failed else 200)
    return redirect("campaign_import_job", slug=campaign.slug, import_job_id=job.pk)


def _import_problem(kind: str, files: list, unknown: str) -> str | None:
    limit = settings.IMPORT_MAX_BYTES
    if kind not in {k["name"] for k in IMPORT_KINDS}:
        return f"unknown kind of import {kind!r}"
    if not files:
        return "choose a file to import"
    if unknown not in UnknownTopics.CHOICES:
        return f"unknown choice {unknown!r} for topics not in the campaign"
    for upload in files:
        if upload.size > limit:
            return f"{upload.name}: the file is larger than the limit of {limit:,} bytes. Nothing was stored."
    return None


@login_required
@require_GET
def campaign_import_job(request: HttpRequest, slug: str, import_job_id: int) -> HttpResponse:
    """An import's progress (bytes and lines read), then its outcome; the htmx poll gets the job's partial."""
    campaign = campaign_for_organizer(request, slug)
    job = get_object_or_404(ImportJob, campaign=campaign, pk=import_job_id)
    if (reading := LiveProgress.of(job.pk)) is not None:  # importing in a thread of this process
        job.done, job.lines = reading
        job.updated = timezone.now()  # moving, whatever the row says
    template = "judging/import.html#import-job" if request.htmx else "judging/import.html"
    return render(request, template, _import_context(campaign, job=job))


def _campaign_for_topic_reader(request: HttpRequest, slug: str) -> Campaign:
    """Organizers and the campaign's participants (members of one of its teams) read all its topics;
    others are refused (assessors read the topics assigned to them as they judge)."""
    campaign = get_object_or_404(Campaign, slug=slug)
    user = request.user
    if organizes(user, campaign) or takes_part(user, campaign):
        return campaign
    raise PermissionDenied("only organizers and the campaign's participants read all its topics")


@login_required
@require_GET
def topics(request: HttpRequest, slug: str) -> HttpResponse:
    """The campaign's topics, with their descriptions and narratives, and the topic files to run systems on."""
    campaign = _campaign_for_topic_reader(request, slug)
    context = {"campaign": campaign, "topics": campaign.topics.all(), "is_organizer": organizes(request.user, campaign)}
    return render(request, "judging/topics.html", context)


# Topic file downloads: URL suffix → (write_topics format, content type)
TOPIC_FILES = {"txt": ("trec", TEXT), "jsonl": ("jsonl", "application/jsonl; charset=utf-8")}


@login_required
@require_GET
def topics_download(request: HttpRequest, slug: str, suffix: str) -> HttpResponse:
    campaign = _campaign_for_topic_reader(request, slug)
    if suffix not in TOPIC_FILES:
        raise Http404(f"no topic file format {suffix!r}")
    fmt, content_type = TOPIC_FILES[suffix]
    response = attachment(f"{campaign.slug}.topics.{suffix}", content_type)
    write_topics(response, campaign.topics.all(), fmt)
    return response


@login_required
@require_GET
def export_qrels_view(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organizer(request, slug)
    return qrels_download(request, campaign, back=campaign.get_absolute_url())


@login_required
@require_GET
def relevance(request: HttpRequest, slug: str) -> HttpResponse:
    """Relevant documents found per topic, and the estimate of how many each pool holds."""
    campaign = campaign_for_organizer(request, slug)
    rows = topic_relevance.by_topic(campaign)
    context = {"campaign": campaign, "rows": rows, "totals": topic_relevance.totals(campaign, rows)}
    return render(request, "judging/relevance.html", context)


@login_required
@require_POST
def relevance_topic(request: HttpRequest, slug: str, topic_id: int) -> HttpResponse:
    """Leave a topic out of the evaluation (``exclude=1``), or take it back in (``exclude=0``)."""
    campaign = campaign_for_organizer(request, slug)
    topic = get_object_or_404(Topic, campaign=campaign, pk=topic_id)
    exclude = request.POST.get("exclude") == "1"
    if topic.set_excluded(exclude):
        state = "left out of" if exclude else "back in"
        messages.success(request, f"Topic {topic.identifier} is {state} the evaluation; its scores and the means follow.")
    return redirect("relevance", slug=slug)


@login_required
@require_GET
def relevance_csv(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organizer(request, slug)
    response = attachment(f"{campaign.slug}.relevance.csv")
    topic_relevance.write_csv(campaign, topic_relevance.by_topic(campaign), response)
    return response


@login_required
@require_GET
def judgments_csv(request: HttpRequest, slug: str, table: str) -> HttpResponse:
    """The judging record, one table of ``judgment_files.TABLES``: judgments, history or adjudications."""
    campaign = campaign_for_organizer(request, slug)
    if table not in judgment_files.TABLES:
        raise Http404(f"no judgments table {table!r}")
    response = attachment(f"{campaign.slug}.{table}.csv")
    judgment_files.write_table(campaign, table, response)
    return response


def qrels_download(request: HttpRequest, campaign: Campaign, *, back: str) -> HttpResponse:
    """The campaign's official qrels as a file (``export_qrels``): 4 columns, ``?judged_only=1``
    without the unjudged rows, ``?sampled=1`` 5 columns; where they cannot be written (sampled
    qrels without strata), back to ``back`` with the reason. The caller checks access."""
    sampled = request.GET.get("sampled") == "1"
    response = attachment(f"{campaign.slug}.{'sampled-qrels' if sampled else 'qrels'}.txt", TEXT)
    try:
        export_qrels(campaign, response, sampled=sampled, judged_only=request.GET.get("judged_only") == "1")
    except ValueError as exc:
        messages.error(request, str(exc))
        return redirect(back)
    return response


# --------------------------------------------------------------------------------------------
# Pool building


class PoolForm(forms.Form):
    """The pool page's form; the checks of the design itself are ``pool_specs.design_from``'s."""

    method = forms.ChoiceField(
        choices=[
            ("depth", "Depth-k: judge every document in the top D of each pooled run"),
            ("stratified", "Stratified: strata of ranks, each sampled at its rate or from a budget"),
            ("hybrid", "Hybrid: the top k judged in full, samples of ranks k+1…D"),
        ]
    )
    depth = forms.IntegerField(min_value=1, label="Pool depth D")
    k = forms.IntegerField(min_value=1, required=False, label="Depth judged in full, k (hybrid)")
    strata = forms.CharField(
        required=False,
        label="Strata (rank ranges)",
        help_text="e.g. 1-10,11-30,31-100; hybrid: the sampled ranges below k (default: one range).",
    )
    rates = forms.CharField(required=False, label="Rates", help_text="One per sampled stratum, in [0, 1], e.g. 1,0.3,0.1.")
    budget = forms.IntegerField(
        min_value=1, required=False, label="…or budget per topic", help_text="Documents to judge per topic."
    )
    allocation = forms.ChoiceField(
        choices=[("", "—"), *((name, name) for name in pool_designs.ALLOCATIONS)],
        required=False,
        label="Budget allocation",
    )
    shares = forms.CharField(required=False, label="Shares (allocation shares)")
    prevalence = forms.CharField(required=False, label="Guessed prevalence (allocation neyman)")
    runs_per_team = forms.IntegerField(
        min_value=1, required=False, label="Runs per team", help_text="By the team's priority; empty: all runs."
    )
    team_runs = forms.CharField(required=False, label="Per-team exceptions", help_text="e.g. Baselines=5")
    seed = forms.IntegerField(min_value=0, max_value=2**63 - 1, label="Seed")
    minutes_per_judgment = forms.FloatField(min_value=0.01, label="Minutes per judgment", initial=3.0)
    replace = forms.BooleanField(required=False, label="Replace the existing pool (its judgments stay)")

    #: The fields each method reads; the page shows only the chosen method's (static/judging/pool.js),
    #: and the others' values, pre-filled for another method, are left out here.
    METHOD_FIELDS = {
        "depth": (),
        "stratified": ("strata", "rates", "budget", "allocation", "shares", "prevalence"),
        "hybrid": ("k", "strata", "rates", "budget", "allocation", "shares", "prevalence"),
    }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in set().union(*self.METHOD_FIELDS.values()):
            methods = [method for method, names in self.METHOD_FIELDS.items() if name in names]
            self.fields[name].widget.attrs["data-methods"] = " ".join(methods)

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        for name in set().union(*self.METHOD_FIELDS.values()) - set(self.METHOD_FIELDS[data["method"]]):
            data[name] = None
        try:
            self.spec = pool_specs.spec_from(data)
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None
        return data


def _pool_form_initial(pool: Pool | None) -> dict:
    """The stored pool's parameters as form values, or the TREC CDS 2015 design for a first build."""
    if pool is None or not pool.is_built:
        return {"method": "hybrid", "depth": 100, "k": 20, "rates": "0.2", "seed": secrets.randbelow(2**31),
                "minutes_per_judgment": pool_designs.MINUTES_PER_JUDGMENT}
    spec = pool_specs.PoolSpec.from_parameters(pool.parameters)
    design = spec.design
    sampled = slice(1, None) if design.method == "hybrid" else slice(None)

    def numbers(values):
        return ",".join(f"{v:g}" for v in values) if values is not None else ""

    return {
        "method": design.method,
        "depth": design.depth,
        "k": design.strata[0][1] if design.method == "hybrid" else None,
        "strata": ",".join(f"{lo}-{hi}" for lo, hi in design.strata[sampled]) if design.method != "depth" else "",
        "rates": numbers(design.rates[sampled]) if design.rates is not None and design.method != "depth" else "",
        "budget": design.budget,
        "allocation": design.allocation or "",
        "shares": numbers(design.shares),
        "prevalence": numbers(design.prevalence),
        "runs_per_team": spec.runs_per_team,
        "team_runs": ", ".join(f"{team}={n}" for team, n in spec.team_runs.items()),
        "seed": spec.seed,
        "minutes_per_judgment": spec.minutes_per_judgment,
    }


def _pool_page(request: HttpRequest, campaign: Campaign, form: PoolForm, *, preview=None, late_error=None,
               status: int = 200) -> HttpResponse:
    pool = Pool.objects.filter(campaign=campaign).first()
    context = {
        "campaign": campaign,
        "form": form,
        "preview": preview,
        "pool": pool,
        "summary": pool_summary.pool_summary(pool) if pool else [],
        "pool_runs": pool.pool_runs.select_related("run").order_by("generation", "run__tag") if pool else [],
        "late_runs": late_runs.late_runs(campaign),
        "late_error": late_error,
        "build": pool_builds.latest_build(campaign),
        "existing": pools.describe_existing(campaign),
    }
    return render(request, "judging/pool.html", context, status=status)


@login_required
@require_GET
def pool(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organizer(request, slug)
    pool = Pool.objects.filter(campaign=campaign).first()
    return _pool_page(request, campaign, PoolForm(initial=_pool_form_initial(pool)))


@login_required
@require_POST
def pool_preview(request: HttpRequest, slug: str) -> HttpResponse:
    """Pool sizes and assessor-hours for the form's design; reads only, so it is safe to repeat."""
    campaign = campaign_for_organizer(request, slug)
    form = PoolForm(request.POST)
    preview = None
    if form.is_valid():
        try:
            preview = pools.preview(campaign, form.spec)
        except ValueError as exc:
            form.add_error(None, str(exc))
    if request.htmx:  # htmx swaps 2xx responses only: the form fragment carries its own errors
        context = {"campaign": campaign, "form": form, "preview": preview,
                   "existing": pools.describe_existing(campaign)}
        return render(request, "judging/pool.html#pool-form", context)
    return _pool_page(request, campaign, form, preview=preview, status=200 if preview else 400)


@login_required
@require_POST
def pool_build(request: HttpRequest, slug: str) -> HttpResponse:
    """Queue a build of the form's design; the page then follows its progress."""
    campaign = campaign_for_organizer(request, slug)
    form = PoolForm(request.POST)
    if form.is_valid():
        try:
            _check_can_start(campaign)
            pools.check_replace(campaign, replace=form.cleaned_data["replace"])
            pools.choose_runs(campaign, form.spec)  # no runs, unknown team: say so now, not in the background
        except pools.PoolExists as exc:
            form.add_error("replace", str(exc))
        except ValueError as exc:
            form.add_error(None, str(exc))
    if not form.is_valid():
        if request.htmx:
            return render(request, "judging/pool.html#pool-form", {"campaign": campaign, "form": form})
        return _pool_page(request, campaign, form, status=400)
    build = PoolBuild.objects.create(
        campaign=campaign,
        action=PoolBuild.Action.BUILD,
        parameters=form.spec.as_parameters(),
        replace=form.cleaned_data["replace"],
        requested_by=request.user,
    )
    tasks.build_pool.delay_on_commit(build.pk)
    return _build_started(request, campaign)


@login_required
@require_POST
def pool_add_late_runs(request: HttpRequest, slug: str) -> HttpResponse:
    """Queue the addition of runs imported since the build to the stored pool."""
    campaign = campaign_for_organizer(request, slug)
    try:
        late_runs.built_pool(campaign)
        if not late_runs.late_runs(campaign):
            raise ValueError("there are no late runs: every run of the campaign was already considered for the pool")
        _check_can_start(campaign)
    except ValueError as exc:
        if request.htmx:
            context = {"campaign": campaign, "late_runs": late_runs.late_runs(campaign), "late_error": str(exc),
                       "pool": Pool.objects.filter(campaign=campaign).first()}
            return render(request, "judging/pool.html#late-runs", context)
        messages.error(request, str(exc))
        return redirect("pool", slug=campaign.slug)
    build = PoolBuild.objects.create(campaign=campaign, action=PoolBuild.Action.ADD_LATE_RUNS, requested_by=request.user)
    tasks.build_pool.delay_on_commit(build.pk)
    return _build_started(request, campaign)


def _check_can_start(campaign: Campaign) -> None:
    active = pool_builds.active_build(campaign)
    if active is not None:
        raise ValueError(f"a build of this pool is already under way (requested {active.created:%Y-%m-%d %H:%M} UTC)")


def _build_started(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    """Show the page again: it follows a running build, or shows the new pool if it is already done."""
    if request.htmx:
        return HttpResponseClientRefresh()
    return redirect("pool", slug=campaign.slug)


@login_required
@require_GET
def pool_status(request: HttpRequest, slug: str) -> HttpResponse:
    """The progress fragment, polled while a build runs; reloads the page once the build ends."""
    campaign = campaign_for_organizer(request, slug)
    if not request.htmx:
        return redirect("pool", slug=campaign.slug)
    build = pool_builds.latest_build(campaign)
    if request.GET.get("build") and (build is None or not build.is_active):
        return HttpResponseClientRefresh()  # the build the page followed has ended: show its result
    return render(request, "judging/pool.html#pool-status", {"campaign": campaign, "build": build})
