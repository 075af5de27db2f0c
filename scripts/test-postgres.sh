#!/usr/bin/env bash
# Start a throwaway PostgreSQL for the test suite (installing Debian's server if missing) and print
# the SQLAlchemy URL to use. Idempotent: a server already running on the port is reused.
#   usage: scripts/test-postgres.sh start|stop
set -euo pipefail
PORT="${CODEMODE_PG_PORT:-54329}"
DATA="${CODEMODE_PG_DATA:-/tmp/codemode-test-pg}"
URL="postgresql+psycopg://postgres@127.0.0.1:${PORT}/postgres"

find_bin() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$dir" ] && [ -x "$dir/initdb" ] && echo "$dir"
}

as_pg() {
  if [ "$(id -u)" = "0" ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-start}" in
  start)
    BIN=$(find_bin || true)
    if [ -z "$BIN" ]; then
      echo "installing PostgreSQL from Debian's packages..." >&2
      apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
      BIN=$(find_bin)
    fi
    if ! "$BIN/pg_isready" -h 127.0.0.1 -p "$PORT" -q; then
      if [ ! -f "$DATA/PG_VERSION" ]; then
        mkdir -p "$DATA"
        [ "$(id -u)" = "0" ] && chown postgres "$DATA"
        as_pg "$BIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 >/dev/null
      fi
      as_pg "$BIN/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w \
        -o "-p $PORT -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
    fi
    echo "$URL"
    ;;
  stop)
    BIN=$(find_bin || true)
    [ -n "$BIN" ] && [ -f "$DATA/PG_VERSION" ] && as_pg "$BIN/pg_ctl" -D "$DATA" -m fast stop >/dev/null || true
    ;;
esac
