from django.urls import path

from evaluation import views

urlpatterns = [
    path("c/<slug:slug>/runs/<str:tag>.txt", views.run_download, name="run_download"),
]

# Robustness reports (issue 7)
from evaluation import robustness_views  # noqa: E402

urlpatterns += [
    path("c/<slug:slug>/robustness/", robustness_views.robustness_list, name="robustness"),
    path("c/<slug:slug>/robustness/<int:pk>/", robustness_views.robustness_report, name="robustness_report"),
    path("c/<slug:slug>/robustness/<int:pk>.csv", robustness_views.robustness_csv, name="robustness_csv"),
]
