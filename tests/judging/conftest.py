import email
import email.policy
import socket

import pytest
from aiosmtpd.controller import Controller

from campaigns.run_imports import RunSource, import_runs
from judging.qrels import import_qrels
from campaigns.signals import judgments_changed
from tests.evaluation.conftest import cds_subset
from tests.judging.toy_pool import load_toy
from tests.judging.toy_queue import load_queue_toy

MAIL_FROM = "trec-organizers@example.org"


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


class Inbox:
    """An SMTP server's handler: keeps every message it accepts; refuses mailboxes at refused.example."""

    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.endswith("@refused.example"):
            return "550 5.1.1 <%s>: no such mailbox" % address
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(email.message_from_bytes(envelope.content, policy=email.policy.default))
        return "250 Message accepted for delivery"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def inbox(settings):
    """A running SMTP server, and the app's settings pointing at it (as EMAIL_URL would)."""
    handler, port = Inbox(), free_port()
    server = Controller(handler, hostname="127.0.0.1", port=port)
    server.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"  # pytest-django's default keeps mail in memory
    settings.EMAIL_URL = f"smtp://127.0.0.1:{port}"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.DEFAULT_FROM_EMAIL = MAIL_FROM
    yield handler
    server.stop()


@pytest.fixture
def toy(campaign):
    """The pool tests' toy campaign (tests/judging/toy_pool.py): three topics, three runs, two teams."""
    load_toy(campaign)
    return campaign


@pytest.fixture
def queue_toy(campaign):
    """The judging-queue tests' toy pool (tests/judging/toy_queue.py): ten sampled documents in a fixed order."""
    return load_queue_toy(campaign)
