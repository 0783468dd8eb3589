"""evaluation/migrations/0018: run means stored before the engine's intervals were wired are named
as the former jackknife's, so that the leaderboard says which interval they show."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("evaluation", "0017_sampling_interval_centres")]
AFTER = [("evaluation", "0018_runscore_sampling_df")]


@pytest.mark.django_db(transaction=True)
def test_means_with_a_former_interval_are_named_jackknife_and_the_others_stay_unnamed():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    Campaign, Team, Run = (old.get_model("campaigns", name) for name in ("Campaign", "Team", "Run"))
    RunScore = old.get_model("evaluation", "RunScore")
    campaign = Campaign.objects.create(name="a", slug="a", scale=[{"grade": 0, "label": "no"}, {"grade": 1, "label": "yes"}])
    run = Run.objects.create(campaign=campaign, team=Team.objects.create(campaign=campaign, name="t"), tag="r")
    RunScore.objects.create(run=run, measure="xinfAP", value=0.3, topics=2, sampling_se=0.05)
    RunScore.objects.create(run=run, measure="AP", value=0.4, topics=2, topic_se=0.1)

    executor.loader.build_graph()
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps.get_model("evaluation", "RunScore")
    assert dict(new.objects.values_list("measure", "sampling_method")) == {"xinfAP": "jackknife", "AP": ""}
    assert not new.objects.filter(sampling_df__isnull=False).exists()
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
