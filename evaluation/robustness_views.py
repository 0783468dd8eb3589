"""The organizer's robustness reports: ask for one, follow its progress, read its plots and each run's
interval, download its CSVs;
the pool bias test: leave each team out of the pool; and the assessor variation: the ranking with
other assessors' judgments."""

from __future__ import annotations

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HttpResponseClientRefresh

from campaigns.downloads import TEXT, attachment
from evaluation import robustness_reports, scoring, stored_pages, tasks
from evaluation.models import RobustnessReport
from evaluation.robustness_plots import interval_bars, scatter_plot, statistic_plot
from campaigns.access import campaign_for_organizer
from campaigns.models import Campaign


class RobustnessForm(forms.Form):
    measures = forms.MultipleChoiceField(
        choices=[(m, m) for m in robustness_reports.OFFERED], initial=list(robustness_reports.DEFAULT_MEASURES),
        widget=forms.CheckboxSelectMultiple,
    )
    reductions = forms.CharField(
        initial=robustness_reports.DEFAULT_REDUCTIONS, max_length=500,
        help_text="random:p (p % of each topic's judgments), depth:k (the runs' depth-k pool), "
                  "hybrid:k (depth-k pool plus as many random documents)",
    )
    draws = forms.IntegerField(min_value=1, max_value=robustness_reports.MAX_DRAWS, initial=10)
    seed = forms.IntegerField(initial=0, min_value=0, max_value=2**63 - 1)

    def clean_reductions(self):
        try:
            return robustness_reports.parse_reductions(self.cleaned_data["reductions"])
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None


def _report_for_organizer(request: HttpRequest, slug: str, pk: int) -> RobustnessReport:
    """A campaign's report, for its organizers only (404 for another campaign's report)."""
    campaign = campaign_for_organizer(request, slug)
    return get_object_or_404(RobustnessReport.objects.select_related("campaign"), pk=pk, campaign=campaign)


def _list_page(request: HttpRequest, campaign: Campaign, form: RobustnessForm, *, status: int = 200) -> HttpResponse:
    reports = campaign.robustness_reports.all()[:20]
    return render(request, "evaluation/robustness.html", {"campaign": campaign, "form": form, "reports": reports},
                  status=status)


@login_required
@require_http_methods(["GET", "POST"])
def robustness_list(request: HttpRequest, slug: str) -> HttpResponse:
    """The form for a new report and the campaign's earlier reports; POST queues a report."""
    campaign = campaign_for_organizer(request, slug)
    if request.method == "GET":
        return _list_page(request, campaign, RobustnessForm())
    form = RobustnessForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            report = robustness_reports.start_report(campaign, data["measures"], data["reductions"], data["draws"],
                                             data["seed"], user=request.user)
        except ValueError as exc:
            form.add_error(None, str(exc))
    if not form.is_valid():
        return _list_page(request, campaign, form, status=400)
    tasks.run_robustness_report.delay_on_commit(report.pk)
    return redirect("robustness_report", slug=campaign.slug, pk=report.pk)


@login_required
@require_GET
def robustness_report(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """A report: its progress while it runs (the htmx fragment polls), then its plots and table."""
    report = _report_for_organizer(request, slug, pk)
    if request.htmx:
        if not report.is_pending and request.GET.get("following"):
            return HttpResponseClientRefresh()  # it has just ended: show the results
        return render(request, "evaluation/robustness_report.html#report-status", {"report": report})
    context = {"report": report, "campaign": report.campaign}
    result = robustness_reports.result_of(report)
    if result is not None:
        chosen = _scatter_reduction(request, result)
        context |= {
            "result": result,
            "rows": result.summary(),
            "tau_plot": statistic_plot(result, "tau", "Kendall's τ vs full " + result.reference),
            "rms_plot": statistic_plot(result, "rms", "RMS error vs full " + result.reference),
            "scatter_reduction": chosen,
            "scatters": [scatter_plot(result, chosen, m) for m in range(len(result.measures))],
        }
        measure = request.GET.get("measure")
        measure = measure if measure in result.measures else result.measures[0]
        rows = robustness_reports.interval_rows(report, result, measure)
        bars, axis = interval_bars(rows)
        context |= {"interval_measure": measure, "interval_rows": rows, "interval_bars": list(zip(rows, bars)),
                    "axis": axis, "axis_svg": mark_safe(axis.svg(f"{measure}, from {axis.low:g} to {axis.high:g}"))
                    if any(bars) else None}
    return render(request, "evaluation/robustness_report.html", context)


def _scatter_reduction(request: HttpRequest, result) -> int:
    """The reduction the scatter plots show: ?reduction=<index>, else the one keeping the fewest judgments."""
    try:
        chosen = int(request.GET.get("reduction", ""))
    except ValueError:
        chosen = int(result.fraction.mean(axis=1).argmin())
    return chosen if 0 <= chosen < len(result.reductions) else int(result.fraction.mean(axis=1).argmin())


@login_required
@require_GET
def robustness_csv(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The summary: one line per measure and reduction (``robustness_reports.write_csv``)."""
    return _report_download(request, slug, pk, "", robustness_reports.write_csv)


@login_required
@require_GET
def robustness_intervals_csv(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Every run of every measure of the report: its full-judgment mean and the leaderboard's intervals."""
    return _report_download(request, slug, pk, "-runs", robustness_reports.write_intervals_csv)


def _report_download(request: HttpRequest, slug: str, pk: int, suffix: str, write) -> HttpResponse:
    """A finished report's CSV written by ``write(report, response)``; 409 while it has no results."""
    report = _report_for_organizer(request, slug, pk)
    if report.status != RobustnessReport.Status.DONE:
        return HttpResponse("the report has no results yet", status=409, content_type=TEXT)
    response = attachment(f"{report.campaign.slug}-robustness-{report.pk}{suffix}.csv")
    write(report, response)
    return response


class PoolBiasForm(forms.Form):
    measure = forms.ChoiceField(choices=[(m, m) for m in robustness_reports.OFFERED], initial="AP")
    depth = forms.IntegerField(min_value=1, help_text="ranks of each pooled run that entered the pool")


def _pool_bias_request(request: HttpRequest, campaign: Campaign) -> PoolBiasForm:
    """The GET form, filled in with the defaults where the query does not say (AP, the pool's depth)."""
    data = {"measure": request.GET.get("measure", "AP"),
            "depth": request.GET.get("depth") or robustness_reports.pool_depth(campaign)}
    return PoolBiasForm(data)


@login_required
@require_GET
def pool_bias(request: HttpRequest, slug: str) -> HttpResponse:
    """Leave each team out of the pool: how much lower its runs would score had they not been pooled
    (stored, and recomputed in the background when the scores move on: ``stored_pages``)."""
    campaign = campaign_for_organizer(request, slug)
    form = _pool_bias_request(request, campaign)
    context = {"campaign": campaign, "form": form, "pooled_known": robustness_reports.runs_pooled(campaign)[1]}
    if not form.is_valid():
        return render(request, "evaluation/pool_bias.html", context, status=400)
    measure, depth = form.cleaned_data["measure"], form.cleaned_data["depth"]
    stored = stored_pages.look(campaign, "pool_bias", {"measure": measure, "depth": depth})
    if request.htmx:
        return stored_pages.answer_poll(request, stored)
    result = stored.result
    context |= {"stored": stored, "error": stored.error}
    if result is None:
        return render(request, "evaluation/pool_bias.html", context)
    teams = sorted(result.unique_relevant, key=lambda team: (-result.unique_relevant[team], team))
    context |= {
        "result": result, "measure": measure, "rows": result.rows(measure), "summary": result.summary(measure),
        "teams": [{"name": team, "relevant": result.unique_relevant[team], "judged": result.unique_judged[team],
                   "pooled": sum(p for p, t in zip(result.pooled, result.teams) if t == team)} for team in teams],
    }
    return render(request, "evaluation/pool_bias.html", context)


@login_required
@require_GET
def pool_bias_csv(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organizer(request, slug)
    form = _pool_bias_request(request, campaign)
    if not form.is_valid():
        return HttpResponse(f"bad request: {form.errors.as_text()}", status=400, content_type=TEXT)
    measure, depth = form.cleaned_data["measure"], form.cleaned_data["depth"]
    try:
        result = stored_pages.result_now(campaign, "pool_bias", {"measure": measure, "depth": depth})
    except ValueError as exc:
        return HttpResponse(str(exc), status=409, content_type=TEXT)
    response = attachment(f"{campaign.slug}-pool-bias-{measure}-depth{depth}.csv")
    robustness_reports.write_pool_bias_csv(result, measure, response)
    return response


class AssessorVariationForm(forms.Form):
    measure = forms.ChoiceField()
    draws = forms.IntegerField(min_value=1, max_value=10_000, help_text="combinations of one assessor per topic")
    seed = forms.IntegerField(min_value=0, max_value=2**63 - 1)

    def __init__(self, data, *, campaign: Campaign):
        super().__init__(data)
        self.fields["measure"].choices = [(m, m) for m in scoring.leaderboard_measures(campaign)]


def _assessor_variation_request(request: HttpRequest, campaign: Campaign) -> AssessorVariationForm:
    """The GET form, filled in with the defaults where the query does not say (the leaderboard's
    first measure, 1,000 draws, seed 0)."""
    data = {"measure": request.GET.get("measure") or scoring.leaderboard_measures(campaign)[0],
            "draws": request.GET.get("draws") or 1000, "seed": request.GET.get("seed") or 0}
    return AssessorVariationForm(data, campaign=campaign)


@login_required
@require_GET
def assessor_variation(request: HttpRequest, slug: str) -> HttpResponse:
    """Would the runs rank the same had other assessors judged? (Voorhees 2000; stored, and recomputed
    in the background when the scores move on: ``stored_pages``)."""
    campaign = campaign_for_organizer(request, slug)
    form = _assessor_variation_request(request, campaign)
    context = {"campaign": campaign, "form": form}
    if not form.is_valid():
        return render(request, "evaluation/assessor_variation.html", context, status=400)
    params = {name: form.cleaned_data[name] for name in ("measure", "draws", "seed")}
    stored = stored_pages.look(campaign, "assessor_variation", params)
    if request.htmx:
        return stored_pages.answer_poll(request, stored)
    context |= {"stored": stored, "error": stored.error}
    if stored.result is None:
        return render(request, "evaluation/assessor_variation.html", context)
    summary = {row["variant"]: row for row in stored.result["summary"]}
    context |= {"result": stored.result["result"], "rows": stored.result["rows"], "drawn": summary["drawn"],
                "variants": [("Lenient: each document's highest grade", summary["lenient"]),
                             ("Strict: each document's lowest grade", summary["strict"])]}
    return render(request, "evaluation/assessor_variation.html", context)


@login_required
@require_GET
def assessor_variation_csv(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organizer(request, slug)
    form = _assessor_variation_request(request, campaign)
    if not form.is_valid():
        return HttpResponse(f"bad request: {form.errors.as_text()}", status=400, content_type=TEXT)
    data = form.cleaned_data
    try:
        params = {name: data[name] for name in ("measure", "draws", "seed")}
        result = stored_pages.result_now(campaign, "assessor_variation", params)["result"]
    except ValueError as exc:
        return HttpResponse(str(exc), status=409, content_type=TEXT)
    response = attachment(f"{campaign.slug}-assessor-variation-{data['measure']}.csv")
    robustness_reports.write_assessor_variation_csv(result, response)
    return response
