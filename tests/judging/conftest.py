import pytest

from judging.signals import judgments_changed


@pytest.fixture
def received():
    """The (campaign id, topic ids) of every judgments_changed sent during the test."""
    calls = []

    def receiver(sender, campaign_id, topic_ids, **kwargs):
        calls.append((campaign_id, topic_ids))

    judgments_changed.connect(receiver)
    yield calls
    judgments_changed.disconnect(receiver)
