from __future__ import annotations

import io
import math

import numpy as np
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaigns.downloads import CSV, TEXT, attachment
from evaluation import appendix, plotting, recompute, score_exports, scoring, shown_intervals, stored_pages
from campaigns.run_submissions import RunUploadForm, UploadRefused, submit_run
from evaluation.measures import spreadsheet_csv
from evaluation.measures.comparison import paired_t_test, randomization_test
from evaluation.measures.intervals import topic_interval
from evaluation.measures.report import write_trec_eval
from campaigns.models import Run, TeamToken
from evaluation.models import Score, Scoreboard
from evaluation.score_access import ScoreAccess, scores_for_user
from campaigns import people
from campaigns.access import campaign_for_organizer, organizes, team_for_participant
from campaigns.models import Campaign
from judging.views import qrels_download

INTERVAL_KINDS = {
    "sampling": "judgment sampling (this topic set)",
    "topics": "topics (generalisation to other topics)",
}


def _scores_for_viewer(request: HttpRequest, slug: str) -> ScoreAccess:
    return scores_for_user(request.user, get_object_or_404(Campaign, slug=slug))


def _run_for_score_viewer(request: HttpRequest, slug: str, tag: str) -> tuple[ScoreAccess, Run]:
    access = _scores_for_viewer(request, slug)
    return access, access.run(tag)


def _scoreboard_for_organizer(request: HttpRequest, slug: str) -> Scoreboard:
    return Scoreboard.of(campaign_for_organizer(request, slug).pk)


def _choice(value: str | None, allowed, default: str) -> str:
    return value if value in allowed else default


# --------------------------------------------------------------------------------------------
# Leaderboard


@login_required
@require_GET
def scores_help(request: HttpRequest) -> HttpResponse:
    """How to read the intervals and plots of the score pages, for every role that sees them."""
    return render(request, "evaluation/help_scores.html")


@login_required
@require_GET
def leaderboard(request: HttpRequest, slug: str) -> HttpResponse:
    access = _scores_for_viewer(request, slug)
    campaign = access.campaign
    status = recompute.kick(campaign)
    if request.htmx and request.GET.get("key") == status.key:
        return HttpResponse(status=204)  # nothing changed: htmx keeps the table
    measures = scoring.leaderboard_measures(campaign)
    measure = _choice(request.GET.get("measure"), measures, measures[0])
    default_kind = "sampling" if measure in scoring.INFERRED else "topics"
    kind = _choice(request.GET.get("interval"), INTERVAL_KINDS, default_kind)
    if measure not in scoring.INFERRED:
        kind = "topics"
    coverage = scoring.coverage_measure(measure, scoring.sample_depth(campaign))
    rows = scoring.board_rows(access.runs, measure, kind, coverage)
    snapshots = list(campaign.ranking_snapshots.all()[:20]) if access.sees_all else []
    snapshot = next((s for s in snapshots if str(s.pk) == request.GET.get("compare")), snapshots[0] if snapshots else None)
    tau = None
    if snapshot is not None:
        tau, rows = scoring.ranking_tau(rows, snapshot, measure)
    bars, axis = _error_bars(rows)
    context = {
        "campaign": campaign,
        "access": access,
        "status": status,
        "measures": measures,
        "measure": measure,
        "low_on_sample": scoring.unjudged_as_not_relevant(campaign),
        "kind": kind,
        "kinds": INTERVAL_KINDS,
        "coverage": coverage,
        "shown": shown_intervals.interval_label(measure, kind, shown_intervals.board_method(rows)),
        "centre_name": shown_intervals.centre_name(measure, shown_intervals.board_method(rows)) if kind == "sampling" else "",
        "rows": list(zip(rows, bars)),
        "axis": axis,
        "axis_svg": mark_safe(axis.svg(f"{measure}, from {axis.low:g} to {axis.high:g}")),
        "snapshots": snapshots,
        "snapshot": snapshot,
        "tau": None if tau is None or math.isnan(tau) else tau,
        "poll_seconds": 3,
    }
    template = "evaluation/leaderboard.html#board" if request.htmx else "evaluation/leaderboard.html"
    return render(request, template, context)


@login_required
@require_GET
def leaderboard_csv(request: HttpRequest, slug: str) -> HttpResponse:
    """Every measure's means, with both 95 % intervals, of the runs the viewer sees on the leaderboard, and whether
    each run was pooled (yes or no; empty when the pool does not record its runs, as for imported qrels)."""
    access = _scores_for_viewer(request, slug)
    pooled = {pk: {True: "yes", False: "no"}.get(state, "") for pk, state in scoring.pool_state(access.runs).items()}
    response = attachment(f"{access.campaign.slug}.scores.csv")
    out = spreadsheet_csv.writer(response)
    columns = ["sampling_low", "sampling_high", "topics_low", "topics_high", "pooled", "sampling_centre", "sampling_method"]
    out.writerow(["measure", "rank", "run", "team", "run_type", "mean", "topics", *columns])
    for rank, score in scoring.board_table(access.runs):
        cells = {**score_exports.mean_intervals(score), "pooled": pooled[score.run_id]}
        out.writerow([score.measure, rank, score.run.tag, score.run.team.name, score.run.run_type, score.value,
                      score.topics, *("" if cells[c] is None else cells[c] for c in columns)])
    return response


@login_required
@require_GET
def topic_scores_csv(request: HttpRequest, slug: str) -> HttpResponse:
    """Every stored per-topic score of the runs the viewer sees, one row per (measure, topic, run): the
    data behind every mean, for one's own tests and plots. Topics left out of the evaluation have none."""
    access = _scores_for_viewer(request, slug)
    rows = (
        Score.objects.filter(run__in=access.runs)
        .order_by("measure", "topic__position", "topic__identifier", "run__tag")
        .values_list("measure", "topic__identifier", "run__tag", "run__team__name", "run__run_type", "value", "variance")
    )
    response = attachment(f"{access.campaign.slug}.topic-scores.csv")
    out = spreadsheet_csv.writer(response)
    out.writerow(["measure", "topic", "run", "team", "run_type", "value", "variance"])
    out.writerows(row[:-1] + ("" if row[-1] is None else row[-1],) for row in rows.iterator())
    return response


@login_required
@require_GET
def significance(request: HttpRequest, slug: str) -> HttpResponse:
    """Which differences between the runs the viewer sees are significant: every pair tested at
    once with the randomized Tukey HSD test, on one measure; stored, and recomputed in the background
    when the scores move on (``stored_pages``)."""
    access, measures, measure = _significance_for(request, slug)
    runs = sorted(access.runs.values_list("pk", flat=True))
    stored = stored_pages.look(access.campaign, "significance", {"measure": measure, "runs": runs})
    if request.htmx:
        return stored_pages.answer_poll(request, stored)
    result = stored.result
    context = {"campaign": access.campaign, "access": access, "measures": measures, "measure": measure, "stored": stored,
               "result": result, "rows": _significance_rows(result) if result else [], "alpha": SIGNIFICANCE_LEVEL}
    return render(request, "evaluation/significance.html", context)


@login_required
@require_GET
def significance_csv(request: HttpRequest, slug: str) -> HttpResponse:
    """Every pair of the significance page as CSV: the better run first, both means, the difference and p."""
    access, _, measure = _significance_for(request, slug)
    runs = sorted(access.runs.values_list("pk", flat=True))
    result = stored_pages.result_now(access.campaign, "significance", {"measure": measure, "runs": runs})
    response = attachment(f"{access.campaign.slug}.significance.{measure}.csv")
    out = spreadsheet_csv.writer(response)
    out.writerow(["measure", "run_a", "mean_a", "run_b", "mean_b", "difference", "p_tukey_hsd", "topics"])
    for a, mean_a, b, mean_b, p in result.pairs() if result else ():
        out.writerow([measure, a.tag, mean_a, b.tag, mean_b, mean_a - mean_b, p, result.topics])
    return response


#: The level at which the significance page marks a difference.
SIGNIFICANCE_LEVEL = 0.05


def _significance_for(request: HttpRequest, slug: str):
    """(access, measures offered, the measure asked for)."""
    access = _scores_for_viewer(request, slug)
    measures = scoring.leaderboard_measures(access.campaign)
    return access, measures, _choice(request.GET.get("measure"), measures, measures[0])


def _significance_rows(result: scoring.Significance) -> list[tuple]:
    """Per run (best first): the run, its mean, and its row of the upper triangle against the runs
    from the second on (the first column would be empty): None on and below the diagonal, else
    (p, significant)."""
    n = len(result.runs)
    return [
        (run, float(result.means[i]),
         [None if j <= i else (float(result.p[i, j]), result.p[i, j] < SIGNIFICANCE_LEVEL) for j in range(1, n)])
        for i, run in enumerate(result.runs)
    ]


def _error_bars(rows) -> tuple[list[dict | None], plotting.IntervalAxis]:
    """Per row, x positions (0–100 %) of the interval's ends and the mean, on one round axis for all
    rows, and that axis (drawn above the column, its ticks as grid lines in each row)."""
    ends = [v for r in rows if r.score for v in (r.interval or ()) + (r.score.value,)]
    axis = plotting.interval_axis(ends)
    bars = []
    for r in rows:
        if r.score is None:
            bars.append(None)
            continue
        lo, hi = r.interval if r.interval else (r.score.value, r.score.value)
        bars.append({"low": axis.position(lo), "high": axis.position(hi), "mean": axis.position(r.score.value)})
    return bars, axis


@login_required
@require_POST
def scores_release(request: HttpRequest, slug: str) -> HttpResponse:
    """Release the scores to all participants, who are told by mail when the server sends mail; or withdraw them."""
    board = _scoreboard_for_organizer(request, slug)
    release, was_released = request.POST.get("release") == "1", board.released
    board.publish(released=release)
    board.campaign.follow_release(release)
    messages.success(request, "Scores released to all participants." if release else "Release withdrawn: participants see their own runs only.")
    if release and not was_released and people.mail_enabled():
        try:
            mailed = people.tell_participants_released(board.campaign, request.build_absolute_uri(reverse("leaderboard", args=[slug])))
        except people.MailError as exc:
            messages.warning(request, f"Participants were not told by mail: {exc}.")
        else:
            told = f"Told {len(mailed.sent)} participant(s) by mail."
            if mailed.without_email:
                told += f" No email address: {', '.join(mailed.without_email)}."
            if mailed.failed:
                told += " Refused by the mail server: " + ", ".join(f"{n} ({why})" for n, why in mailed.failed.items()) + "."
            messages.info(request, told)
    return redirect("leaderboard", slug=slug)


@login_required
@require_POST
def qrels_publish(request: HttpRequest, slug: str) -> HttpResponse:
    """Publish the official qrels to all participants (they see them while the scores are released), or withdraw them."""
    board = _scoreboard_for_organizer(request, slug)
    publish = request.POST.get("publish") == "1"
    board.publish(qrels_published=publish)
    if not publish:
        messages.success(request, "Qrels withdrawn: participants no longer download them.")
    elif board.released:
        messages.success(request, "Qrels published: participants download them from the scores page.")
    else:
        messages.warning(request, "Qrels published; participants download them once the scores are released.")
    return redirect("leaderboard", slug=slug)


@login_required
@require_GET
def published_qrels(request: HttpRequest, slug: str) -> HttpResponse:
    """The official qrels, for the campaign's participants once the organizers publish them
    with the scores, so that they evaluate their runs themselves (trec_eval, sample_eval.pl)."""
    access = _scores_for_viewer(request, slug)
    if not (access.is_organizer or access.board.qrels_public):
        raise PermissionDenied("the organizers have not published the qrels")
    return qrels_download(request, access.campaign, back=reverse("leaderboard", args=[slug]))


@login_required
@require_POST
def scores_recompute(request: HttpRequest, slug: str) -> HttpResponse:
    """Recompute every topic (after a pool was rebuilt, say); the page shows the progress."""
    board = _scoreboard_for_organizer(request, slug)
    recompute.mark_all(board.campaign)
    queued = recompute.request_recompute(board.campaign_id, force=True)
    if queued:
        messages.success(request, "Every topic is being recomputed.")
    else:
        messages.warning(request, "Every topic is marked, but the task could not be queued now (is the broker down?); it will be retried.")
    return redirect("leaderboard", slug=slug)


@login_required
@require_POST
def scores_snapshot(request: HttpRequest, slug: str) -> HttpResponse:
    """Keep the current ranking, to compare later ones with."""
    board = _scoreboard_for_organizer(request, slug)
    snapshot = scoring.take_snapshot(board.campaign)
    messages.success(request, f"Ranking kept as of {snapshot.taken:%Y-%m-%d %H:%M:%S} UTC.")
    return redirect("leaderboard", slug=slug)


# --------------------------------------------------------------------------------------------
# Run pages


@login_required
@require_GET
def run_scores(request: HttpRequest, slug: str, tag: str) -> HttpResponse:
    access, run = _run_for_score_viewer(request, slug, tag)
    campaign = access.campaign
    depth = scoring.sample_depth(campaign)
    measures = scoring.measures_for(campaign, depth)
    summary = []
    scores = {s.measure: s for s in run.run_scores.all()}
    for name in measures:
        s = scores.get(name)
        summary.append({
            "measure": name,
            "score": s,
            "sampling": s.interval("sampling") if s else None,
            "centre_name": shown_intervals.centre_name(name, s.sampling_method) if s and s.sampling_method else "",
            "topics": s.interval("topics") if s else None,
            "coverage": scores.get(scoring.coverage_measure(name, depth)),
        })
    offered = scoring.leaderboard_measures(campaign)
    measure = _choice(request.GET.get("measure"), offered, offered[0])
    # Median and best over all runs are shown only to viewers who may see all runs.
    # Per-topic intervals (the posterior's draws) are a stored page, computed in the background.
    stored = stored_pages.look(campaign, "topic_intervals", {"measure": measure}) if measure in scoring.INFERRED else None
    if request.htmx and stored is not None:
        return stored_pages.answer_poll(request, stored)
    topics, values = scoring.topic_values(campaign, measure, None if access.sees_all else access.runs)
    table = _topic_table(topics, values, run.pk, all_runs=access.sees_all)
    intervals = stored.result.of(run) if stored is not None and stored.result is not None else {}
    table = [{**row, "interval": intervals.get(row["topic"].identifier)} for row in table]
    others = access.runs.exclude(pk=run.pk).order_by("tag")
    context = {
        "campaign": campaign, "access": access, "run": run, "summary": summary, "measure": measure,
        "measures": offered, "table": table, "plot": _topic_plot(table, measure), "others": others, "stored": stored,
        "interval_method": stored.result.method if stored is not None and stored.result is not None else "",
        "status": recompute.status(campaign), "pooled": scoring.pool_state(Run.objects.filter(pk=run.pk))[run.pk],
    }
    return render(request, "evaluation/run.html", context)


def _topic_table(topics, values, run_id, *, all_runs: bool) -> list[dict]:
    if run_id not in values:
        return []
    matrix = np.stack(list(values.values()))
    median = np.median(matrix, axis=0)
    best = matrix.max(axis=0)
    return [
        {"topic": t, "value": float(values[run_id][i]),
         "median": float(median[i]) if all_runs else None, "best": float(best[i]) if all_runs else None}
        for i, t in enumerate(topics)
    ]


def _topic_plot(table: list[dict], measure: str) -> SafeString | None:
    """The TREC appendix plot: per topic, the run's value against the median and best of all runs."""
    if not table:
        return None
    all_runs = table[0]["median"] is not None
    return mark_safe(plotting.topic_plot(
        [row["topic"].identifier for row in table], [row["value"] for row in table],
        medians=[row["median"] for row in table] if all_runs else None,
        bests=[row["best"] for row in table] if all_runs else None, measure=measure,
    ))


@login_required
@require_GET
def run_appendix(request: HttpRequest, slug: str, tag: str) -> HttpResponse:
    """The run's evaluation appendix, as in the TREC proceedings: counts, the recall-precision
    curve and precision at document cut-offs, from the official grades; stored, and recomputed in the
    background when the scores move on (``stored_pages``)."""
    access, run = _run_for_score_viewer(request, slug, tag)
    stored = stored_pages.look(access.campaign, "appendix", {"run": run.pk})
    if request.htmx:
        return stored_pages.answer_poll(request, stored)
    result = stored.result
    context = {
        "campaign": access.campaign, "run": run, "appendix": result, "stored": stored,
        "curve": mark_safe(appendix.curve(result, run=run.tag)) if result else None,
    }
    return render(request, "evaluation/appendix.html", context)


@login_required
@require_GET
def run_compare(request: HttpRequest, slug: str, tag: str) -> HttpResponse:
    """Two runs topic by topic: mean difference, paired t-test and paired randomization test."""
    access, run = _run_for_score_viewer(request, slug, tag)
    other_tag = request.GET.get("other", "")
    other = access.runs.filter(tag=other_tag).exclude(pk=run.pk).first()
    if other is None:
        raise Http404(f"no run {other_tag!r} to compare with")
    offered = scoring.leaderboard_measures(access.campaign)
    measure = _choice(request.GET.get("measure"), offered, offered[0])
    # The paired interval (both runs' replicates on every topic) is a stored page, computed in the background.
    paired = measure in scoring.INFERRED + scoring.UNBIASED
    stored = stored_pages.look(access.campaign, "paired_interval", {"measure": measure, "runs": [run.pk, other.pk]}) if paired else None
    if request.htmx and stored is not None:
        return stored_pages.answer_poll(request, stored)
    topics, values = scoring.topic_values(access.campaign, measure, [run, other])
    result = None
    if run.pk in values and other.pk in values and len(topics) >= 2:
        a, b = values[run.pk], values[other.pk]
        t, p_t = paired_t_test(a, b)
        interval = topic_interval(a - b)
        result = {
            "mean_a": float(a.mean()), "mean_b": float(b.mean()), "diff": float((a - b).mean()),
            "low": float(interval.low), "high": float(interval.high),
            "t": t, "p_t": p_t, "p_rand": randomization_test(a, b),
            "wins": int(np.sum(a > b)), "losses": int(np.sum(a < b)), "ties": int(np.sum(a == b)),
            "rows": [{"topic": tp, "a": float(a[i]), "b": float(b[i]), "diff": float(a[i] - b[i])} for i, tp in enumerate(topics)],
            "sampling": stored.result if stored is not None else None,
        }
    context = {"campaign": access.campaign, "run": run, "other": other, "measure": measure, "measures": offered,
               "result": result, "topics": len(topics), "stored": stored}
    return render(request, "evaluation/compare.html", context)


DOWNLOADS = {
    "csv": (CSV, "csv"),
    "json": ("application/json", "json"),
    "txt": (TEXT, "trec_eval.txt"),
}


@login_required
@require_GET
def run_scores_download(request: HttpRequest, slug: str, tag: str, fmt: str) -> HttpResponse:
    """The run's per-topic scores and means: CSV (with each value's interval), JSON, or trec_eval's ``-q`` text."""
    _, run = _run_for_score_viewer(request, slug, tag)
    if fmt not in DOWNLOADS:
        raise Http404(f"no download format {fmt!r}")
    content_type, suffix = DOWNLOADS[fmt]
    if fmt == "json":
        return attachment(f"{run.tag}.scores.{suffix}", content_type, score_exports.run_scores_json(run))
    if fmt == "csv":
        return attachment(f"{run.tag}.scores.{suffix}", content_type, score_exports.run_scores_csv(run))
    out = io.StringIO()
    write_trec_eval(out, score_exports.run_evaluation(run), per_topic=True)
    return attachment(f"{run.tag}.scores.{suffix}", content_type, out.getvalue())


# --------------------------------------------------------------------------------------------
# A team's runs and uploads


@login_required
@require_http_methods(["GET", "POST"])
def team_runs(request: HttpRequest, slug: str) -> HttpResponse:
    """A participant's team: its runs with links to their scores, and the upload form (per-team limit, until the deadline)."""
    campaign, team = team_for_participant(request, slug)
    board = Scoreboard.of(campaign.pk)
    form = RunUploadForm(request.POST or None, request.FILES or None)
    uploads_open = campaign.uploads_open()
    status = 200
    if request.method == "POST":
        try:
            submission = submit_run(campaign, team, form, user=request.user)
        except UploadRefused as exc:
            if exc.reason != UploadRefused.INVALID:  # the form shows its own errors
                form.add_error(exc.field, exc.message)
            status = 400
        else:
            messages.success(request, f"Run {submission.run.tag} uploaded; its scores appear as they are computed.")
            for warning in submission.warnings:
                messages.warning(request, warning)
            return redirect("team_runs", slug=slug)
    runs = team.runs.order_by("tag")
    context = {"campaign": campaign, "team": team, "runs": runs, "form": form, "limit": campaign.runs_per_team,
               "can_upload": runs.count() < campaign.runs_per_team, "uploads_open": uploads_open,
               "runs_due": campaign.runs_due, "token": TeamToken.objects.active().filter(team=team).first(),
               "closed_reason": campaign.uploads_closed_reason(), "released": board.released,
               "qrels_public": board.qrels_public}
    return render(request, "evaluation/team.html", context, status=status)


@login_required
@require_POST
def run_withdraw(request: HttpRequest, slug: str, tag: str) -> HttpResponse:
    """A team withdraws one of its runs (a wrong file, a slot to free) while uploads are open,
    unless a built pool took it; the organizers delete runs in the admin at any time."""
    campaign, team = team_for_participant(request, slug)
    run = get_object_or_404(team.runs, tag=tag)
    if not campaign.uploads_open():
        messages.error(request, f"{campaign.uploads_closed_reason()} Run {run.tag} stays.")
        return redirect("team_runs", slug=slug)
    try:
        run.withdraw()
    except ValueError as exc:
        messages.error(request, f"{exc}. Nothing was deleted.")
    else:
        messages.success(request, f"Run {tag} withdrawn: its file and scores are deleted.")
    return redirect("team_runs", slug=slug)


# --------------------------------------------------------------------------------------------
# Run files


def _run_for_viewer(request: HttpRequest, slug: str, tag: str) -> Run:
    """A run its team's members and the organizers may see; 404 otherwise, the same whether the
    tag is another team's or nobody's (the tags of other teams' runs are not told)."""
    run = Run.objects.select_related("team", "campaign").filter(campaign__slug=slug, tag=tag).first()
    if run is None or not (organizes(request.user, run.campaign) or run.team.members.filter(pk=request.user.pk).exists()):
        raise Http404(f"no run {tag!r} of yours in this campaign")
    return run


@login_required
@require_GET
def run_download(request: HttpRequest, slug: str, tag: str) -> HttpResponse:
    run = _run_for_viewer(request, slug, tag)
    response = attachment(f"{run.tag}.run.txt", TEXT)
    run.write_trec(response)
    return response
