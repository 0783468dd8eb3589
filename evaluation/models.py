"""Teams, runs and their ranked lists.

A TREC-8-size campaign has 129 runs x 50 topics x 1000 ranks = 6.45 M run lines. They are
not stored one row per line: each (run, topic) is one row holding the ranked document numbers
and scores as compact arrays, already in evaluation order (score descending, ties by docno
descending), so loading every run of one topic is a few array reads.
"""

from __future__ import annotations

import numpy as np
from django.conf import settings
from django.db import models
from django.utils import timezone

from judging.models import Campaign, Topic


class Team(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="teams")
    name = models.CharField(max_length=100)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="teams")

    class Meta:
        ordering = ["campaign", "name"]
        constraints = [models.UniqueConstraint(fields=["campaign", "name"], name="team_name_unique")]

    def __str__(self) -> str:
        return self.name


class Run(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="runs")
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="runs")
    tag = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    priority = models.PositiveSmallIntegerField(
        default=1, help_text="The team's pooling priority: 1 is pooled first."
    )
    source_name = models.CharField(max_length=255, blank=True, help_text="File the run was read from.")
    uploaded = models.DateTimeField(default=timezone.now)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    line_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["campaign", "tag"]
        constraints = [
            # Scores and exports name runs by tag: one tag, one run per campaign.
            models.UniqueConstraint(fields=["campaign", "tag"], name="run_tag_unique"),
        ]

    def __str__(self) -> str:
        return self.tag

    def write_trec(self, out) -> None:
        """Write the run back as a 6-column TREC file, topics in campaign order."""
        from evaluation.measures.trec_files import write_run

        for ranked in self.ranked_lists.select_related("topic").order_by("topic__position", "topic__identifier"):
            docno = ranked.docnos()
            write_run(out, self.tag, [ranked.topic.identifier] * len(docno), docno, ranked.scores())


class RankedList(models.Model):
    """One run's ranked documents for one topic, in evaluation order, as packed arrays.

    ``docno_blob`` is the document numbers joined by newlines (docnos contain no whitespace);
    ``score_blob`` the float64 scores, little-endian.
    """

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="ranked_lists")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="ranked_lists")
    length = models.PositiveIntegerField()
    docno_blob = models.BinaryField()
    score_blob = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "topic"], name="ranked_list_unique")]
        indexes = [
            # Recomputing one topic loads that topic's lists of every run.
            models.Index(fields=["topic"], name="ranked_list_topic"),
        ]

    @staticmethod
    def pack(docno: np.ndarray, score: np.ndarray) -> dict:
        return {
            "length": int(len(docno)),
            "docno_blob": "\n".join(docno.tolist()).encode(),
            "score_blob": np.ascontiguousarray(score, dtype="<f8").tobytes(),
        }

    def docnos(self) -> np.ndarray:
        if not self.length:
            return np.zeros(0, dtype=np.str_)
        return np.array(bytes(self.docno_blob).decode().split("\n"), dtype=np.str_)

    def scores(self) -> np.ndarray:
        return np.frombuffer(bytes(self.score_blob), dtype="<f8")
