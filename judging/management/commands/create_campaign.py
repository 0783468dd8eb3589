from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from judging.models import Campaign, parse_scale


class Command(BaseCommand):
    help = "Create a campaign (a TREC-style track)."

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
        if Campaign.objects.filter(slug=options["slug"]).exists():
            raise CommandError(f"a campaign with slug {options['slug']!r} already exists")
        try:
            scale = parse_scale(options["scale"])
        except ValueError as exc:
            raise CommandError(f"--scale: {exc}") from None
        if options["depth"] < 1:
            raise CommandError(f"--depth {options['depth']} must be at least 1")
        guidelines = ""
        if options["guidelines"]:
            try:
                guidelines = Path(options["guidelines"]).read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError) as exc:
                raise CommandError(f"--guidelines {options['guidelines']}: {exc}") from None
        campaign = Campaign(
            slug=options["slug"],
            name=options["name"] or options["slug"],
            scale=scale,
            relevant_from=options["relevant_from"],
            depth=options["depth"],
            guidelines=guidelines,
        )
        try:
            campaign.full_clean()
        except ValidationError as exc:
            raise CommandError("; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())) from None
        campaign.save()
        self.stdout.write(f"Created campaign {campaign.slug!r}: grades {campaign.grades}, depth {campaign.depth}")
