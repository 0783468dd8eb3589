import pytest

from evaluation.imports import RunSource, import_runs
from judging.imports import import_qrels
from judging.signals import judgments_changed
from tests.evaluation.conftest import cds_subset


@pytest.fixture
def received():
    """The (campaign id, topic ids) of every judgments_changed sent during the test."""
    calls = []

    def receiver(sender, campaign_id, topic_ids, **kwargs):
        calls.append((campaign_id, topic_ids))

    judgments_changed.connect(receiver)
    yield calls
    judgments_changed.disconnect(receiver)


@pytest.fixture
def scored(campaign, tmp_path, django_capture_on_commit_callbacks):
    """TREC CDS 2015, topics 1-4 and three runs, scored live (in-process)."""
    qrels, runs = cds_subset(tmp_path)
    with django_capture_on_commit_callbacks(execute=True):
        import_qrels(campaign, qrels, unknown_topics="create")
        import_runs(campaign, [RunSource(p, name=p.name) for p in runs], team_name="TUW")
    return campaign
