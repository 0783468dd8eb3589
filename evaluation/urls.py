from django.urls import path, register_converter

from evaluation import token_views, views
from campaigns.identifiers import SegmentConverter

register_converter(SegmentConverter, "tag")

urlpatterns = [
    path("c/<slug:slug>/runs/<tag:tag>.txt", views.run_download, name="run_download"),
    path("c/<slug:slug>/scores/", views.leaderboard, name="leaderboard"),
    path("help/scores/", views.scores_help, name="scores_help"),
    path("c/<slug:slug>/scores/means.csv", views.leaderboard_csv, name="leaderboard_csv"),
    path("c/<slug:slug>/scores/topics.csv", views.topic_scores_csv, name="topic_scores_csv"),
    path("c/<slug:slug>/scores/significance/", views.significance, name="significance"),
    path("c/<slug:slug>/scores/significance.csv", views.significance_csv, name="significance_csv"),
    path("c/<slug:slug>/scores/release/", views.scores_release, name="scores_release"),
    path("c/<slug:slug>/scores/qrels/publish/", views.qrels_publish, name="qrels_publish"),
    path("c/<slug:slug>/scores/qrels.txt", views.published_qrels, name="published_qrels"),
    path("c/<slug:slug>/scores/recompute/", views.scores_recompute, name="scores_recompute"),
    path("c/<slug:slug>/scores/snapshot/", views.scores_snapshot, name="scores_snapshot"),
    path("c/<slug:slug>/scores/runs/<tag:tag>/", views.run_scores, name="run_scores"),
    path("c/<slug:slug>/scores/runs/<tag:tag>/compare/", views.run_compare, name="run_compare"),
    path("c/<slug:slug>/scores/runs/<tag:tag>/appendix/", views.run_appendix, name="run_appendix"),
    path("c/<slug:slug>/scores/runs/<tag:tag>/scores.<str:fmt>", views.run_scores_download, name="run_scores_download"),
    path("c/<slug:slug>/team/", views.team_runs, name="team_runs"),
    path("c/<slug:slug>/team/runs/<tag:tag>/withdraw/", views.run_withdraw, name="run_withdraw"),
    path("c/<slug:slug>/team/token/rotate/", token_views.api_token_rotate, name="api_token_rotate"),
    path("c/<slug:slug>/api-tokens/", token_views.api_tokens, name="api_tokens"),
    path("c/<slug:slug>/api-tokens/<int:team_id>/issue/", token_views.api_token_issue, name="api_token_issue"),
    path("c/<slug:slug>/api-tokens/<int:team_id>/revoke/", token_views.api_token_revoke, name="api_token_revoke"),
]

# Robustness reports (issue 7)
from evaluation import robustness_views  # noqa: E402

urlpatterns += [
    path("c/<slug:slug>/robustness/", robustness_views.robustness_list, name="robustness"),
    path("c/<slug:slug>/robustness/<int:pk>/", robustness_views.robustness_report, name="robustness_report"),
    path("c/<slug:slug>/robustness/<int:pk>.csv", robustness_views.robustness_csv, name="robustness_csv"),
    path("c/<slug:slug>/robustness/<int:pk>.runs.csv", robustness_views.robustness_intervals_csv,
         name="robustness_intervals_csv"),
    path("c/<slug:slug>/robustness/pool-bias/", robustness_views.pool_bias, name="pool_bias"),
    path("c/<slug:slug>/robustness/pool-bias.csv", robustness_views.pool_bias_csv, name="pool_bias_csv"),
    path("c/<slug:slug>/robustness/assessors/", robustness_views.assessor_variation, name="assessor_variation"),
    path("c/<slug:slug>/robustness/assessors.csv", robustness_views.assessor_variation_csv,
         name="assessor_variation_csv"),
]
