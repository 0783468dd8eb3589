"""RunScore.sampling_df: the t quantile's degrees of freedom of the run-mean interval. Means stored
before 0017 carry the former jackknife's interval (sample_eval's estimate ± z·SE): they are named
so, so that the leaderboard says which interval it shows until the next recomputation."""

from django.db import migrations, models


def name_former_intervals(apps, schema_editor):
    RunScore = apps.get_model("evaluation", "RunScore")
    RunScore.objects.filter(sampling_se__isnull=False, sampling_method="").update(sampling_method="jackknife")


class Migration(migrations.Migration):

    dependencies = [
        ("evaluation", "0017_sampling_interval_centres"),
    ]

    operations = [
        migrations.AddField(
            model_name="runscore",
            name="sampling_df",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.RunPython(name_former_intervals, migrations.RunPython.noop),
    ]
