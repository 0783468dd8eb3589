"""Form fields the app's forms share where Django's own would let a hostile value reach the database."""

from __future__ import annotations

from django import forms
from django.db import connection


class ModelMultipleChoiceField(forms.ModelMultipleChoiceField):
    """Django's field, refusing a key its primary-key column cannot hold as an invalid choice.

    Django looks the chosen keys up with ``pk__in``, which, unlike ``pk=``, does not check the
    range: a 20-digit key raised ``OverflowError`` (SQLite) or ``NumericValueOutOfRange``
    (PostgreSQL), a 500, where any other unknown key is a form error.
    """

    def _check_values(self, value):
        meta = self.queryset.model._meta
        field = meta.get_field(self.to_field_name) if self.to_field_name else meta.pk
        if field.get_internal_type() not in connection.ops.integer_field_ranges:
            return super()._check_values(value)
        low, high = connection.ops.integer_field_range(field.get_internal_type())
        for pk in value:
            try:
                number = int(str(pk).strip())
            except ValueError:
                continue  # Django's own check names it
            if (low is not None and number < low) or (high is not None and number > high):
                raise forms.ValidationError(self.error_messages["invalid_choice"], code="invalid_choice",
                                            params={"value": pk})
        return super()._check_values(value)
