from django.urls import path

from judging import agreement_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("c/<slug:slug>/", views.campaign, name="campaign"),
    path("c/<slug:slug>/import/", views.campaign_import, name="campaign_import"),
    path("c/<slug:slug>/import/<str:kind>/", views.campaign_import_kind, name="campaign_import_kind"),
    path("c/<slug:slug>/qrels.txt", views.export_qrels_view, name="export_qrels"),
    path("c/<slug:slug>/pool/", views.pool, name="pool"),
    path("c/<slug:slug>/pool/preview/", views.pool_preview, name="pool_preview"),
    path("c/<slug:slug>/pool/build/", views.pool_build, name="pool_build"),
    path("c/<slug:slug>/pool/late-runs/", views.pool_add_late_runs, name="pool_add_late_runs"),
    path("c/<slug:slug>/pool/status/", views.pool_status, name="pool_status"),
    # Agreement dashboard and adjudication (organizers)
    path("c/<slug:slug>/agreement/", agreement_views.agreement, name="agreement"),
    path("c/<slug:slug>/agreement/<str:table>.csv", agreement_views.agreement_csv, name="agreement_csv"),
    path("c/<slug:slug>/adjudication/", agreement_views.adjudication, name="adjudication"),
    path("c/<slug:slug>/adjudication/policy/", agreement_views.adjudication_policy, name="adjudication_policy"),
    path(
        "c/<slug:slug>/adjudication/<int:topic_id>/<int:document_id>/",
        agreement_views.adjudication_document,
        name="adjudication_document",
    ),
]
