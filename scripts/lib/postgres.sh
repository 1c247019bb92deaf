# Meant to be sourced (bash). Defines ensure_postgres, which makes a local PostgreSQL server ready
# for the PushMediaQueue tests and exports PUSHMEDIA_TEST_POSTGRES_URL:
#   - installs Debian's `postgresql` package when it is missing (as root, or through sudo);
#   - starts the first cluster `pg_lsclusters` shows (creates one with pg_createcluster if none);
#   - waits until pg_isready answers;
#   - creates the role `pushmedia` (password `pushmedia`) and the database `pushmedia_test` it owns,
#     both only when missing, so calling it again is harmless.
# Returns non-zero with a message on stderr when a step fails; never exits the calling shell.

PUSHMEDIA_PG_ROLE=${PUSHMEDIA_PG_ROLE:-pushmedia}
PUSHMEDIA_PG_PASSWORD=${PUSHMEDIA_PG_PASSWORD:-pushmedia}
PUSHMEDIA_PG_DATABASE=${PUSHMEDIA_PG_DATABASE:-pushmedia_test}

# _pg_as_root CMD...: runs CMD as root (directly when we are root, else through sudo).
_pg_as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# _pg_as_postgres CMD...: runs CMD as the `postgres` system user.
_pg_as_postgres() {
  if [[ $(id -u) -eq 0 ]]; then
    if command -v runuser >/dev/null; then runuser -u postgres -- "$@"; else su postgres -s /bin/sh -c "$(printf '%q ' "$@")"; fi
  else
    sudo -u postgres "$@"
  fi
}

# _pg_psql PORT SQL: runs one statement as the superuser on the cluster at PORT, printing only tuples.
_pg_psql() {
  (cd / && _pg_as_postgres psql -X -q -t -A -v ON_ERROR_STOP=1 -p "$1" -d postgres -c "$2")
}

# _pg_wait_ready PORT: waits (30 s at most) until the cluster at PORT accepts connections.
_pg_wait_ready() {
  local tries=0
  until pg_isready -q -h 127.0.0.1 -p "$1"; do
    tries=$((tries + 1))
    if ((tries > 60)); then echo "error: PostgreSQL did not become ready on port $1" >&2; return 1; fi
    sleep 0.5
  done
}

# _pg_ensure_test_database PORT: creates the test role and the database it owns on the cluster at
# PORT, each only when missing.
_pg_ensure_test_database() {
  if [[ $(_pg_psql "$1" "SELECT 1 FROM pg_roles WHERE rolname = '$PUSHMEDIA_PG_ROLE'") != 1 ]]; then
    _pg_psql "$1" "CREATE ROLE $PUSHMEDIA_PG_ROLE LOGIN PASSWORD '$PUSHMEDIA_PG_PASSWORD'" \
      || { echo "error: could not create role $PUSHMEDIA_PG_ROLE on port $1" >&2; return 1; }
  fi
  if [[ $(_pg_psql "$1" "SELECT 1 FROM pg_database WHERE datname = '$PUSHMEDIA_PG_DATABASE'") != 1 ]]; then
    _pg_psql "$1" "CREATE DATABASE $PUSHMEDIA_PG_DATABASE OWNER $PUSHMEDIA_PG_ROLE" \
      || { echo "error: could not create database $PUSHMEDIA_PG_DATABASE on port $1" >&2; return 1; }
  fi
}

ensure_postgres() {
  if ! command -v pg_lsclusters >/dev/null || ! dpkg-query -W -f='${Status}' postgresql 2>/dev/null | grep -q "install ok installed"; then
    echo "==> installing PostgreSQL (Debian package postgresql)" >&2
    _pg_as_root apt-get update -qq || { echo "error: apt-get update failed" >&2; return 1; }
    DEBIAN_FRONTEND=noninteractive _pg_as_root apt-get install -y -qq --no-install-recommends postgresql >/dev/null \
      || { echo "error: could not install postgresql" >&2; return 1; }
  fi

  local version cluster port status
  read -r version cluster port status _ < <(pg_lsclusters --no-header 2>/dev/null | head -n 1)
  if [[ -z ${version:-} ]]; then
    version=$(ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -n 1)
    [[ -n $version ]] || { echo "error: no PostgreSQL version found in /usr/lib/postgresql" >&2; return 1; }
    echo "==> creating PostgreSQL cluster $version/main" >&2
    _pg_as_root pg_createcluster "$version" main >/dev/null || { echo "error: pg_createcluster failed" >&2; return 1; }
    read -r version cluster port status _ < <(pg_lsclusters --no-header | head -n 1)
  fi
  if [[ $status != online* ]]; then
    echo "==> starting PostgreSQL cluster $version/$cluster (port $port)" >&2
    _pg_as_root pg_ctlcluster "$version" "$cluster" start \
      || { echo "error: could not start cluster $version/$cluster (see /var/log/postgresql/)" >&2; return 1; }
  fi

  _pg_wait_ready "$port" || return 1
  _pg_ensure_test_database "$port" || return 1

  export PUSHMEDIA_TEST_POSTGRES_URL="postgres://$PUSHMEDIA_PG_ROLE:$PUSHMEDIA_PG_PASSWORD@127.0.0.1:$port/$PUSHMEDIA_PG_DATABASE"
  echo "==> PostgreSQL ready: $PUSHMEDIA_TEST_POSTGRES_URL" >&2
}

# ensure_postgres_restartable: a second cluster, `pushmedia_restart` on port 5433, that one test
# restarts on purpose (so the other PostgreSQL tests, on the main cluster, are not disturbed).
# Exports PUSHMEDIA_TEST_POSTGRES_RESTART_URL and PUSHMEDIA_TEST_POSTGRES_RESTART_CLUSTER
# ("VERSION NAME", the arguments pg_ctlcluster takes). Call ensure_postgres first.
ensure_postgres_restartable() {
  local version name=pushmedia_restart port=5433 status
  version=$(pg_lsclusters --no-header | awk 'NR == 1 { print $1 }')
  [[ -n $version ]] || { echo "error: no PostgreSQL cluster (run ensure_postgres first)" >&2; return 1; }
  if ! pg_lsclusters --no-header | awk '{ print $2 }' | grep -qx "$name"; then
    echo "==> creating PostgreSQL cluster $version/$name (port $port)" >&2
    _pg_as_root pg_createcluster "$version" "$name" --port "$port" >/dev/null \
      || { echo "error: pg_createcluster $name failed" >&2; return 1; }
  fi
  status=$(pg_lsclusters --no-header | awk -v n="$name" '$2 == n { print $4 }')
  if [[ $status != online* ]]; then
    _pg_as_root pg_ctlcluster "$version" "$name" start || { echo "error: could not start $version/$name" >&2; return 1; }
  fi
  _pg_wait_ready "$port" || return 1
  _pg_ensure_test_database "$port" || return 1
  export PUSHMEDIA_TEST_POSTGRES_RESTART_URL="postgres://$PUSHMEDIA_PG_ROLE:$PUSHMEDIA_PG_PASSWORD@127.0.0.1:$port/$PUSHMEDIA_PG_DATABASE"
  export PUSHMEDIA_TEST_POSTGRES_RESTART_CLUSTER="$version $name"
  echo "==> PostgreSQL (restartable) ready: $PUSHMEDIA_TEST_POSTGRES_RESTART_URL" >&2
}
