"""docs/deployment.md and deploy/ do what the page says, as far as a test machine can tell.

The page marks each shell block by its first line: ``# root`` (system steps: apt, users,
systemctl; not run here), ``# app`` (the application's steps, run here in order) and
``# app: while running`` (run once the services are up). The app's blocks run verbatim with two
substitutions: ``/opt/assess`` becomes this checkout and ``runuser -u assess --`` is dropped (the
test runs as whoever runs the tests). Their environment file is the page's own: its heredoc is run
by bash (generating the secret key as the page does), then the lines naming this machine's
services are replaced: the test database, the shared Redis's database 11, a ``VAR_DIR`` in a
temporary directory, a free port. Everything else (``SECURE_HTTPS=true``, the site's name and
origin, the connection age, gunicorn's shape) is kept, so the requests below are made as the TLS
proxy makes them: ``Host: assess.example.org`` and ``X-Forwarded-Proto: https``.

gunicorn and the workers are started with the ``ExecStart`` lines of the unit files in
deploy/systemd/, with systemd's substitutions done here (``%i``, ``%H``, ``${NAME}`` from the
unit's ``Environment=`` and the environment file). When nginx is installed, the page's server
block runs too, in front of gunicorn with a self-signed certificate, and the organizer signs in
through it over HTTPS. The backup section's ``pg_dump`` and ``pg_restore`` lines run with their
options as written on the test database (connected over TCP instead of as the user postgres, the
role being the test database's owner instead of ``assess``).

The unit files themselves are checked with ``systemd-analyze verify``, which refuses an
``ExecStart`` whose program does not exist: the units name /opt/assess/.venv/bin/..., so they are
verified as copies with /opt/assess replaced by this checkout (whose .venv has gunicorn and
celery). verify prints unknown keys and bad values as warnings and still exits 0, so any output
fails the test. It needs no running systemd (this test machine has none) and does not check that
the user ``assess`` exists.
"""

from __future__ import annotations

import html
import http.client
import json
import os
import re
import shlex
import shutil
import signal
import socket
import ssl
import stat
import subprocess
import time
import urllib.parse
from pathlib import Path

import psycopg
import pytest

from tests import processes
from tests.conftest import SPARE_REDIS_URL

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "deployment.md"
UNITS = ROOT / "deploy" / "systemd"
REDIS_URL = SPARE_REDIS_URL
#: What a production environment file must set (issue #35).
REQUIRED = {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS", "SECURE_HTTPS",
            "DATABASE_CONN_MAX_AGE", "VAR_DIR"}


# --------------------------------------------------------------------------------------------
# Reading the page and the units


def fenced_blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", DOC.read_text(), flags=re.S | re.M)


def shell_blocks(marker: str) -> list[str]:
    """The ``sh`` blocks whose first line is ``marker``, in the page's order."""
    return [block for block in fenced_blocks("sh") if block.splitlines()[0] == marker]


def as_run_here(block: str) -> str:
    return block.replace("runuser -u assess -- ", "").replace("/opt/assess", str(ROOT))


def env_heredoc() -> str:
    """The page's ``cat > /etc/assess/env <<EOF ... EOF`` command."""
    found = [m.group(0) for block in shell_blocks("# root")
             for m in re.finditer(r"^cat > /etc/assess/env <<EOF\n.*?^EOF$", block, flags=re.S | re.M)]
    assert len(found) == 1, "docs/deployment.md writes /etc/assess/env with one heredoc"
    return found[0]


def unit_settings(name: str) -> dict[str, list[str]]:
    """``key -> [values]`` of a unit file's ``[Service]`` section."""
    settings: dict[str, list[str]] = {}
    section = None
    for line in (UNITS / name).read_text().splitlines():
        if line.startswith("["):
            section = line
        elif section == "[Service]" and "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            settings.setdefault(key, []).append(value)
    return settings


def read_env_file(path: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if line and not line.startswith("#"))
    return {key: value for key, value in pairs}


def test_every_shell_block_is_marked_root_or_app():
    for block in fenced_blocks("sh"):
        assert block.splitlines()[0] in {"# root", "# app", "# app: while running"}, block


def test_the_documented_environment_sets_what_production_needs():
    names = set(re.findall(r"^([A-Z_]+)=", env_heredoc(), flags=re.M))
    assert REQUIRED <= names, REQUIRED - names
    assert "SECURE_HTTPS=true" in env_heredoc()
    # ... and only variables the app, gunicorn's configuration or the worker unit read
    read = (ROOT / "config" / "settings.py").read_text() + (ROOT / "deploy" / "gunicorn.conf.py").read_text()
    read += (UNITS / "assess-worker@.service").read_text() + (ROOT / "evaluation" / "measures" / "trec_scan.py").read_text()
    assert all(f'"{name}"' in read or "${" + name + "}" in read for name in names), names


def test_the_unit_files_verify(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    for unit in UNITS.glob("*.service"):
        (tmp_path / unit.name).write_text(unit.read_text().replace("/opt/assess", str(ROOT)))
    for name in ("assess-web.service", "assess-worker@w1.service"):
        done = subprocess.run([analyze, "verify", "--man=no", str(tmp_path / name)], capture_output=True, text=True)
        assert done.returncode == 0 and not done.stdout + done.stderr, (name, done.stdout + done.stderr)


def test_the_units_run_as_assess_with_restarts_and_a_read_only_system():
    for name in ("assess-web.service", "assess-worker@.service"):
        settings = unit_settings(name)
        assert settings["User"] == ["assess"] and settings["WorkingDirectory"] == ["/opt/assess"], name
        assert "/etc/assess/env" in settings["EnvironmentFile"], name
        assert settings["Restart"] == ["always"] and settings["ProtectSystem"] == ["strict"], name
        assert settings["ReadWritePaths"] == ["/var/lib/assess"] and settings["NoNewPrivileges"] == ["yes"], name
    assert "-n %i@%H" in unit_settings("assess-worker@.service")["ExecStart"][0]


# --------------------------------------------------------------------------------------------
# Running the app's part of the page (PostgreSQL)


@pytest.fixture
def postgres_only():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("gunicorn and the workers share the test database only on PostgreSQL; bin/test's PostgreSQL pass runs this")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Deployment:
    """The page's environment file for this machine, and the processes started from it."""

    def __init__(self, directory: Path):
        from django.db import connection

        self.directory = directory
        self.port = free_port()
        s = connection.settings_dict
        machine = {
            "DATABASE_URL": f"postgres://{s['USER']}:{s['PASSWORD']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}",
            "REDIS_URL": REDIS_URL,
            "VAR_DIR": str(directory / "var"),
            "WEB_BIND": f"127.0.0.1:{self.port}",
        }
        self.env_file = directory / "env"
        heredoc = env_heredoc().replace("/etc/assess/env", str(self.env_file))
        subprocess.run(["bash", "-euo", "pipefail", "-c", heredoc], check=True, env=dict(os.environ, DB_PASSWORD="unused"))
        self.documented = read_env_file(self.env_file)
        assert set(machine) <= set(self.documented)
        self.env_file.write_text("".join(f"{k}={machine.get(k, v)}\n" for k, v in self.documented.items()))
        self.settings = read_env_file(self.env_file)
        self.site = self.settings["ALLOWED_HOSTS"].split(",")[0]
        self.base_env = {k: v for k, v in os.environ.items()
                         if k not in {"DATABASE_URL", "ONLY_DATABASE_TESTS", "DATABASE_TEST_NAME", "VIRTUAL_ENV"}}
        self.base_env.update(ASSESS_ENV=str(self.env_file), PYTHONWARNINGS="ignore")  # Celery's warning about root
        self.processes: list[subprocess.Popen] = []

    def run_blocks(self, marker: str, **replace: str) -> str:
        output = ""
        for block in shell_blocks(marker):
            script = as_run_here(block)
            for old, new in replace.items():
                script = script.replace(old, new)
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=ROOT, env=self.base_env,
                                  capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, f"{script}\n{done.stdout}\n{done.stderr}"
            output += done.stdout
        return output

    def start_unit(self, name: str, instance: str = "") -> subprocess.Popen:
        """Run the unit's ExecStart as systemd would: its Environment=, then the environment file."""
        settings = unit_settings(name)
        env = dict(self.base_env)
        env.update(line.split("=", 1) for line in settings.get("Environment", []))
        env.update(self.settings)
        command = settings["ExecStart"][0].replace("/opt/assess", str(ROOT))
        command = command.replace("%i", instance).replace("%H", socket.gethostname())
        command = re.sub(r"\$\{(\w+)\}", lambda m: env[m.group(1)], command)
        assert "%" not in command and "$" not in command, command
        process = subprocess.Popen(shlex.split(command), cwd=ROOT, env=env)
        self.processes.append(process)
        return process

    def celery_ping(self, worker: str) -> bool:
        done = subprocess.run(
            [str(ROOT / ".venv/bin/celery"), "-A", "config", "inspect", "ping", "-d", worker, "--timeout", "1"],
            cwd=ROOT, env={**self.base_env, **self.settings}, capture_output=True, text=True, timeout=60,
        )
        return done.returncode == 0 and "pong" in done.stdout

    def stop(self) -> None:
        processes.stop(*self.processes, timeout=30)


def wait_for(condition, *, timeout: float, what: str, processes=()):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        for process in processes:
            if process.poll() is not None:
                pytest.fail(f"{what}: {process.args[0]} exited with {process.returncode}")
        time.sleep(0.3)
    pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")


class Browser:
    """Requests as a browser makes them through the proxy: cookies kept, the site's Host header."""

    def __init__(self, connect, site: str, headers: dict):
        self.connect, self.site, self.headers, self.cookies = connect, site, headers, {}

    def request(self, method: str, path: str, body: dict | None = None, headers: dict | None = None):
        connection = self.connect()
        all_headers = {"Host": self.site, **self.headers, **(headers or {})}
        if self.cookies:
            all_headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        data = None
        if body is not None:
            data = urllib.parse.urlencode(body)
            all_headers["Content-Type"] = "application/x-www-form-urlencoded"
        connection.request(method, path, body=data, headers=all_headers)
        response = connection.getresponse()
        text = response.read().decode()
        connection.close()
        for cookie in response.headers.get_all("Set-Cookie") or []:
            name, value = cookie.split(";", 1)[0].split("=", 1)
            self.cookies[name] = value
        return response, text

    def sign_in(self, username: str, password: str) -> None:
        response, page = self.request("GET", "/accounts/login/")
        assert response.status == 200, (response.status, page[:500])
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        origin = f"https://{self.site}"
        response, page = self.request(
            "POST", "/accounts/login/", {"csrfmiddlewaretoken": token, "username": username, "password": password},
            headers={"Origin": origin, "Referer": f"{origin}/accounts/login/"},
        )
        assert response.status == 302 and response.headers["Location"] == "/", (response.status, page[:2000])
        assert "sessionid" in self.cookies


def organizer_account() -> tuple[str, str]:
    block = "\n".join(shell_blocks("# app"))
    username = re.search(r"DJANGO_SUPERUSER_USERNAME=(\S+)", block).group(1)
    password = re.search(r"DJANGO_SUPERUSER_PASSWORD='([^']*)'", block).group(1)
    return username, password


def check_organizer_can_organize(browser: Browser) -> None:
    username, password = organizer_account()
    browser.sign_in(username, password)
    response, page = browser.request("GET", "/campaigns/new/")  # organizers only
    assert response.status == 200, (response.status, page[:500])
    assert html.escape(username) in page


NGINX_CONF = """\
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log;
events {{}}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
{server}
}}
"""


def start_nginx(deployment: Deployment, directory: Path) -> tuple[int, int]:
    """The page's server block on two free ports, with a self-signed certificate of the site's name."""
    (block,) = fenced_blocks("nginx")
    directory.mkdir()
    key, certificate = directory / "privkey.pem", directory / "fullchain.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-days", "2", "-subj", f"/CN={deployment.site}", "-keyout", key, "-out", certificate],
                   check=True, capture_output=True)
    plain, secure = free_port(), free_port()
    server = (block.replace("listen 80;", f"listen 127.0.0.1:{plain};").replace("listen 443 ssl;", f"listen 127.0.0.1:{secure} ssl;")
              .replace("/etc/ssl/assess/fullchain.pem", str(certificate)).replace("/etc/ssl/assess/privkey.pem", str(key))
              .replace("http://127.0.0.1:8000", f"http://127.0.0.1:{deployment.port}"))
    server = "\n".join(line for line in server.splitlines() if "listen [::]" not in line)  # no IPv6 needed here
    (directory / "nginx.conf").write_text(NGINX_CONF.format(dir=directory, server=server))
    nginx = subprocess.Popen(["nginx", "-p", str(directory), "-c", str(directory / "nginx.conf"), "-g", "daemon off;"])
    deployment.processes.append(nginx)

    def listening():
        try:
            socket.create_connection(("127.0.0.1", secure), timeout=0.5).close()
            return True
        except OSError:
            return False

    wait_for(listening, timeout=20, what="nginx", processes=[nginx])
    return plain, secure


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_documented_app_steps_services_and_proxy_work(postgres_only, tmp_path):
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()
    deployment = Deployment(tmp_path)
    try:
        output = deployment.run_blocks("# app")
        assert "scanner installed" in output, output
        web = deployment.start_unit("assess-web.service")
        workers = [deployment.start_unit("assess-worker@.service", instance) for instance in ("w1", "w2")]

        def healthy():
            try:
                direct = http.client.HTTPConnection("127.0.0.1", deployment.port, timeout=5)
                direct.request("GET", "/healthz", headers={"Host": deployment.site, "X-Forwarded-Proto": "https"})
                return direct.getresponse().status == 200
            except OSError:
                return False

        wait_for(healthy, timeout=60, what="gunicorn", processes=[web])
        checked = deployment.run_blocks("# app: while running", **{"127.0.0.1:8000": f"127.0.0.1:{deployment.port}"})
        assert json.loads(checked) == {"status": "ok", "database": "ok", "broker": "ok"}

        host = socket.gethostname()
        for instance in ("w1", "w2"):  # two workers on one machine, by their names
            wait_for(lambda: deployment.celery_ping(f"{instance}@{host}"), timeout=60, what=f"worker {instance}",
                     processes=workers)

        # gunicorn directly, as the proxy calls it: SECURE_HTTPS=true is satisfied by X-Forwarded-Proto
        direct = Browser(lambda: http.client.HTTPConnection("127.0.0.1", deployment.port, timeout=10), deployment.site,
                         {"X-Forwarded-Proto": "https"})
        check_organizer_can_organize(direct)
        # ... and without the header the request is sent to HTTPS
        plain = Browser(lambda: http.client.HTTPConnection("127.0.0.1", deployment.port, timeout=10), deployment.site, {})
        response, _ = plain.request("GET", "/accounts/login/")
        assert response.status == 301 and response.headers["Location"] == f"https://{deployment.site}/accounts/login/"

        if shutil.which("nginx") is None:
            return  # the proxy's part needs nginx (docs/deployment.md installs it)
        plain_port, secure_port = start_nginx(deployment, tmp_path / "nginx")
        unverified = ssl.create_default_context()
        unverified.check_hostname, unverified.verify_mode = False, ssl.CERT_NONE
        proxied = Browser(lambda: http.client.HTTPSConnection("127.0.0.1", secure_port, timeout=10, context=unverified),
                          deployment.site, {})
        response, text = proxied.request("GET", "/healthz")
        assert response.status == 200 and json.loads(text) == {"status": "ok", "database": "ok", "broker": "ok"}
        assert "Set-Cookie" not in response.headers
        check_organizer_can_organize(proxied)
        response, _ = Browser(lambda: http.client.HTTPConnection("127.0.0.1", plain_port, timeout=10),
                              deployment.site, {}).request("GET", "/healthz")
        assert response.status == 301 and response.headers["Location"] == f"https://{deployment.site}/healthz"
    finally:
        deployment.stop()


def gunicorn_workers(arbiter: subprocess.Popen) -> set[int]:
    done = subprocess.run(["pgrep", "-P", str(arbiter.pid)], capture_output=True, text=True)
    return {int(pid) for pid in done.stdout.split()}


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_documented_upgrade_reloads_gunicorn_under_requests_without_failing_one(postgres_only, tmp_path):
    """The upgrade's ``systemctl reload assess-web``: the unit's ExecReload (HUP) sent to gunicorn
    started with the unit's ExecStart, twice, while a client sends requests without a pause, each
    on a new connection as nginx makes them (HTTP/1.0 to the upstream)."""
    import threading

    upgrade = "\n".join(block for block in shell_blocks("# root") if "git pull" in block)
    assert "systemctl reload assess-web" in upgrade and "systemctl restart assess-web" not in upgrade
    assert unit_settings("assess-web.service")["ExecReload"] == ["/bin/kill -s HUP $MAINPID"]
    assert upgrade.index("migrate --noinput") < upgrade.index("systemctl reload assess-web")  # migrations first
    deployment = Deployment(tmp_path)
    try:
        web = deployment.start_unit("assess-web.service")
        headers = {"Host": deployment.site, "X-Forwarded-Proto": "https"}

        def get(path: str) -> int:
            connection = http.client.HTTPConnection("127.0.0.1", deployment.port, timeout=10)
            try:
                connection.request("GET", path, headers=headers)
                return connection.getresponse().status
            finally:
                connection.close()

        def ready() -> bool:
            try:
                return get("/readyz") == 200
            except OSError:
                return False

        wait_for(ready, timeout=60, what="gunicorn", processes=[web])
        outcomes, done = [], threading.Event()

        def client() -> None:
            while not done.is_set():
                for path in ("/readyz", "/accounts/login/"):
                    sent = time.monotonic()
                    try:
                        outcome = get(path)
                    except OSError as error:
                        outcome = repr(error)
                    outcomes.append((sent, outcome))

        thread = threading.Thread(target=client)
        thread.start()
        reloads = []
        try:
            for _ in range(2):
                time.sleep(1)
                old = gunicorn_workers(web)
                sent = time.monotonic()
                web.send_signal(signal.SIGHUP)
                wait_for(lambda: gunicorn_workers(web) and not gunicorn_workers(web) & old, timeout=60,
                         what="new gunicorn workers", processes=[web])
                reloads.append((sent, time.monotonic()))
            time.sleep(1)
        finally:
            done.set()
            thread.join()
        failed = [outcome for _, outcome in outcomes if outcome != 200]
        assert not failed, (len(outcomes), failed[:5])
        for hup, replaced in reloads:  # requests were sent while the workers were replaced (and waited for the new ones)
            assert any(hup <= sent <= replaced for sent, _ in outcomes), (replaced - hup, len(outcomes))
    finally:
        deployment.stop()


def documented_line(marker: str, start: str) -> str:
    (line,) = [line for block in shell_blocks(marker) for line in block.splitlines() if line.startswith(start)]
    return line


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_documented_backup_restores_into_a_database_the_app_runs_on(postgres_only, tmp_path, campaign):
    """The page's pg_dump and pg_restore lines, their options as written, on the test database and a new one."""
    from django.contrib.auth.models import User
    from django.db import connection

    User.objects.create_superuser("organizer", "organizer@example.org", "a passphrase")
    s = connection.settings_dict
    restored = f"{s['NAME']}_restored"
    env = dict(os.environ, PGHOST=s["HOST"] or "127.0.0.1", PGPORT=str(s["PORT"] or 5432), PGUSER=s["USER"],
               PGPASSWORD=s["PASSWORD"])
    dump = tmp_path / "backup.dump"
    umask = documented_line("# root", "umask ")
    dump_line = documented_line("# root", "runuser -u postgres -- pg_dump ")
    drop_line = documented_line("# root", "runuser -u postgres -- dropdb ")
    restore_line = documented_line("# root", "runuser -u postgres -- pg_restore ")
    dump_line = dump_line.replace("runuser -u postgres -- ", "").replace(" assess > /var/backups/assess/assess-$(date +%F).dump",
                                                                       f" {s['NAME']} > {dump}")
    restore_line = (restore_line.replace("runuser -u postgres -- ", "").replace("--role=assess", f"--role={s['USER']}")
                    .replace("--dbname=assess", f"--dbname={restored}")
                    .replace("< /var/backups/assess/assess-2026-11-26.dump", f"< {dump}"))
    drop_line = drop_line.replace("runuser -u postgres -- ", "").replace(" assess", f" {restored}")
    dump_line = f"{umask}; {dump_line}"  # the block's first line holds for the rest of it
    assert "assess" not in dump_line + restore_line + drop_line, (dump_line, restore_line, drop_line)
    subprocess.run(["dropdb", "--if-exists", restored], env=env, check=True, capture_output=True)
    subprocess.run(["createdb", restored], env=env, check=True)
    try:
        for line in (dump_line, restore_line):
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", line], env=env, capture_output=True, text=True)
            assert done.returncode == 0, (line, done.stderr)
        assert stat.S_IMODE(dump.stat().st_mode) == 0o600  # password hashes and sessions: root's alone
        app_env = {k: v for k, v in os.environ.items() if k not in {"ONLY_DATABASE_TESTS", "DATABASE_TEST_NAME"}}
        app_env["DATABASE_URL"] = f"postgres://{s['USER']}:{s['PASSWORD']}@{env['PGHOST']}:{env['PGPORT']}/{restored}"
        checked = subprocess.run(
            [str(ROOT / ".venv/bin/python"), "manage.py", "shell", "-c",
             "from django.contrib.auth import authenticate; from campaigns.models import Campaign; "
             "print(authenticate(username='organizer', password='a passphrase') is not None, "
             "list(Campaign.objects.values_list('slug', flat=True)))"],
            cwd=ROOT, env=app_env, capture_output=True, text=True,
        )
        assert checked.stdout.splitlines()[-1:] == ["True ['cds15']"], checked.stdout + checked.stderr
        pending = subprocess.run([str(ROOT / ".venv/bin/python"), "manage.py", "migrate", "--check"], cwd=ROOT, env=app_env,
                                 capture_output=True, text=True)
        assert pending.returncode == 0, pending.stdout + pending.stderr
        # Restoring again over it: the page's dropdb, while a session is still connected to it.
        connected = psycopg.connect(host=env["PGHOST"], port=env["PGPORT"], user=s["USER"], password=s["PASSWORD"],
                                    dbname=restored)
        try:
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", drop_line], env=env, capture_output=True, text=True)
        finally:
            connected.close()
        assert done.returncode == 0, (drop_line, done.stderr)
        left = subprocess.run(["psql", "-d", "postgres", "-tAc", f"SELECT count(*) FROM pg_database WHERE datname = '{restored}'"],
                              env=env, capture_output=True, text=True, check=True)
        assert left.stdout.strip() == "0"
    finally:
        subprocess.run(["dropdb", "--if-exists", restored], env=env, check=True, capture_output=True)
