#!/usr/bin/env bash
# A local cluster without Docker, for the scale-out and fault tests: ClickHouse as 2 shards × 2
# replicas with one ZooKeeper, and Kafka as 3 KRaft brokers (replication factor 3, min.insync.replicas
# 2), beside the single stack's Redis and PostgreSQL. Plain processes, like deploy/local/stack.sh, whose
# functions it uses; `bash deploy/local/stack.sh up --cluster` runs it too.
#
#   bash deploy/local/cluster.sh up                  install what is missing, start, wait until ready
#   bash deploy/local/cluster.sh down                stop the cluster's nodes (data kept)
#   bash deploy/local/cluster.sh status              one line per node; exit 0 only if all are up
#   bash deploy/local/cluster.sh env                 the export lines for a service on the cluster
#   bash deploy/local/cluster.sh kill  <node>        SIGKILL one node: a crash
#   bash deploy/local/cluster.sh start <node>        start one node again and wait until it is ready
#   bash deploy/local/cluster.sh reset               stop everything and delete the cluster's data
#
# Nodes: zookeeper, clickhouse-1 … clickhouse-4 (shard 1: 1 and 2, shard 2: 3 and 4), kafka-1 … kafka-3.
# Its ports do not overlap the single stack's, so both can run at once. Everything it writes lives in
# the stack folder's cluster/ subfolder.
#
# Why this size: 4 ClickHouse servers, 3 brokers and ZooKeeper idle at a few percent of a core each,
# and under the fault tests' load the machine's 2 cores are shared by them, the service and the load.
# Two replicas per shard is the smallest layout in which a replica can be lost; two shards the
# smallest in which sharding by app is visible.
set -euo pipefail

CLUSTER_SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The single stack's functions and settings (logging, waiting, spawning, Kafka's jars, Redis, PostgreSQL).
# shellcheck source=stack.sh
source "$CLUSTER_SCRIPT_DIR/stack.sh"

CLUSTER_DIR="$STACK_DIR/cluster"
CLUSTER_NAME="${STACK_CLICKHOUSE_CLUSTER:-eas}"
ZOOKEEPER_PORT="${STACK_ZOOKEEPER_PORT:-2181}"
# Node n of ClickHouse listens on base + n; of Kafka, likewise.
CH_HTTP_BASE=8130
CH_TCP_BASE=9030
CH_INTERSERVER_BASE=9040
KAFKA_BROKER_BASE=9110
KAFKA_CONTROLLER_BASE=9120
CLICKHOUSE_NODES=(1 2 3 4)
KAFKA_NODES=(1 2 3)
CLUSTER_HEAP_OPTS="${CLUSTER_HEAP_OPTS:--Xms128m -Xmx384m}"

# --- ZooKeeper --------------------------------------------------------------------------------------

ZK_DIR="$CLUSTER_DIR/zookeeper"

zk_pid() { owned_pid "$ZK_DIR/zookeeper.pid" "$ZK_DIR/zoo.cfg"; }

# Serving clients: `srvr` names the server's mode only then. `ruok` is no proof: ZooKeeper answers it
# as soon as it listens, while it may still be loading its snapshot and refusing sessions, and a
# ClickHouse node holding replicated tables dies at start when its first session is refused. In a
# subshell, so that the redirections stay there.
zk_ok() {
  local reply
  reply=$( (exec 3<>"/dev/tcp/$HOST/$ZOOKEEPER_PORT" && printf 'srvr' >&3 && timeout 2 cat <&3) 2>/dev/null) || true
  [[ $reply == *"Mode: "* ]]
}

zookeeper_start() {
  local pid
  if pid=$(zk_pid); then log "zookeeper: already running (pid $pid)"; return; fi
  port_free "$ZOOKEEPER_PORT" || die "zookeeper: port $ZOOKEEPER_PORT is in use by $(port_owner "$ZOOKEEPER_PORT")"
  mkdir -p "$ZK_DIR/data" "$ZK_DIR/logs"
  render "$CLUSTER_SCRIPT_DIR/cluster/zoo.cfg" "$ZK_DIR/zoo.cfg" "DATA_DIR=$ZK_DIR/data" "PORT=$ZOOKEEPER_PORT"
  local java=()
  kafka_java_into java "$ZK_DIR/logs" "$CLUSTER_HEAP_OPTS"
  pid=$(spawn "$ZK_DIR/zookeeper.pid" "$ZK_DIR/zookeeper.out" "${java[@]}" org.apache.zookeeper.server.quorum.QuorumPeerMain "$ZK_DIR/zoo.cfg")
  wait_until "$START_TIMEOUT" "zookeeper on $HOST:$ZOOKEEPER_PORT" zk_ok ||
    { show_tail "$ZK_DIR/logs/server.log"; die "zookeeper: not serving (srvr names no mode)"; }
  log "zookeeper: up on $HOST:$ZOOKEEPER_PORT (pid $pid)"
}

zookeeper_status() {
  local pid=""
  pid=$(zk_pid) || true
  if zk_ok; then printf '%-13s up    %-32s (pid %s)\n' zookeeper "$HOST:$ZOOKEEPER_PORT" "${pid:-?}"; return 0; fi
  printf '%-13s down  %s\n' zookeeper "$HOST:$ZOOKEEPER_PORT"
  return 1
}

# --- ClickHouse -------------------------------------------------------------------------------------

ch_dir() { echo "$CLUSTER_DIR/clickhouse-$1"; }
ch_http() { echo $((CH_HTTP_BASE + $1)); }
ch_tcp() { echo $((CH_TCP_BASE + $1)); }
ch_pid() { owned_pid "$(ch_dir "$1")/clickhouse.pid" "$(ch_dir "$1")/config.xml"; }
ch_ping() { [[ $(curl -s --max-time 2 "http://$HOST:$(ch_http "$1")/ping" 2>/dev/null) == "Ok." ]]; }

clickhouse_node_start() {
  local n=$1 dir pid
  dir=$(ch_dir "$n")
  if pid=$(ch_pid "$n"); then log "clickhouse-$n: already running (pid $pid)"; return; fi
  local port
  for port in "$(ch_http "$n")" "$(ch_tcp "$n")" $((CH_INTERSERVER_BASE + n)); do
    port_free "$port" || die "clickhouse-$n: port $port is in use by $(port_owner "$port")"
  done
  need_command clickhouse-server clickhouse-server
  mkdir -p "$dir/data" "$dir/log" "$dir/config.d"
  render "$CLUSTER_SCRIPT_DIR/clickhouse/config.xml" "$dir/config.xml" "CLICKHOUSE_DIR=$dir" \
    "CLICKHOUSE_HTTP_PORT=$(ch_http "$n")" "CLICKHOUSE_TCP_PORT=$(ch_tcp "$n")"
  cp "$CLUSTER_SCRIPT_DIR/clickhouse/users.xml" "$dir/users.xml"
  render "$CLUSTER_SCRIPT_DIR/cluster/clickhouse-cluster.xml" "$dir/config.d/cluster.xml" \
    "INTERSERVER_PORT=$((CH_INTERSERVER_BASE + n))" "ZOOKEEPER_PORT=$ZOOKEEPER_PORT" \
    "SHARD=0$(((n + 1) / 2))" "REPLICA=clickhouse-$n" "CLUSTER=$CLUSTER_NAME" \
    "TCP_PORT_1=$(ch_tcp 1)" "TCP_PORT_2=$(ch_tcp 2)" "TCP_PORT_3=$(ch_tcp 3)" "TCP_PORT_4=$(ch_tcp 4)"
  pid=$(spawn "$dir/clickhouse.pid" "$dir/clickhouse.out" clickhouse-server --config-file="$dir/config.xml")
  local deadline=$(($(now_ms) + START_TIMEOUT * 1000))
  until ch_ping "$n"; do
    if ! pid_alive "$pid"; then
      show_tail "$dir/log/clickhouse-server.err.log"
      die "clickhouse-$n: the server exited during startup"
    fi
    (($(now_ms) < deadline)) || die "clickhouse-$n: no answer on /ping after ${START_TIMEOUT}s"
    sleep 0.2
  done
  log "clickhouse-$n: up on http://$HOST:$(ch_http "$n") (shard $(((n + 1) / 2)), pid $pid)"
}

clickhouse_node_status() {
  local n=$1 pid=""
  pid=$(ch_pid "$n") || true
  if ch_ping "$n"; then printf '%-13s up    %-32s (pid %s)\n' "clickhouse-$n" "http://$HOST:$(ch_http "$n")" "${pid:-?}"; return 0; fi
  printf '%-13s down  %s\n' "clickhouse-$n" "http://$HOST:$(ch_http "$n")"
  return 1
}

# --- Kafka ------------------------------------------------------------------------------------------

kafka_node_dir() { echo "$CLUSTER_DIR/kafka-$1"; }
kafka_node_port() { echo $((KAFKA_BROKER_BASE + $1)); }
kafka_node_pid() { owned_pid "$(kafka_node_dir "$1")/kafka.pid" "$(kafka_node_dir "$1")/server.properties"; }

kafka_voters() {
  local n voters=()
  for n in "${KAFKA_NODES[@]}"; do voters+=("$n@$HOST:$((KAFKA_CONTROLLER_BASE + n))"); done
  local IFS=,
  echo "${voters[*]}"
}

# Started, and this run logged "Kafka Server started" (kafka_log_started in stack.sh).
kafka_node_ready() {
  local n=$1 log_offset=$2
  port_open "$HOST" "$(kafka_node_port "$n")" || return 1
  kafka_log_started "$(kafka_node_dir "$n")/logs/server.log" "$log_offset"
}

# Starts a broker without waiting: a broker is ready only once a majority of the quorum runs.
kafka_node_spawn() {
  local n=$1 dir
  dir=$(kafka_node_dir "$n")
  local pid
  if pid=$(kafka_node_pid "$n"); then log "kafka-$n: already running (pid $pid)"; echo -1; return; fi
  local port
  for port in "$(kafka_node_port "$n")" $((KAFKA_CONTROLLER_BASE + n)); do
    port_free "$port" || die "kafka-$n: port $port is in use by $(port_owner "$port")"
  done
  mkdir -p "$dir/data" "$dir/logs"
  render "$CLUSTER_SCRIPT_DIR/cluster/kafka-broker.properties" "$dir/server.properties" "NODE_ID=$n" \
    "PORT=$(kafka_node_port "$n")" "CONTROLLER_PORT=$((KAFKA_CONTROLLER_BASE + n))" "VOTERS=$(kafka_voters)" "DATA_DIR=$dir/data"
  local java=()
  kafka_java_into java "$dir/logs" "$CLUSTER_HEAP_OPTS"
  if [[ ! -f $dir/data/meta.properties ]]; then
    [[ -s $CLUSTER_DIR/kafka-cluster-id ]] || kafka_cluster_id >"$CLUSTER_DIR/kafka-cluster-id"
    "${java[@]}" kafka.tools.StorageTool format --ignore-formatted --cluster-id "$(cat "$CLUSTER_DIR/kafka-cluster-id")" --config "$dir/server.properties" \
      >"$dir/format.log" 2>&1 || { show_tail "$dir/format.log"; die "kafka-$n: formatting the storage failed"; }
  fi
  stat -c %s "$dir/logs/server.log" 2>/dev/null || echo 0
  spawn "$dir/kafka.pid" "$dir/kafka.out" "${java[@]}" kafka.Kafka "$dir/server.properties" >/dev/null
}

# Starts the given brokers and waits until each is ready.
kafka_nodes_start() {
  local n offsets=()
  need_command java openjdk-17-jre-headless
  kafka_ensure_libs
  for n in "$@"; do offsets[n]=$(kafka_node_spawn "$n"); done
  for n in "$@"; do
    ((offsets[n] >= 0)) || continue
    wait_until "$START_TIMEOUT" "kafka-$n to start" kafka_node_ready "$n" "${offsets[n]}" ||
      { show_tail "$(kafka_node_dir "$n")/logs/server.log"; die "kafka-$n: not ready after ${START_TIMEOUT}s"; }
    log "kafka-$n: up on $HOST:$(kafka_node_port "$n") (pid $(kafka_node_pid "$n"))"
  done
}

kafka_node_status() {
  local n=$1 pid=""
  pid=$(kafka_node_pid "$n") || true
  if [[ -n $pid ]] && port_open "$HOST" "$(kafka_node_port "$n")"; then
    printf '%-13s up    %-32s (pid %s)\n' "kafka-$n" "$HOST:$(kafka_node_port "$n")" "$pid"
    return 0
  fi
  printf '%-13s down  %s\n' "kafka-$n" "$HOST:$(kafka_node_port "$n")"
  return 1
}

# --- nodes by name ----------------------------------------------------------------------------------

ALL_NODES=(zookeeper clickhouse-1 clickhouse-2 clickhouse-3 clickhouse-4 kafka-1 kafka-2 kafka-3)

node_pid() {
  case $1 in
    zookeeper) zk_pid ;;
    clickhouse-[1-4]) ch_pid "${1#clickhouse-}" ;;
    kafka-[1-3]) kafka_node_pid "${1#kafka-}" ;;
    *) die "unknown node: $1 (one of ${ALL_NODES[*]})" ;;
  esac
}

node_start() {
  case $1 in
    zookeeper) zookeeper_start ;;
    clickhouse-[1-4]) clickhouse_node_start "${1#clickhouse-}" ;;
    kafka-[1-3]) kafka_nodes_start "${1#kafka-}" ;;
    *) die "unknown node: $1 (one of ${ALL_NODES[*]})" ;;
  esac
}

node_status() {
  case $1 in
    zookeeper) zookeeper_status ;;
    clickhouse-[1-4]) clickhouse_node_status "${1#clickhouse-}" ;;
    kafka-[1-3]) kafka_node_status "${1#kafka-}" ;;
  esac
}

# SIGTERM (a clean stop) or SIGKILL (a crash), and wait until the process is gone.
node_stop() {
  local node=$1 signal=$2 pid
  if ! pid=$(node_pid "$node"); then log "$node: not running"; return; fi
  if [[ $signal == KILL ]]; then
    kill -KILL "$pid" 2>/dev/null || true
    wait_until 10 "$node (pid $pid) to die" pid_gone "$pid" || die "$node (pid $pid) survived SIGKILL"
    log "$node: killed (pid $pid)"
  else
    stop_pid "$node" "$pid"
    log "$node: stopped"
  fi
}

cluster_env() {
  local n brokers=() urls=()
  for n in "${KAFKA_NODES[@]}"; do brokers+=("$HOST:$(kafka_node_port "$n")"); done
  for n in "${CLICKHOUSE_NODES[@]}"; do urls+=("http://$HOST:$(ch_http "$n")"); done
  local IFS=,
  echo "export KAFKA_BROKERS=${brokers[*]}"
  echo "export CLICKHOUSE_URLS=${urls[*]}"
  echo "export CLICKHOUSE_CLUSTER=$CLUSTER_NAME"
  echo "export REDIS_URL=redis://$HOST:$REDIS_PORT"
  echo "export DATABASE_URL=postgres://postgres@$HOST:$PG_PORT/test"
}

cluster_usage() {
  cat >&2 <<EOF
usage: bash deploy/local/cluster.sh <up|down|status|env|reset>
       bash deploy/local/cluster.sh <kill|start> <node>
nodes: ${ALL_NODES[*]}
cluster folder: $CLUSTER_DIR
EOF
  exit 2
}

cluster_main() {
  (($# >= 1)) || cluster_usage
  local command=$1; shift
  case $command in
    up)
      take_lock
      local t0 n
      t0=$(now_ms)
      mkdir -p "$CLUSTER_DIR"
      need_command java openjdk-17-jre-headless
      need_command curl curl
      kafka_ensure_libs
      zookeeper_start
      for n in "${CLICKHOUSE_NODES[@]}"; do clickhouse_node_start "$n"; done
      kafka_nodes_start "${KAFKA_NODES[@]}"
      redis_up
      postgres_up
      log "cluster ready ($(elapsed "$t0")); folder $CLUSTER_DIR"
      cluster_env
      ;;
    down)
      take_lock
      local i
      for ((i = ${#ALL_NODES[@]} - 1; i >= 0; i--)); do node_stop "${ALL_NODES[i]}" TERM; done
      ;;
    reset)
      take_lock
      local i
      for ((i = ${#ALL_NODES[@]} - 1; i >= 0; i--)); do node_stop "${ALL_NODES[i]}" TERM; done
      rm -rf "$CLUSTER_DIR"
      log "cluster data deleted"
      ;;
    status)
      local failed=0 node
      for node in "${ALL_NODES[@]}"; do node_status "$node" || failed=1; done
      return "$failed"
      ;;
    env) cluster_env ;;
    kill | start)
      (($# == 1)) || cluster_usage
      take_lock
      if [[ $command == kill ]]; then node_stop "$1" KILL; else node_start "$1"; fi
      ;;
    -h | --help | help) cluster_usage ;;
    *) log "unknown command: $command"; cluster_usage ;;
  esac
}

cluster_main "$@"
