#!/usr/bin/env bash
# The suites that need the local cluster (test/cluster/): brings it up with deploy/local/cluster.sh
# (ZooKeeper, ClickHouse 2 shards × 2 replicas, 3 Kafka brokers, and the single stack's Redis and
# PostgreSQL) and runs them with vitest.cluster.config.ts. `npm run test:cluster` runs this; `npm test`
# does not (the single stack is its default). `bash deploy/local/cluster.sh down` stops the cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm install --no-audit --no-fund

echo "==> local cluster" >&2
# Assigned first: a failure inside `eval "$(…)"` would not stop the script (set -e does not see it),
# and the suites would run without the cluster.
cluster_env="$(bash deploy/local/cluster.sh up)"
eval "$cluster_env"
export KAFKA_BROKERS CLICKHOUSE_URLS CLICKHOUSE_CLUSTER REDIS_URL DATABASE_URL

echo "==> cluster suites" >&2
mkdir -p test-artifacts
npx vitest run --config vitest.cluster.config.ts --reporter=default --reporter=./test/helpers/run-summary.ts "$@"
