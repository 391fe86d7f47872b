#!/usr/bin/env bash
# Every test, on a fresh machine of this kind: brings the local stack up (installing what is missing),
# then lint, type check, unit and integration suites against the real Kafka, ClickHouse, Redis and
# PostgreSQL. `npm test` runs this; .ci/run runs `npm install && npm test`.
set -euo pipefail
cd "$(dirname "$0")/.."

# node_modules comes from `npm install` (the README's command); a bare `npm test` in a fresh clone too.
[ -d node_modules ] || npm install --no-audit --no-fund

# promtool checks the shipped Prometheus rules and config (test/unit/ops-assets.test.ts) and a live
# /metrics scrape. It comes with Debian's prometheus package; only the tool is wanted, so a server
# that the install starts is stopped again (by its pid: a Prometheus that was already running stays).
if ! command -v promtool >/dev/null 2>&1; then
  echo "==> installing promtool (Debian package prometheus)" >&2
  before="$(pgrep -x prometheus || true)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends prometheus >&2 \
    || { apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends prometheus >&2; }
  systemctl stop prometheus 2>/dev/null || true
  for pid in $(pgrep -x prometheus || true); do
    grep -qx "$pid" <<<"$before" || kill "$pid" 2>/dev/null || true
  done
fi

# The dashboard's end-to-end test (test/e2e/dashboard.test.ts) drives Debian's Chromium through
# playwright-core, which brings no browser of its own.
if [ ! -x /usr/bin/chromium ]; then
  echo "==> installing Chromium (Debian package chromium)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends chromium >&2 \
    || { apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends chromium >&2; }
fi

echo "==> local stack" >&2
# Assigned first: a failure inside `eval "$(…)"` would not stop the script (set -e does not see it),
# and the suites would run without the stack.
stack_env="$(bash deploy/local/stack.sh up)"
eval "$stack_env"
export KAFKA_BROKERS CLICKHOUSE_URL REDIS_URL DATABASE_URL

echo "==> sweeping what killed test runs left behind" >&2
node --import tsx test/helpers/sweep-stale.ts

echo "==> lint" >&2
npx eslint .
echo "==> typecheck" >&2
npx tsc -p tsconfig.json --noEmit
npx tsc -p src/dashboard/tsconfig.json --noEmit

echo "==> dashboard build (served by the service under test)" >&2
npx vite build --config src/dashboard/vite.config.ts --logLevel warn

echo "==> tests" >&2
mkdir -p test-artifacts
status=0
# The last reporter closes the run with "N passed, N failed, N skipped" and each skipped test's reason
# (test/helpers/run-summary.ts); vitest's JSON report stays in test-artifacts/ for tools.
npx vitest run --reporter=default --reporter=json --outputFile.json=test-artifacts/vitest.json \
  --reporter=./test/helpers/run-summary.ts "$@" || status=$?

# A whole run (no filter given) fails when a test was skipped without saying why (the reason given to the test context's skip).
if [ "$#" -eq 0 ]; then
  node -e '
    const summary = JSON.parse(require("node:fs").readFileSync("test-artifacts/summary.json", "utf8"));
    const unexplained = summary.skippedTests.filter((test) => !test.reason);
    if (unexplained.length > 0) {
      console.error(`${unexplained.length} test(s) skipped without a reason: ${unexplained.map((test) => test.name).join("; ")}`);
      process.exit(1);
    }
  ' || status=1
fi
exit "$status"
