"""Cost of one judge-save request in instructions: steady where the load test's times are not.

Run from the repository root (PostgreSQL on 127.0.0.1:5432, Redis on 127.0.0.1:6379; valgrind
from Debian: ``apt-get install valgrind``)::

    .venv/bin/python bench/bench_judging_cost.py [--requests 200] [--assessors 10]
        [--database postgres://postgres:postgres@127.0.0.1:5432/bench_judging] [--redis redis://127.0.0.1:6379/8]

The load test (``bench_judging_load.py``) measures what counts, latency and judgments per
second, but on a shared virtual machine its figures swing by a third from one run to the next,
with the same code: too much to tell whether a change saved 5 %. This script counts the CPU
instructions the web process executes per judge-save request, with callgrind, which repeats to
half a percent (7.451 and 7.482 M in two runs).

It writes the load test's campaign, then runs Django's WSGI handler in one process under
callgrind, as the load test's assessors use it: each request posts a grade with htmx and gets
the next document's panel. Instruments are on for ``--requests`` requests only, after a warm-up
(not the start-up, the imports or the campaign). gunicorn's part is not counted (measured once
with a gunicorn worker under callgrind: about 1 M instructions per request on top), nor
PostgreSQL's or Redis's.

The same run counts the floor too: a signed-in request to a view that does nothing, through the
same middleware, session and user. What the judge-save request costs above it is the app's own
work (the form, the statements, the panel), the part a change to the app can shrink.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_judging_load as load  # noqa: E402  the campaign, the sessions and the page's form
from django.contrib.auth.decorators import login_required  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.urls import path  # noqa: E402

WARM_UP = 50


@login_required
def floor(request):
    """The least a signed-in request costs here: the middleware, the session and the user, no work."""
    return HttpResponse("ok")


urlpatterns = [path("floor/", floor)]  # the URLconf of the floor's run (--floor)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200, help="judge-save requests counted")
    parser.add_argument("--assessors", type=int, default=10, help="assessors taking turns (one topic each)")
    parser.add_argument("--database", default=os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres:postgres@127.0.0.1:5432/bench_judging"))
    parser.add_argument("--redis", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/8"))
    parser.add_argument("--inside", type=Path, help=argparse.SUPPRESS)  # the run under callgrind: the clients' file
    parser.add_argument("--floor", action="store_true", help=argparse.SUPPRESS)  # that run counts the floor
    args = parser.parse_args()
    if not 1 <= args.assessors <= load.TOPICS:
        parser.error(f"--assessors {args.assessors}: one topic each, at most {load.TOPICS}")
    if args.requests < 1:
        parser.error(f"--requests {args.requests} must be at least 1")
    for name, url in (("database", args.database), ("redis", args.redis)):
        if urlsplit(url).hostname not in ("127.0.0.1", "localhost"):
            parser.error(f"{name} {url!r} is not on this machine")
    return args


def environment(args) -> dict:
    return {"DATABASE_URL": args.database, "REDIS_URL": args.redis, "DEBUG": "false", "ALLOWED_HOSTS": "127.0.0.1",
            "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-judging-cost-" + "x" * 40)}


def main() -> None:
    args = parse_args()
    if args.inside:
        return measure(args)
    if not (shutil.which("valgrind") and shutil.which("callgrind_control")):
        sys.exit("valgrind is missing: apt-get install valgrind (it counts the instructions)")
    load.ensure_database(args.database)
    env = {**os.environ, **environment(args)}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    os.environ.update(environment(args))
    load.setup_django(args.database)
    print(f"generating {load.TOPICS} topics × {load.DOCUMENTS} documents and {args.assessors} assessors…", flush=True)
    clients = load.generate(args.assessors)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "clients.json").write_text(json.dumps(clients))
        print(f"counting {args.requests} judge-save requests under callgrind (about a minute per 200)…", flush=True)
        judge_cost = count(args, Path(tmp), env)
        print(f"counting {args.requests} requests to a view that does nothing…", flush=True)
        floor_cost = count(args, Path(tmp), env, "--floor")
    print(f"web process, in Django's WSGI handler ({args.requests} requests, PostgreSQL with prepared statements, "
          f"sessions in Redis):\n"
          f"  judge-save request            {judge_cost / 1e6:6.3f} M instructions\n"
          f"  signed-in view doing nothing  {floor_cost / 1e6:6.3f} M instructions (the same middleware, session and user)\n"
          f"  the app's own work            {(judge_cost - floor_cost) / 1e6:6.3f} M instructions, judge-save {judge_cost / floor_cost:.1f} × the floor")


def count(args, tmp: Path, env: dict, *options: str) -> float:
    """Instructions per request of the run under callgrind."""
    out = tmp / "callgrind.out"
    command = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
               sys.executable, __file__, "--inside", str(tmp / "clients.json"), *options,
               "--requests", str(args.requests), "--database", args.database, "--redis", args.redis]
    subprocess.run(command, cwd=ROOT, env=env, check=True, stderr=subprocess.DEVNULL)
    totals = [line for line in out.read_text(errors="replace").splitlines() if line.startswith("totals:")]
    return int(totals[0].split()[1]) / args.requests


def measure(args) -> None:
    """Under callgrind: warm up, then count ``--requests`` judge-save requests (or, with --floor, floor requests)."""
    os.environ.update(environment(args))
    load.setup_django(args.database)
    from django.conf import settings
    from django.core.wsgi import get_wsgi_application

    application = get_wsgi_application()
    clients = json.loads(args.inside.read_text())

    def call(method: str, path: str, client: dict, body: bytes = b"", htmx: bool = False) -> tuple[str, dict, str]:
        route, _, query = path.partition("?")
        environ = {
            "REQUEST_METHOD": method, "PATH_INFO": route, "QUERY_STRING": query, "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1", "HTTP_HOST": "127.0.0.1", "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "CONTENT_LENGTH": str(len(body)),
            "HTTP_COOKIE": client["cookie"], "HTTP_X_CSRFTOKEN": client["csrf"],
        }
        if htmx:
            environ["HTTP_HX_REQUEST"] = "true"
        if method == "POST":
            environ["CONTENT_TYPE"] = "application/x-www-form-urlencoded"
        reply = {}

        def start_response(status, headers, exc_info=None):
            reply.update(status=status, headers=dict(headers))

        text = b"".join(application(environ, start_response)).decode()
        return reply["status"], reply["headers"], text

    def floor_request(client: dict) -> None:
        status = call("GET", "/floor/", client, htmx=True)[0]
        if not status.startswith("200"):
            sys.exit(f"floor request: HTTP {status}")

    if args.floor:
        settings.ROOT_URLCONF = __name__  # this script's urlpatterns: the floor's view alone
        request = floor_request
    else:
        request = judge_request(clients, call)
    for i in range(WARM_UP):
        request(clients[i % len(clients)])
    subprocess.run(["callgrind_control", "--instr=on", str(os.getpid())], check=True, capture_output=True)
    for i in range(args.requests):
        request(clients[i % len(clients)])
    subprocess.run(["callgrind_control", "--instr=off", str(os.getpid())], check=True, capture_output=True)


def judge_request(clients: list[dict], call):
    """Open each client's queue as the page does; each call then posts a grade and keeps the next panel."""
    rng = random.Random(7)
    panels = {}
    for client in clients:  # resume, then the document
        status, headers, _ = call("GET", f"/c/{load.SLUG}/assess/{client['topic']}/?tab=bench-tab-{client['user_id']}",
                                  client)
        if not status.startswith("302"):
            sys.exit(f"resuming the queue: HTTP {status}")
        panels[client["user_id"]] = call("GET", headers["Location"], client)[2]

    def judge(client: dict) -> None:
        submit = load.judging_submit(panels[client["user_id"]], rng.choice((0, 1, 2)))
        if submit is None:
            sys.exit(f"assessor {client['user_id']}'s queue ran out: use fewer --requests or more --assessors")
        action, _, data = submit
        status, _, panels[client["user_id"]] = call("POST", action, client, data, htmx=True)
        if not status.startswith("200"):
            sys.exit(f"judge-save request: HTTP {status}")

    return judge


if __name__ == "__main__":
    main()
