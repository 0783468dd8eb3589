# Sourced by bin/demo and bin/test: make sure what the app and its tests need is on this machine.
# Installs with apt-get (as root) when something is missing; otherwise stops with a message
# saying what is missing. Never downloads anything but packages from PyPI and Debian.

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

APT_UPDATED=""
# Wait up to 10 minutes for another apt-get (or unattended-upgrades) to let go of its lock:
# install takes a timeout, update does not (its lists lock ignores it), so update retries.
APT_WAIT="-o DPkg::Lock::Timeout=600"
apt_update() {
  local tries=60 out
  until out=$(DEBIAN_FRONTEND=noninteractive apt-get update -qq 2>&1); do
    case "$out" in *"Could not get lock"*) ;; *) printf '%s\n' "$out" >&2; die "apt-get update failed";; esac
    tries=$((tries - 1)); [ "$tries" -gt 0 ] || die "apt-get update: another apt-get held its lock for 10 minutes"
    sleep 10
  done
}
apt_install() {
  command -v apt-get >/dev/null 2>&1 || die "$* missing and apt-get is not available: install $* by hand"
  [ "$(id -u)" = 0 ] || die "$* missing: run as root (or install $* by hand)"
  if [ -z "$APT_UPDATED" ]; then say "apt-get update"; apt_update; APT_UPDATED=1; fi
  say "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get $APT_WAIT install -y -qq "$@" >/dev/null
}

python_ok() { command -v "$1" >/dev/null 2>&1 && "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; }

# ensure_venv REQUIREMENTS_FILE: .venv with Python >= 3.11 and the pinned packages.
# The distribution's interpreter comes first: Debian builds CPython with profile-guided and
# link-time optimization and links it statically, where a default source build (pyenv's) has
# neither and loads a shared libpython. Measured with bench/bench_judging_cost.py, the web
# process runs a judge-save request in 5.69 M instructions on Debian's 3.11, 6.49 M on pyenv's.
# An existing .venv keeps its interpreter (remove it to change).
ensure_venv() {
  local requirements=$1 python=""
  for candidate in /usr/bin/python3.11 python3.11 python3.12 python3.13 python3; do
    if python_ok "$candidate"; then python=$candidate; break; fi
  done
  if [ -z "$python" ]; then apt_install python3 python3-venv python3-pip; python=python3; fi
  python_ok "$python" || die "Python 3.11 or newer is needed (found: $(python3 --version 2>&1))"
  if [ ! -x .venv/bin/python ]; then
    say "creating .venv with $python"
    "$python" -m venv .venv 2>/dev/null || { apt_install python3-venv; rm -rf .venv; "$python" -m venv .venv; }
  fi
  local stamp=".venv/.installed-$(cat requirements*.txt | sha1sum | cut -c1-12)-$(basename "$requirements")"
  if [ ! -f "$stamp" ]; then
    say "installing $requirements"
    .venv/bin/python -m pip install -q --disable-pip-version-check -r "$requirements"
    touch "$stamp"
  fi
}

# ensure_scanner: the TREC readers' compiled scanner (evaluation/measures/trec_scan.c), built by
# installing the project into .venv (pyproject.toml, setup.py; pip fetches the pinned setuptools)
# with a C compiler, again whenever the source or the build files change. Nothing compiles at
# run time. With ASSESS_NO_C_SCANNER=1 nothing is built, and files are read by the numpy scanner.
ensure_scanner() {
  local stamp=".venv/.scanner-$(cat evaluation/measures/trec_scan.c setup.py pyproject.toml | sha1sum | cut -c1-12)${ASSESS_NO_C_SCANNER:+-none}"
  [ -f "$stamp" ] && return
  [ -n "${ASSESS_NO_C_SCANNER:-}" ] || command -v "${CC:-cc}" >/dev/null 2>&1 || apt_install gcc libc6-dev
  say "installing the project (building the TREC file scanner)"
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -e . || die "the install failed (above)"
  rm -f .venv/.scanner-*
  touch "$stamp"
}

# ensure_postgres: PostgreSQL answering on 127.0.0.1:5432 for user postgres (password postgres on a
# fresh install; the development and CI machines use trust authentication).
ensure_postgres() {
  if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then return; fi
  if ! command -v pg_ctlcluster >/dev/null 2>&1; then
    apt_install postgresql
    local fresh=1
  fi
  local version
  version=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -1)
  [ -n "$version" ] || die "PostgreSQL is installed but has no cluster under /etc/postgresql"
  say "starting PostgreSQL $version"
  pg_ctlcluster --skip-systemctl-redirect "$version" main start 2>/dev/null || pg_ctlcluster "$version" main start
  for _ in $(seq 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  pg_isready -q -h 127.0.0.1 -p 5432 || die "PostgreSQL did not start on 127.0.0.1:5432"
  if [ -n "${fresh:-}" ]; then
    su postgres -c "psql -q -c \"ALTER USER postgres PASSWORD 'postgres'\"" >/dev/null
  fi
}

# ensure_redis: Redis answering on 127.0.0.1:6379.
ensure_redis() {
  if redis_up; then return; fi
  command -v redis-server >/dev/null 2>&1 || apt_install redis-server
  say "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
  for _ in $(seq 30); do redis_up && return; sleep 0.5; done
  die "Redis did not start on 127.0.0.1:6379"
}

redis_up() {
  .venv/bin/python -c 'import socket; s = socket.create_connection(("127.0.0.1", 6379), 1); s.sendall(b"PING\r\n"); assert s.recv(7) == b"+PONG\r\n"' 2>/dev/null
}

# ensure_chromium: Debian's Chromium for the browser tests (Playwright drives it; never downloaded).
ensure_chromium() {
  command -v chromium >/dev/null 2>&1 || apt_install chromium chromium-driver
}
