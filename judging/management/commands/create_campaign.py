from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from judging.forms import CampaignForm

#: The command's name for each field of the form, in its error messages.
OPTION = {"slug": "SLUG", "name": "--name", "scale": "--scale", "relevant_from": "--relevant-from",
          "depth": "--depth", "guidelines": "--guidelines", "__all__": "campaign"}


class Command(BaseCommand):
    help = ("Create a campaign (a TREC-style track) and name its organizers; the home page's New campaign does the "
            "same, its creator becoming the organizer. Without --organizer only superusers manage the campaign.")

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--name", help="Display name (default: the slug).")
        parser.add_argument(
            "--scale",
            default="binary",
            help='Grades with labels, lowest first: "0:Not relevant,1:Relevant,2:Highly relevant" (default: binary).',
        )
        parser.add_argument("--relevant-from", type=int, default=1, help="Lowest relevant grade (default 1).")
        parser.add_argument("--depth", type=int, default=1000, help="Evaluation depth (default 1000).")
        parser.add_argument("--guidelines", metavar="FILE", help="Guidelines for assessors: a UTF-8 text file.")
        parser.add_argument("--organizer", metavar="USERNAME", action="append", default=[],
                            help="An existing account that organizes the campaign (repeat for several).")

    def handle(self, *args, **options):
        guidelines = ""
        if options["guidelines"]:
            try:
                guidelines = Path(options["guidelines"]).read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError) as exc:
                raise CommandError(f"--guidelines {options['guidelines']}: {exc}") from None
        form = CampaignForm({
            "slug": options["slug"], "name": options["name"] or options["slug"], "scale": options["scale"],
            "relevant_from": options["relevant_from"], "depth": options["depth"], "guidelines": guidelines,
        })
        if not form.is_valid():
            raise CommandError("; ".join(f"{OPTION.get(field, field)}: {' '.join(errors)}"
                                         for field, errors in form.errors.items()))
        users = get_user_model().objects
        organizers = [users.filter(username=name, is_active=True).first() for name in options["organizer"]]
        unknown = [name for name, user in zip(options["organizer"], organizers) if user is None]
        if unknown:
            raise CommandError(f"--organizer: no active account {', '.join(map(repr, unknown))}")
        with transaction.atomic():
            campaign = form.save()
            campaign.organizers.add(*organizers)
        self.stdout.write(f"Created campaign {campaign.slug!r}: grades {campaign.grades}, depth {campaign.depth}")
        names = ", ".join(sorted({user.get_username() for user in organizers}))
        self.stdout.write(f"Organizers: {names}" if names else
                          "No organizer named: only superusers manage it until one is named (--organizer, or the admin)")
