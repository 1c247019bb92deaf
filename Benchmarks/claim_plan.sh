#!/usr/bin/env bash
# The claim's plan and time against the backlog (issue 42), on both queues:
#
#   Benchmarks/claim_plan.sh PUSHMEDIA POSTGRES_URL [SIZES]     (SIZES default: 1000 100000 1000000)
#
# For each size a fresh SQLite file and a fresh PostgreSQL schema get PushMedia's own schema (its
# migrations, through `pushmedia status`), then SIZE jobs of one campaign (half queued, half
# succeeded, 900-byte profile keys like real ones) and 10 jobs of a second campaign, inserted in
# SQL. Then the statements a claim and a manifest page run, as PushMedia builds them, are planned
# and timed: EXPLAIN ANALYZE on PostgreSQL, EXPLAIN QUERY PLAN and .timer on SQLite (best of 5).
set -euo pipefail
PUSHMEDIA=$1
PG=$2
SIZES=${3:-1000 100000 1000000}
WORK=${TMPDIR:-/tmp}/pushmedia-claim-plan
mkdir -p "$WORK"
claimable="'queued', 'retrying'"

for size in $SIZES; do
  echo "## $size jobs"
  # PostgreSQL: the schema by PushMedia's migrations, in a schema of its own.
  schema="claim_plan_$size"
  psql "$PG" -qc "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1
  url="$PG?schema=$schema"
  "$PUSHMEDIA" status --queue "$url" >/dev/null
  psql "$PG" -q >/dev/null <<SQL
SET search_path = $schema;
INSERT INTO pushmedia_jobs (campaign, source, profile, state, max_attempts, run_at, created_at, updated_at)
SELECT 'big', format('images/img-%s.jpg', lpad(i::text, 7, '0')), repeat('p', 900),
       CASE WHEN i % 2 = 0 THEN 'queued' ELSE 'succeeded' END, 3, now() - interval '1 day' + i * interval '1 ms', now(), now()
FROM generate_series(1, $size) i;
INSERT INTO pushmedia_jobs (campaign, source, profile, state, max_attempts, run_at, created_at, updated_at)
SELECT 'small', format('s-%s.jpg', i), 'p', 'queued', 3, now(), now(), now() FROM generate_series(1, 10) i;
ANALYZE pushmedia_jobs;
SQL
  echo "### PostgreSQL: claim of campaign big (4 jobs)"
  psql "$PG" -qAt <<SQL | grep -E "Index|Seq Scan|Sort|Execution Time"
SET search_path = $schema;
EXPLAIN (ANALYZE, COSTS OFF) SELECT id FROM pushmedia_jobs WHERE state = ANY('{queued,retrying}'::text[]) AND campaign = 'big'
  AND run_at <= now() ORDER BY run_at, id LIMIT 4 FOR UPDATE SKIP LOCKED;
SQL
  echo "### PostgreSQL: claim from any campaign (4 jobs)"
  psql "$PG" -qAt <<SQL | grep -E "Index|Seq Scan|Sort|Execution Time"
SET search_path = $schema;
EXPLAIN (ANALYZE, COSTS OFF) SELECT id FROM pushmedia_jobs WHERE state = ANY('{queued,retrying}'::text[])
  AND run_at <= now() ORDER BY run_at, id LIMIT 4 FOR UPDATE SKIP LOCKED;
SQL
  echo "### PostgreSQL: a manifest page (500 jobs after the middle)"
  psql "$PG" -qAt <<SQL | grep -E "Index|Seq Scan|Sort|Execution Time"
SET search_path = $schema;
EXPLAIN (ANALYZE, COSTS OFF) SELECT * FROM pushmedia_jobs WHERE campaign = 'big'
  AND (source COLLATE "C", profile COLLATE "C") > ('images/img-$(printf %07d $((size / 2))).jpg', 'p')
  ORDER BY source COLLATE "C", profile COLLATE "C" LIMIT 500;
SQL
  psql "$PG" -qc "DROP SCHEMA $schema CASCADE" >/dev/null 2>&1

  # SQLite: the same rows.
  db="$WORK/queue-$size.sqlite"
  rm -f "$db" "$db-wal" "$db-shm"
  "$PUSHMEDIA" status --queue "sqlite://$db" >/dev/null
  sqlite3 "$db" >/dev/null <<SQL
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $size)
INSERT INTO jobs (campaign, source, profile, state, max_attempts, run_at, created_at, updated_at)
SELECT 'big', printf('images/img-%07d.jpg', i), printf('%.900c', 'p'), CASE WHEN i % 2 = 0 THEN 'queued' ELSE 'succeeded' END,
       3, 1000 + i, 0, 0 FROM n;
INSERT INTO jobs (campaign, source, profile, state, max_attempts, run_at, created_at, updated_at)
SELECT 'small', 's-' || i, 'p', 'queued', 3, 5000000000000, 0, 0 FROM (SELECT 1 AS i UNION SELECT 2 UNION SELECT 3);
ANALYZE;
SQL
  for query in \
    "claim of campaign big|SELECT * FROM jobs WHERE state IN ($claimable) AND campaign = 'big' AND run_at <= 9999999999999 ORDER BY run_at, id LIMIT 4" \
    "claim from any campaign|SELECT * FROM jobs WHERE state IN ($claimable) AND run_at <= 9999999999999 ORDER BY run_at, id LIMIT 4" \
    "a manifest page|SELECT * FROM jobs WHERE campaign = 'big' AND (source, profile) > ('images/img-$(printf %07d $((size / 2))).jpg', 'p') ORDER BY source, profile LIMIT 500"; do
    echo "### SQLite: ${query%%|*}"
    sqlite3 "$db" "EXPLAIN QUERY PLAN ${query#*|}" | grep -v "^QUERY PLAN"
    best=$(for _ in 1 2 3 4 5; do printf '.timer on\n%s;\n' "${query#*|}" | sqlite3 "$db" | grep "Run Time" || true; done \
      | sed -E 's/.*real ([0-9.]+).*/\1/' | sort -n | head -1)
    echo "best of 5: ${best} s"
  done
  rm -f "$db" "$db-wal" "$db-shm"
done
