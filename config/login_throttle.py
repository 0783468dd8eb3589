"""Login throttling: django-axes, with a limit per account and address and a looser one per address.

django-axes (Jazzband, maintained since 2008) records failed logins in the database and refuses
further attempts for a cool-off period; its authentication backend refuses them *before* the
password is checked, so the right password during a lockout fails too. It counts one limit over
its lockout parameters. Here:

* ``LOGIN_FAILURES_PER_ACCOUNT`` (5) failures of one username from one address lock that pair
  out (axes' own rule, ``AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]``): someone
  guessing one account's password is stopped, while the account's owner elsewhere is not;
* past ``LOGIN_FAILURES_PER_ADDRESS`` (50) failures from one address, whatever the usernames, the
  address is distrusted (:class:`LoginThrottle`): from then on one failure locks an account out
  there, not five, so someone trying many accounts gets one guess at each. The address itself is
  never locked out: whoever shares it (a lab of 200 behind one NAT) and has not failed there
  logs in as usual, so one person at that address cannot lock everybody out;
* both for ``LOGIN_COOLOFF_MINUTES`` (15) after the last counted failure. Attempts during a
  lockout are refused and not counted, so the wait a locked-out user is told holds.

The client address is the connection's unless ``FORWARDED_PROXY_COUNT`` says how many proxies
in front append to X-Forwarded-For (:func:`client_address`).
"""

from __future__ import annotations

import ipaddress

from axes.attempts import get_cool_off_threshold
from axes.backends import AxesStandaloneBackend
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def client_address(request: HttpRequest) -> str | None:
    """The address a login attempt came from.

    With ``FORWARDED_PROXY_COUNT`` = N > 0, the N-th address from the right of X-Forwarded-For:
    each proxy appends the address it was connected from (nginx's ``$proxy_add_x_forwarded_for``),
    so the right-most N entries were written by the proxies, and anything to their left by the
    client, who can write what it likes. Otherwise, or when the header has fewer entries than
    that or not an address there (a request that did not come through the proxies), the
    connection's own address. django-ipware, axes' default for this, counts the proxies listed
    in the header rather than those in front; with one nginx on the machine its count of 1
    picks the client-written entry, hence this function.
    """
    proxies = settings.FORWARDED_PROXY_COUNT
    if proxies:
        hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        if len(hops) >= proxies:
            try:
                return str(ipaddress.ip_address(hops[-proxies]))
            except ValueError:
                pass
    return request.META.get("REMOTE_ADDR")


class LoginThrottle(AxesDatabaseHandler):
    """axes' database handler (per account and address), stricter per account at a distrusted address.

    Failures are axes' ``AccessAttempt`` rows, one per username, address and user agent; the
    address's count and the account's are their sums within the cool-off, so they need no table
    of their own.
    """

    def _failures(self, request: HttpRequest, **match) -> int:
        attempts = AccessAttempt.objects.filter(ip_address=request.axes_ip_address,
                                                attempt_time__gte=get_cool_off_threshold(request), **match)
        return attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0

    def address_failures(self, request: HttpRequest) -> int:
        return self._failures(request)

    def distrusted_and_failed(self, request: HttpRequest, credentials: dict | None) -> bool:
        """Is the address past its limit, and has this account failed there (within the cool-off)?"""
        username = get_client_username(request, credentials)
        return (username is not None and self.address_failures(request) >= settings.LOGIN_FAILURES_PER_ADDRESS
                and self._failures(request, username=username) > 0)

    def is_locked(self, request: HttpRequest, credentials: dict | None = None) -> bool:
        return super().is_locked(request, credentials) or self.distrusted_and_failed(request, credentials)

    def user_login_failed(self, sender, credentials: dict, request=None, **kwargs) -> None:
        super().user_login_failed(sender, credentials, request, **kwargs)
        # At a distrusted address the failure that locks the account is answered with the lockout page too.
        if request is not None and not request.axes_locked_out and self.distrusted_and_failed(request, credentials):
            request.axes_locked_out = True
            request.axes_credentials = credentials


class LoginThrottleBackend(AxesStandaloneBackend):
    """axes' backend, first in AUTHENTICATION_BACKENDS: refuses a locked-out login before the password is checked.

    ``authenticate()`` called without a request (``manage.py shell``, a script) is not a login
    over the web, has no address to throttle, and passes on to the next backend; axes would
    raise instead. Django's login view and the admin's always pass the request.
    """

    def authenticate(self, request: HttpRequest | None, username: str | None = None,
                     password: str | None = None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username, password, **kwargs)


def locked_out(request: HttpRequest, original_response: HttpResponse | None = None,
               credentials: dict | None = None) -> HttpResponse:
    """The login page again, saying why and for how long, with 429 Too Many Requests (axes' AXES_LOCKOUT_CALLABLE)."""
    minutes = round(get_cool_off(request).total_seconds() / 60)
    username = (credentials or {}).get("username") or request.POST.get("username", "")
    context = {
        "form": AuthenticationForm(request, initial={"username": username}),
        "next": request.POST.get("next") or request.GET.get("next", ""),
        "locked_out": f"Too many failed logins: logging in from here is paused for {minutes} minutes after the "
                      "last failed attempt, even with the right password. Wait, then try again; a forgotten "
                      "password is reset by a site administrator.",
    }
    return render(request, "registration/login.html", context, status=429)
