"""Forms of the judging pages: the assessor's judging form, the organizer's assignment, campaign and people forms."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model

from campaigns import people
from judging import assessing, assigning
from campaigns.form_fields import ModelMultipleChoiceField
from campaigns.models import Campaign, Topic, parse_scale
from judging.models import HIGHLIGHT_MAX
from campaigns.single_line import validate_single_line

ID_FIELD = {"min_length": 8, "max_length": 32}


class JudgeForm(forms.Form):
    """One judging submit: the grade, the ids that make it idempotent, active time and the note.

    ``seconds`` is the active time measured in the page (JavaScript); without JavaScript the
    server counts from ``shown``, the time the form was rendered (epoch seconds).
    """

    grade = forms.IntegerField()
    submission = forms.RegexField(regex=assessing.ID_PATTERN, **ID_FIELD)
    tab = forms.RegexField(regex=assessing.ID_PATTERN, **ID_FIELD)
    seconds = forms.FloatField(required=False, min_value=0)
    shown = forms.FloatField(required=False, min_value=0)
    note = forms.CharField(required=False, max_length=assessing.NOTE_MAX, strip=True)

    def __init__(self, *args, grades: list[int], **kwargs):
        super().__init__(*args, **kwargs)
        self.grades = grades

    def clean_grade(self) -> int:
        grade = self.cleaned_data["grade"]
        if grade not in self.grades:
            raise forms.ValidationError(f"grade {grade} is not on this campaign's scale {self.grades}")
        return grade

    def active_seconds(self, now: float) -> float | None:
        if self.cleaned_data.get("seconds") is not None:
            return self.cleaned_data["seconds"]
        shown = self.cleaned_data.get("shown")
        return max(now - shown, 0.0) if shown else None


class LaterForm(forms.Form):
    tab = forms.RegexField(regex=assessing.ID_PATTERN, **ID_FIELD)


class HighlightForm(forms.Form):
    highlight = forms.CharField(required=False, max_length=HIGHLIGHT_MAX, strip=True, label="Also highlight")


def assessors(campaign: Campaign | None = None):
    """Users the organizer can assign: the campaign's active assessors (``campaigns.people.assessors_of``);
    none without a campaign (the fields' class-level querysets, replaced in ``__init__``)."""
    if campaign is None:
        return get_user_model().objects.none()
    return people.assessors_of(campaign)


class AssignmentForm(forms.Form):
    """One topic's assessors: a primary, second assessors, and the overlap the seconds judge."""

    primary = forms.ModelChoiceField(queryset=assessors(), required=False, empty_label="— nobody —")
    seconds = ModelMultipleChoiceField(queryset=assessors(), required=False, label="Second assessors")
    # Choices are the campaign's active assessors: an id of anyone else is an invalid choice.
    overlap = forms.CharField(required=False, max_length=16, help_text="25 documents, 20% or 0.2 of the order")

    def __init__(self, campaign: Campaign, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["primary"].queryset = assessors(campaign)
        self.fields["seconds"].queryset = assessors(campaign)

    def clean_overlap(self) -> str:
        overlap = self.cleaned_data["overlap"]
        if overlap.strip():
            try:
                assigning.parse_overlap(overlap)
            except ValueError as exc:
                raise forms.ValidationError(str(exc)) from None
        return overlap


class DistributeForm(forms.Form):
    """Assign every unassigned topic: primaries in turn, and optionally the next one as second assessor."""

    assessors = ModelMultipleChoiceField(queryset=assessors())
    overlap = forms.CharField(required=False, max_length=16, help_text="empty: no second assessors")

    def __init__(self, campaign: Campaign, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["assessors"].queryset = assessors(campaign)


class CampaignForm(forms.ModelForm):
    """A new campaign (the page and ``create_campaign`` share it): the scale is written as text."""

    scale = forms.CharField(
        initial="binary", max_length=2000,
        help_text='Grades with labels, lowest first: "0:Not relevant,1:Relevant,2:Highly relevant"; '
                  '"binary" for 0:Not relevant,1:Relevant.',
    )
    depth = forms.IntegerField(initial=1000, min_value=1, help_text="Evaluation depth: ranks per topic scored.")

    class Meta:
        model = Campaign
        fields = ["name", "slug", "description", "scale", "relevant_from", "depth", "guidelines"]
        help_texts = {"slug": "Its address: /c/SLUG/ (letters, digits, - and _)."}
        widgets = {"description": forms.Textarea(attrs={"rows": 2}), "guidelines": forms.Textarea(attrs={"rows": 6})}

    def clean_scale(self) -> list[dict]:
        try:
            return parse_scale(self.cleaned_data["scale"])
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None


def scale_text(scale: list[dict]) -> str:
    """A scale as the form writes it: ``0:Not relevant,1:Relevant``."""
    return ",".join(f"{entry['grade']}:{entry['label']}" for entry in scale)


class CampaignSettingsForm(CampaignForm):
    """A campaign's settings, edited on its settings page: all but its address. The scale is fixed
    once anything is judged (grades in use would change meaning)."""

    runs_due = forms.DateTimeField(
        required=False, help_text="Uploads and withdrawals close then, UTC (YYYY-MM-DD HH:MM); empty for no deadline.")

    class Meta(CampaignForm.Meta):
        fields = ["name", "description", "scale", "relevant_from", "depth", "guidelines", "runs_per_team", "runs_due"]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.initial["scale"] = scale_text(self.instance.scale)
        if self.instance.judgments.exists() or self.instance.adjudications.exists():
            self.fields["scale"].disabled = True
            self.fields["scale"].help_text = "Fixed: the campaign has judgments on this scale."

    def clean_scale(self) -> list[dict]:
        if self.fields["scale"].disabled:
            return self.instance.scale
        return super().clean_scale()


class TopicForm(forms.ModelForm):
    """What participants and assessors read of a topic (its identifier stays: runs and qrels name it)."""

    class Meta:
        model = Topic
        fields = ["title", "description", "narrative"]
        widgets = {"title": forms.TextInput(), "description": forms.Textarea(attrs={"rows": 3}),
                   "narrative": forms.Textarea(attrs={"rows": 5})}


class CloneForm(forms.Form):
    name = forms.CharField(max_length=200, validators=[validate_single_line])
    slug = forms.SlugField(max_length=64, help_text="The new campaign's address: /c/SLUG/.")

    def clean_slug(self) -> str:
        slug = self.cleaned_data["slug"]
        if Campaign.objects.filter(slug=slug).exists():
            raise forms.ValidationError(f"a campaign at /c/{slug}/ exists already")
        return slug


class PeopleForm(forms.Form):
    """Accounts pasted one per line (``campaigns.people`` reads them)."""

    lines = forms.CharField(widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false"}), max_length=200_000)
