"""judgments_changed is sent once per committed change, naming the topics whose judgments changed."""

import pytest
from django.db import transaction

from judging.qrels import import_qrels
from campaigns.models import Topic


def test_a_qrels_import_announces_its_topics_after_commit(campaign, tmp_path, received, django_capture_on_commit_callbacks):
    path = tmp_path / "q.txt"
    path.write_bytes(b"1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    with django_capture_on_commit_callbacks(execute=True):
        import_qrels(campaign, path, unknown_topics="create")
        assert received == []  # nothing before the commit
    topic_ids = frozenset(Topic.objects.filter(campaign=campaign).values_list("id", flat=True))
    assert received == [(campaign.id, topic_ids)]


def test_an_unchanged_reimport_announces_nothing(campaign, tmp_path, received, django_capture_on_commit_callbacks):
    path = tmp_path / "q.txt"
    path.write_bytes(b"1 0 a 1\n")
    with django_capture_on_commit_callbacks(execute=True):
        import_qrels(campaign, path, unknown_topics="create")
    with django_capture_on_commit_callbacks(execute=True):
        import_qrels(campaign, path)
    assert len(received) == 1


def test_a_rolled_back_change_announces_nothing(campaign, tmp_path, received, django_capture_on_commit_callbacks):
    path = tmp_path / "q.txt"
    path.write_bytes(b"1 0 a 1\n")
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(RuntimeError):
            with transaction.atomic():
                import_qrels(campaign, path, unknown_topics="create")
                raise RuntimeError("undo")
    assert received == []
