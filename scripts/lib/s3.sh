# Meant to be sourced (bash). Defines ensure_s3_test_server, which installs what the S3 tests use
# from PyPI (moto's server mode, botocore: the reference SigV4 signer the signing test compares
# with), starts one moto server on 127.0.0.1 (port $PUSHMEDIA_TEST_S3_PORT, default 5790) unless
# one already answers there, and exports PUSHMEDIA_TEST_S3_ENDPOINT for the tests. moto keeps
# everything in memory; tests create buckets with their own unique names, so runs do not collide.
# The server is left running (like the PostgreSQL clusters), its log in $TMPDIR/pushmedia-moto.log.
# Returns non-zero with a message on stderr when a step fails; never exits the calling shell.

PUSHMEDIA_TEST_S3_PORT=${PUSHMEDIA_TEST_S3_PORT:-5790}

ensure_s3_test_server() {
  if ! python3 -c 'import botocore' 2>/dev/null; then
    echo "==> installing Python botocore" >&2
    python3 -m pip install --quiet botocore || { echo "error: pip install botocore failed" >&2; return 1; }
  fi
  if ! command -v moto_server >/dev/null; then
    echo "==> installing Python moto[server]" >&2
    python3 -m pip install --quiet 'moto[server]' || { echo "error: pip install moto[server] failed" >&2; return 1; }
    hash -r
  fi
  local endpoint="http://127.0.0.1:$PUSHMEDIA_TEST_S3_PORT" log="${TMPDIR:-/tmp}/pushmedia-moto.log" tries=0
  if ! curl -s -o /dev/null "$endpoint/moto-api/"; then
    echo "==> starting moto_server on $endpoint (log: $log)" >&2
    nohup moto_server -H 127.0.0.1 -p "$PUSHMEDIA_TEST_S3_PORT" >"$log" 2>&1 </dev/null &
    until curl -s -o /dev/null "$endpoint/moto-api/"; do
      tries=$((tries + 1))
      if ((tries > 60)); then echo "error: moto_server did not answer on $endpoint (see $log)" >&2; return 1; fi
      sleep 0.5
    done
  fi
  export PUSHMEDIA_TEST_S3_ENDPOINT=$endpoint
  echo "==> S3 test server ready: $PUSHMEDIA_TEST_S3_ENDPOINT" >&2
}
