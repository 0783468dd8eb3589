from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = "Evaluation"

    def ready(self) -> None:
        import evaluation.tasks  # noqa: F401  registers the Celery tasks, which recompute sends by name
        from campaigns.signals import judgments_changed, judgments_changing, runs_changed
        from evaluation import recompute

        # Judgments changing (in their transaction): mark the topics; changed (after commit), or
        # runs changed: queue one recompute.
        judgments_changing.connect(recompute.on_judgments_changing, dispatch_uid="evaluation.marks")
        judgments_changed.connect(recompute.on_judgments_changed, dispatch_uid="evaluation.scores")
        runs_changed.connect(recompute.on_runs_changed, dispatch_uid="evaluation.scores.runs")
