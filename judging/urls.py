from django.urls import path

from judging import views

urlpatterns = [
    path("", views.home, name="home"),
    path("c/<slug:slug>/", views.campaign, name="campaign"),
    path("c/<slug:slug>/import/", views.campaign_import, name="campaign_import"),
    path("c/<slug:slug>/import/<str:kind>/", views.campaign_import_kind, name="campaign_import_kind"),
    path("c/<slug:slug>/qrels.txt", views.export_qrels_view, name="export_qrels"),
]
