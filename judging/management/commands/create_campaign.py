from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from judging.forms import CampaignForm

#: The command's name for each field of the form, in its error messages.
OPTION = {"slug": "SLUG", "name": "--name", "scale": "--scale", "relevant_from": "--relevant-from",
          "depth": "--depth", "guidelines": "--guidelines", "__all__": "campaign"}


class Command(BaseCommand):
    help = "Create a campaign (a TREC-style track); the organizer's page campaigns → New campaign does the same."

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
        campaign = form.save()
        self.stdout.write(f"Created campaign {campaign.slug!r}: grades {campaign.grades}, depth {campaign.depth}")
