from django.templatetags.static import static
from django.urls import path, register_converter
from django.views.generic.base import RedirectView

from judging import (agreement_views, assess_views, document_views, invitation_views, people_views, settings_views,
                     views)
from campaigns.identifiers import SegmentConverter

register_converter(SegmentConverter, "topic")

urlpatterns = [
    path("", views.home, name="home"),
    # Browsers ask for /favicon.ico whatever the page links; the page links static/favicon.svg.
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    path("invitations/", invitation_views.invitations, name="invitations"),
    path("invitations/<int:membership_id>/<str:answer>/", invitation_views.invitation_answer, name="invitation_answer"),
    path("join/<str:token>/", invitation_views.invitation_join, name="invitation_join"),
    path("campaigns/new/", views.campaign_new, name="campaign_new"),
    path("c/<slug:slug>/", views.campaign, name="campaign"),
    path("c/<slug:slug>/settings/", settings_views.campaign_settings, name="campaign_settings"),
    path("c/<slug:slug>/settings/state/", settings_views.campaign_state, name="campaign_state"),
    path("c/<slug:slug>/settings/clone/", settings_views.campaign_clone, name="campaign_clone"),
    path("c/<slug:slug>/settings/delete/", settings_views.campaign_delete, name="campaign_delete"),
    path("c/<slug:slug>/people/", people_views.people_page, name="people"),
    path("c/<slug:slug>/people/<str:kind>/", people_views.people_add, name="people_add"),
    path("c/<slug:slug>/people/renew/<int:user_id>/<str:kind>/", people_views.people_renew, name="people_renew"),
    path("c/<slug:slug>/people/remove/<int:user_id>/<str:kind>/", people_views.people_remove, name="people_remove"),
    path("c/<slug:slug>/import/", views.campaign_import, name="campaign_import"),
    path("c/<slug:slug>/import/<str:kind>/", views.campaign_import_kind, name="campaign_import_kind"),
    path("c/<slug:slug>/import/jobs/<int:import_job_id>/", views.campaign_import_job, name="campaign_import_job"),
    path("c/<slug:slug>/qrels.txt", views.export_qrels_view, name="export_qrels"),
    path("c/<slug:slug>/topics/", views.topics, name="topics"),
    path("c/<slug:slug>/topics/<topic:topic>/edit/", settings_views.topic_edit, name="topic_edit"),
    path("c/<slug:slug>/relevance/", views.relevance, name="relevance"),
    path("c/<slug:slug>/relevance/<int:topic_id>/", views.relevance_topic, name="relevance_topic"),
    path("c/<slug:slug>/relevance.csv", views.relevance_csv, name="relevance_csv"),
    path("c/<slug:slug>/judgments/<str:table>.csv", views.judgments_csv, name="judgments_csv"),
    path("c/<slug:slug>/topics.<str:suffix>", views.topics_download, name="topics_download"),
    path("c/<slug:slug>/document/", document_views.document, name="document"),
    path("c/<slug:slug>/pool/", views.pool, name="pool"),
    path("c/<slug:slug>/pool/preview/", views.pool_preview, name="pool_preview"),
    path("c/<slug:slug>/pool/build/", views.pool_build, name="pool_build"),
    path("c/<slug:slug>/pool/late-runs/", views.pool_add_late_runs, name="pool_add_late_runs"),
    path("c/<slug:slug>/pool/status/", views.pool_status, name="pool_status"),
    # Judging: the assessor's topics and judging page; the organizer's assignments and progress.
    path("assess/", assess_views.assess_home, name="assess_home"),
    path("c/<slug:slug>/assess/<topic:topic>/", assess_views.assess_next, name="assess_next"),
    path("c/<slug:slug>/assess/<topic:topic>/judged/", assess_views.assess_judged, name="assess_judged"),
    path("c/<slug:slug>/assess/<topic:topic>/highlight/", assess_views.assess_highlight, name="assess_highlight"),
    path("c/<slug:slug>/assess/<topic:topic>/claims/", assess_views.assess_claims, name="assess_claims"),
    # A document's page sits under its queue's and its actions under it: the panel builds their addresses
    # from the queue's (_document_urls).
    path("c/<slug:slug>/assess/<topic:topic>/<int:document>/", assess_views.assess_document, name="assess_document"),
    path("c/<slug:slug>/assess/<topic:topic>/<int:document>/judge/", assess_views.assess_judge, name="assess_judge"),
    path("c/<slug:slug>/assess/<topic:topic>/<int:document>/later/", assess_views.assess_later, name="assess_later"),
    path("c/<slug:slug>/assess/<topic:topic>/<int:document>/<str:direction>/", assess_views.assess_step,
         name="assess_step"),
    path("c/<slug:slug>/assignments/", assess_views.assignments, name="assignments"),
    path("c/<slug:slug>/assignments/distribute/", assess_views.assignments_distribute, name="assignments_distribute"),
    path("c/<slug:slug>/assignments/<topic:topic>/", assess_views.assignment_topic, name="assignment_topic"),
    path("c/<slug:slug>/assignments/<topic:topic>/rejudge/", assess_views.assignment_rejudge, name="assignment_rejudge"),
    path("c/<slug:slug>/progress/", assess_views.assessing_progress, name="assessing_progress"),
    # Agreement dashboard and adjudication (organizers)
    path("c/<slug:slug>/agreement/", agreement_views.agreement, name="agreement"),
    path("c/<slug:slug>/agreement/<str:table>.csv", agreement_views.agreement_csv, name="agreement_csv"),
    path("c/<slug:slug>/adjudication/", agreement_views.adjudication, name="adjudication"),
    path("c/<slug:slug>/notes/", agreement_views.notes, name="notes"),
    path("c/<slug:slug>/notes/<int:judgment_id>/", agreement_views.note_handled, name="note_handled"),
    path("c/<slug:slug>/adjudication/policy/", agreement_views.adjudication_policy, name="adjudication_policy"),
    path(
        "c/<slug:slug>/adjudication/<int:topic_id>/<int:document_id>/",
        agreement_views.adjudication_document,
        name="adjudication_document",
    ),
]
