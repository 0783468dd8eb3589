from django.urls import path

from evaluation import views

urlpatterns = [
    path("c/<slug:slug>/runs/<str:tag>.txt", views.run_download, name="run_download"),
]
