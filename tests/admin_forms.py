"""Submitting Django admin forms from tests as a browser would, the unchanged fields included."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from django.urls import reverse


class _FormFields(HTMLParser):
    """The values an unchanged submit of the admin's change form would send."""

    def __init__(self):
        super().__init__()
        self.data, self._select, self._textarea = {}, None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "button", "file"):
            if a.get("type") not in ("checkbox", "radio"):
                self.data[name] = a.get("value", "")
            elif "checked" in a:
                self.data[name] = a.get("value", "on")
        elif tag == "select" and name:
            self._select = name
            self.data.setdefault(name, [] if "multiple" in a else "")  # a multiple select sends each selected option
        elif tag == "option" and self._select and "selected" in a:
            if isinstance(self.data[self._select], list):
                self.data[self._select].append(a.get("value", ""))
            else:
                self.data[self._select] = a.get("value", "")
        elif tag == "textarea" and name:
            self._textarea = name
            self.data[name] = ""

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._textarea:
            self.data[self._textarea] += data


def admin_save(client, obj, **changes):
    """Submit ``obj``'s admin change form with ``changes``; the admin redirects when it saved."""
    url = reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])
    form = _FormFields()
    form.feed(client.get(url).content.decode())
    data = {name: value for name, value in form.data.items() if name != "csrfmiddlewaretoken"}
    response = client.post(url, {**data, **{name: str(value) for name, value in changes.items()}, "_save": "Save"})
    assert response.status_code == 302, re.findall(r'class="errorlist[^"]*"[^>]*>(.*?)</ul>', response.content.decode(), re.S)


def admin_delete(client, obj):
    url = reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_delete", args=[obj.pk])
    assert client.post(url, {"post": "yes"}).status_code == 302
