#!/usr/bin/env bash
# Every test, on a fresh machine of this kind: brings the local stack up (installing what is missing),
# then lint, type check, unit and integration suites against the real Kafka, ClickHouse, Redis and
# PostgreSQL. `npm test` runs this; .ci/run runs `npm install && npm test`.
set -euo pipefail
cd "$(dirname "$0")/.."

# node_modules comes from `npm install` (the README's command); a bare `npm test` in a fresh clone too.
[ -d node_modules ] || npm install --no-audit --no-fund

echo "==> local stack" >&2
eval "$(bash deploy/local/stack.sh up)"
export KAFKA_BROKERS CLICKHOUSE_URL REDIS_URL DATABASE_URL

echo "==> sweeping what killed test runs left behind" >&2
node --import tsx test/helpers/sweep-stale.ts

echo "==> lint" >&2
npx eslint .
echo "==> typecheck" >&2
npx tsc -p tsconfig.json --noEmit

echo "==> tests" >&2
mkdir -p test-artifacts
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json=test-artifacts/vitest.json "$@" || status=$?

# A closing line in the plain form any CI reads ("N passed, N failed"), from vitest's own JSON report.
if [ -f test-artifacts/vitest.json ]; then
  node -e '
    const r = JSON.parse(require("node:fs").readFileSync("test-artifacts/vitest.json", "utf8"));
    // A file that fails to load has no failed test, only a failed suite: count it, never "0 failed".
    console.log(`${r.numPassedTests} passed, ${r.numFailedTests > 0 ? r.numFailedTests : r.numFailedTestSuites} failed`);
  '
fi
exit "$status"
