from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path, reverse_lazy

from config.health import healthz, readyz
from evaluation.api import api, unknown_path

# Django's account pages, without the mailed password reset: a new person chooses a first password
# through their invitation's link (campaigns/people.py, judging/invitation_views.py); a forgotten
# password is reset by a site administrator in the admin.
accounts = [
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password/", auth_views.PasswordChangeView.as_view(success_url=reverse_lazy("password_changed")),
         name="password_change"),
    path("password/changed/", auth_views.PasswordChangeDoneView.as_view(), name="password_changed"),
]



def superusers_only(request) -> bool:
    """The admin is the site administrators' (active superusers): its pages are not scoped to
    campaigns, so an organizer there would see and change every other campaign's rows. Organizers
    work on their campaigns' pages (campaigns.access); staff status alone opens nothing."""
    return request.user.is_active and request.user.is_superuser


admin.site.has_permission = superusers_only

urlpatterns = [
    path("healthz", healthz),  # public and unnamed: for monitors and load balancers (config/health.py, tests/test_health.py)
    path("readyz", readyz),
    path("admin/", admin.site.urls),
    # The run submission API: bearer tokens only, no session, so no CSRF (evaluation/api.py).
    path("api/", api.urls),
    re_path(r"^api/(?P<rest>.*)$", unknown_path),
    path("accounts/", include(accounts)),
    path("", include("judging.urls")),
    path("", include("evaluation.urls")),
]
