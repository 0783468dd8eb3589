from django.core.management.base import BaseCommand

from judging.demo import demo_summary, load_demo


class Command(BaseCommand):
    help = "Create (or re-create) the demo campaign and one user per role, and print their credentials."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000/", help="Where the app will be served.")

    def handle(self, *args, **options):
        credentials = load_demo()
        self.stdout.write(demo_summary(credentials, options["url"]))
