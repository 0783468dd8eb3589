from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = "Evaluation"

    def ready(self) -> None:
        from evaluation import recompute
        from judging.signals import judgments_changed

        # Judgments changed (sent after commit): mark the topics, queue one recompute.
        judgments_changed.connect(recompute.on_judgments_changed, dispatch_uid="evaluation.scores")
