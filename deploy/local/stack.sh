#!/usr/bin/env bash
# Local stack without Docker: Kafka (KRaft), ClickHouse, Redis and PostgreSQL as plain processes.
#
#   bash deploy/local/stack.sh up     [service...]   install what is missing, start, wait until ready
#   bash deploy/local/stack.sh down   [service...]   stop what this script started
#   bash deploy/local/stack.sh status [service...]   one line per service; exit 0 only if all are up
#   bash deploy/local/stack.sh env                   the export lines the test suites read
#   bash deploy/local/stack.sh up --cluster          the local cluster instead (deploy/local/cluster.sh)
#
# Services: kafka clickhouse redis postgres (default: all). `up` reports progress on stderr and prints
# only the export lines on stdout, so `eval "$(bash deploy/local/stack.sh up)"` works.
#
# Everything the stack writes lives in one folder, ${STACK_DIR:-~/.local/state/event-alerting/stack}.
# It belongs to the machine and user, not to a checkout: the services listen on fixed ports, so two
# checkouts (a developer's second clone, CI's fresh clone on the same machine) must manage the same
# processes rather than each find the ports "held by someone else". Kafka and ClickHouse
# always belong to this script. Redis and PostgreSQL are often already provided by the machine (CI
# images, developer laptops): when one already answers it is used as is, and `down` only stops the
# ones this script started itself (recorded in the stack folder).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$SCRIPT_DIR/../.." && pwd)"
STACK_DIR="${STACK_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/event-alerting/stack}"

# Ports are fixed by the contract with the test suites (`env`); they can be overridden only to run a
# second stack beside a machine's own services.
KAFKA_PORT="${STACK_KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${STACK_KAFKA_CONTROLLER_PORT:-9093}"
CLICKHOUSE_HTTP_PORT="${STACK_CLICKHOUSE_HTTP_PORT:-8123}"
CLICKHOUSE_TCP_PORT="${STACK_CLICKHOUSE_TCP_PORT:-9000}"
REDIS_PORT="${STACK_REDIS_PORT:-6379}"
PG_PORT="${STACK_PG_PORT:-5432}"
HOST=127.0.0.1

# A test broker needs little memory; KAFKA_HEAP_OPTS overrides it like in Kafka's own scripts.
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"

# Upper bounds for every wait, in seconds. A cold Kafka start is ~3s here; the margins are for slow CI.
START_TIMEOUT="${STACK_START_TIMEOUT:-90}"
STOP_TIMEOUT="${STACK_STOP_TIMEOUT:-30}"
LOCK_TIMEOUT="${STACK_LOCK_TIMEOUT:-300}"

ALL_SERVICES=(kafka clickhouse redis postgres)

SUDO=""
if [[ $EUID -ne 0 ]]; then SUDO="sudo"; fi

# --- output -----------------------------------------------------------------------------------------

log() { printf '[stack] %s\n' "$*" >&2; }
die() { printf '[stack] ERROR: %s\n' "$*" >&2; exit 1; }

# The last lines of a log, to make a failed start self-explanatory in CI output.
show_tail() {
  local file=$1
  if [[ -s $file ]]; then
    printf '[stack] --- last lines of %s ---\n' "$file" >&2
    tail -n 30 "$file" >&2
    printf '[stack] --- end of %s ---\n' "$file" >&2
  fi
}

print_env() {
  echo "export KAFKA_BROKERS=$HOST:$KAFKA_PORT"
  echo "export CLICKHOUSE_URL=http://$HOST:$CLICKHOUSE_HTTP_PORT"
  echo "export REDIS_URL=redis://$HOST:$REDIS_PORT"
  echo "export DATABASE_URL=postgres://postgres@$HOST:$PG_PORT/test"
}

now_ms() { date +%s%3N; }
elapsed() { local ms=$(($(now_ms) - $1)); printf '%d.%ds' $((ms / 1000)) $((ms % 1000 / 100)); }

# --- processes and ports ----------------------------------------------------------------------------

# Alive and not a zombie: a server that dies while `up` waits stays our unreaped child, and `kill -0`
# alone would still report it as running.
pid_alive() {
  local pid=$1 state
  [[ -n $pid && -r /proc/$pid/stat ]] || return 1
  state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 1
  [[ -n $state && $state != Z ]]
}

# The pid recorded in a pid file, if that process is alive and its command line still contains
# `pattern` (guards against a recycled pid after a reboot or a crash).
owned_pid() {
  local pidfile=$1 pattern=$2 pid
  [[ -f $pidfile ]] || return 1
  pid=$(tr -dc '0-9' <"$pidfile")
  pid_alive "$pid" || return 1
  grep -qF -- "$pattern" < <(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  echo "$pid"
}

pid_gone() { ! pid_alive "$1"; }

# Bash's /dev/tcp keeps this free of nc/nmap, which a fresh machine may lack.
port_open() { timeout 1 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; }
port_free() { ! port_open "$HOST" "$1"; }

# Who holds a port, for error messages only.
port_owner() {
  command -v ss >/dev/null || { echo "unknown process"; return; }
  ss -Hltnp "sport = :$1" 2>/dev/null | grep -o 'users:(([^)]*))' | head -n 1 || true
}

# wait_until <seconds> <description> <command...>: poll every 0.2s; fails when time runs out.
wait_until() {
  local timeout=$1 what=$2; shift 2
  local deadline=$(($(now_ms) + timeout * 1000))
  until "$@"; do
    if (($(now_ms) > deadline)); then
      log "timed out after ${timeout}s waiting for $what"
      return 1
    fi
    sleep 0.2
  done
}

# Stop a process we own: SIGTERM for a clean shutdown (Kafka flushes and closes its logs), SIGKILL
# only if it has not exited in time, then wait until its ports are free so an immediate `up` can bind.
stop_pid() {
  local name=$1 pid=$2; shift 2
  local ports=("$@")
  kill -TERM "$pid" 2>/dev/null || true
  if ! wait_until "$STOP_TIMEOUT" "$name (pid $pid) to exit" pid_gone "$pid"; then
    log "$name did not stop after SIGTERM; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    wait_until 5 "$name (pid $pid) to die" pid_gone "$pid" || die "$name (pid $pid) survived SIGKILL"
  fi
  local port
  for port in "${ports[@]}"; do
    wait_until 10 "port $port to be released" port_free "$port" ||
      die "$name stopped but port $port is still in use by $(port_owner "$port")"
  done
}

# Start a long-running server detached from this shell: setsid so it outlives the caller and ignores
# the terminal's Ctrl-C, all output to a file so `$(stack.sh up)` does not wait for an open pipe, and
# 9>&- so it does not inherit the stack lock (see take_lock). The inner shell writes its own pid and
# then execs the server, so the pid file holds the server's pid whether or not setsid had to fork.
# Prints that pid.
spawn() {
  local pidfile=$1 outfile=$2; shift 2
  rm -f "$pidfile"
  # shellcheck disable=SC2016 # $$ and $@ belong to the inner shell
  setsid bash -c 'echo $$ >"$0" && exec "$@"' "$pidfile" "$@" >"$outfile" 2>&1 </dev/null 9>&- &
  wait_until 10 "$pidfile" test -s "$pidfile" || die "could not start $1 (see $outfile)"
  cat "$pidfile"
}

# --- installing missing packages --------------------------------------------------------------------

# Install Debian packages non-interactively. A temporary policy-rc.d keeps the packages' init scripts
# from starting system-wide services (a second ClickHouse on 8123, a Redis we would not own): this
# script decides what runs and where its data lives. `apt-get update` only when the index lacks them.
apt_install() {
  local policy=/usr/sbin/policy-rc.d added_policy=""
  command -v apt-get >/dev/null || die "cannot install $*: no apt-get on this machine; install it yourself"
  log "installing $* with apt-get"
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\n# temporary, from deploy/local/stack.sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
    $SUDO chmod 755 "$policy"
    added_policy=1
  fi
  local rc=0
  {
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" ||
      { $SUDO apt-get update -q && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"; }
  } >&2 9>&- || rc=$?
  if [[ -n $added_policy ]]; then $SUDO rm -f "$policy"; fi
  ((rc == 0)) || die "apt-get install $* failed (exit $rc)"
}

need_command() {
  local cmd=$1 pkg=$2
  command -v "$cmd" >/dev/null || apt_install "$pkg"
  command -v "$cmd" >/dev/null || die "$cmd still missing after installing $pkg"
}

# Replace @NAME@ placeholders in a template; the values are paths and ports, never containing '|'.
render() {
  local template=$1 target=$2; shift 2
  local args=() pair
  for pair in "$@"; do args+=(-e "s|@${pair%%=*}@|${pair#*=}|g"); done
  sed "${args[@]}" "$template" >"$target.tmp"
  mv "$target.tmp" "$target"
}

# --- Kafka ------------------------------------------------------------------------------------------

KAFKA_DIR="$STACK_DIR/kafka"
KAFKA_LIBS="$KAFKA_DIR/libs"
KAFKA_PIDFILE="$KAFKA_DIR/kafka.pid"
KAFKA_LOG="$KAFKA_DIR/logs/server.log"
KAFKA_CONFIG="$KAFKA_DIR/server.properties"

kafka_pid() { owned_pid "$KAFKA_PIDFILE" "$KAFKA_CONFIG"; }

# The broker classpath comes from Maven Central through deploy/local/pom.xml. It is resolved again
# only when the pom changes (its hash is kept beside the jars), and into a temporary folder first so
# an interrupted download never leaves a half-filled libs folder that looks complete.
kafka_ensure_libs() {
  local pom="$SCRIPT_DIR/pom.xml" hash
  hash=$(sha256sum "$pom" | cut -d' ' -f1)
  if [[ -f $KAFKA_LIBS/.pom.sha256 && $(cat "$KAFKA_LIBS/.pom.sha256") == "$hash" ]] &&
    compgen -G "$KAFKA_LIBS/kafka_2.13-*.jar" >/dev/null; then
    return
  fi
  need_command mvn maven
  log "kafka: resolving the broker jars from Maven Central (mvn, first run only)"
  rm -rf "$KAFKA_LIBS.tmp"
  # Maven 3.8 prints ANSI resets even with -q -B; strip them to keep CI logs clean.
  mvn -q -B -f "$pom" dependency:copy-dependencies -DoutputDirectory="$KAFKA_LIBS.tmp" 2>&1 | sed $'s/\x1b\\[[0-9;]*m//g' >&2 ||
    die "mvn could not resolve the Kafka jars (see the output above)"
  compgen -G "$KAFKA_LIBS.tmp/kafka_2.13-*.jar" >/dev/null || die "mvn finished but no kafka_2.13 jar is in $KAFKA_LIBS.tmp"
  echo "$hash" >"$KAFKA_LIBS.tmp/.pom.sha256"
  rm -rf "$KAFKA_LIBS"
  mv "$KAFKA_LIBS.tmp" "$KAFKA_LIBS"
}

# Sets the array named $1 to the java command line for a main class of the Kafka distribution (the
# class and its arguments follow): the JVM flags of Kafka's kafka-run-class.sh minus JMX, heap flags
# $3, logs under $2. An array rather than a string so that spawn (setsid) can exec it as it is.
kafka_java_into() {
  local -n into=$1
  local heap
  read -r -a heap <<<"$3"
  into=(java "${heap[@]}" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
    -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true -Dzookeeper.admin.enableServer=false
    "-Dlog4j.configuration=file:$SCRIPT_DIR/kafka/log4j.properties" "-Dkafka.logs.dir=$2"
    -cp "$KAFKA_LIBS/*")
}
KAFKA_JAVA=()
kafka_java_into KAFKA_JAVA "$KAFKA_DIR/logs" "$KAFKA_HEAP_OPTS"

# Whether Kafka's log $1 says "Kafka Server started" after byte $2 (the size it had when this run
# started; from its start if it rolled over since). KafkaRaftServer logs that only once the broker is
# unfenced, so topics can be created and produced to.
kafka_log_started() {
  local log=$1 log_offset=$2 size
  size=$(stat -c %s "$log" 2>/dev/null || echo 0)
  ((size >= log_offset)) || log_offset=0
  # Not `tail | grep -q`: grep stops at the first match, tail dies of SIGPIPE if it still had lines to
  # write (a broker logs thousands of lines as it loads consumer groups), and pipefail turns that into
  # "not ready" on every check until the timeout.
  grep -q 'Kafka Server started' < <(tail -c +"$((log_offset + 1))" "$log" 2>/dev/null)
}

# A Kafka cluster id is 16 random bytes in unpadded URL-safe base64 (what `kafka-storage.sh
# random-uuid` prints); generated here to save a JVM start. A leading '-' would read as a CLI flag.
kafka_cluster_id() {
  local id
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
    if [[ $id != -* ]]; then echo "$id"; return; fi
  done
  die "could not generate a Kafka cluster id"
}

# Ready means: the process is alive, the client port accepts connections, and this run of the broker
# has logged "Kafka Server started", so topics can be used as soon as `up` returns.
kafka_ready() {
  local pid=$1 log_offset=$2
  pid_alive "$pid" || return 2
  port_open "$HOST" "$KAFKA_PORT" || return 1
  kafka_log_started "$KAFKA_LOG" "$log_offset"
}

kafka_up() {
  local t0 pid
  t0=$(now_ms)
  if pid=$(kafka_pid); then
    if wait_until "$START_TIMEOUT" "kafka port $KAFKA_PORT" port_open "$HOST" "$KAFKA_PORT"; then
      log "kafka: already running (pid $pid) on $HOST:$KAFKA_PORT"
      return
    fi
    show_tail "$KAFKA_LOG"
    die "kafka: process $pid is running but not accepting connections on $HOST:$KAFKA_PORT"
  fi
  local port
  for port in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"; do
    if port_open "$HOST" "$port"; then
      die "kafka: port $port is already in use by $(port_owner "$port"), not by this stack (stop it, or set STACK_KAFKA_PORT / STACK_KAFKA_CONTROLLER_PORT)"
    fi
  done

  need_command java openjdk-17-jre-headless
  kafka_ensure_libs
  mkdir -p "$KAFKA_DIR/data" "$KAFKA_DIR/logs"
  render "$SCRIPT_DIR/kafka/server.properties" "$KAFKA_CONFIG" \
    "KAFKA_PORT=$KAFKA_PORT" "KAFKA_CONTROLLER_PORT=$KAFKA_CONTROLLER_PORT" "KAFKA_DATA_DIR=$KAFKA_DIR/data"

  # KRaft storage must be formatted once; after that the data (topics, offsets) is kept across
  # restarts. Skipping the formatter when meta.properties exists saves a JVM start on every `up`.
  if [[ ! -f $KAFKA_DIR/data/meta.properties ]]; then
    log "kafka: formatting KRaft storage in $KAFKA_DIR/data"
    "${KAFKA_JAVA[@]}" kafka.tools.StorageTool format --ignore-formatted \
      --cluster-id "$(kafka_cluster_id)" --config "$KAFKA_CONFIG" >"$KAFKA_DIR/format.log" 2>&1 ||
      { show_tail "$KAFKA_DIR/format.log"; die "kafka: formatting the storage failed"; }
  fi

  local log_offset
  log_offset=$(stat -c %s "$KAFKA_LOG" 2>/dev/null || echo 0)
  log "kafka: starting (KRaft, broker+controller) on $HOST:$KAFKA_PORT"
  pid=$(spawn "$KAFKA_PIDFILE" "$KAFKA_DIR/kafka.out" "${KAFKA_JAVA[@]}" kafka.Kafka "$KAFKA_CONFIG")

  local deadline=$(($(now_ms) + START_TIMEOUT * 1000)) rc
  while :; do
    rc=0
    kafka_ready "$pid" "$log_offset" || rc=$?
    if ((rc == 0)); then break; fi
    if ((rc == 2)); then
      show_tail "$KAFKA_DIR/kafka.out"
      show_tail "$KAFKA_LOG"
      rm -f "$KAFKA_PIDFILE"
      die "kafka: the broker exited during startup"
    fi
    if (($(now_ms) > deadline)); then
      show_tail "$KAFKA_LOG"
      die "kafka: not ready after ${START_TIMEOUT}s (pid $pid is still running; stop it with: stack.sh down kafka)"
    fi
    sleep 0.2
  done
  log "kafka: up on $HOST:$KAFKA_PORT (pid $pid, $(elapsed "$t0"))"
}

kafka_down() {
  local pid
  if pid=$(kafka_pid); then
    log "kafka: stopping (pid $pid)"
    stop_pid kafka "$pid" "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"
    log "kafka: stopped (data kept in $KAFKA_DIR/data)"
  else
    log "kafka: not running"
  fi
  rm -f "$KAFKA_PIDFILE"
}

kafka_status() {
  local pid
  if port_open "$HOST" "$KAFKA_PORT"; then
    if pid=$(kafka_pid); then
      printf '%-11s up    %-45s (pid %s, started by the stack)\n' kafka "$HOST:$KAFKA_PORT" "$pid"
    else
      printf '%-11s up    %-45s (not started by the stack: %s)\n' kafka "$HOST:$KAFKA_PORT" "$(port_owner "$KAFKA_PORT")"
    fi
    return 0
  fi
  printf '%-11s down  %s\n' kafka "$HOST:$KAFKA_PORT"
  return 1
}

# --- ClickHouse -------------------------------------------------------------------------------------

CLICKHOUSE_DIR="$STACK_DIR/clickhouse"
CLICKHOUSE_PIDFILE="$CLICKHOUSE_DIR/clickhouse.pid"
CLICKHOUSE_CONFIG="$CLICKHOUSE_DIR/config.xml"

clickhouse_pid() { owned_pid "$CLICKHOUSE_PIDFILE" "$CLICKHOUSE_CONFIG"; }
clickhouse_ping() { [[ $(curl -s --max-time 2 "http://$HOST:$CLICKHOUSE_HTTP_PORT/ping" 2>/dev/null) == "Ok." ]]; }

# Debian's clickhouse-server 18.16 runs fine as root (it does not insist on the `clickhouse` user),
# so it is started as whoever runs this script, with a config whose every path is in the stack folder.
clickhouse_up() {
  local t0 pid
  t0=$(now_ms)
  need_command curl curl
  if pid=$(clickhouse_pid); then
    if wait_until "$START_TIMEOUT" "clickhouse ping" clickhouse_ping; then
      log "clickhouse: already running (pid $pid) on http://$HOST:$CLICKHOUSE_HTTP_PORT"
      return
    fi
    show_tail "$CLICKHOUSE_DIR/log/clickhouse-server.err.log"
    die "clickhouse: process $pid is running but does not answer /ping"
  fi
  local port
  for port in "$CLICKHOUSE_HTTP_PORT" "$CLICKHOUSE_TCP_PORT"; do
    if port_open "$HOST" "$port"; then
      die "clickhouse: port $port is already in use by $(port_owner "$port"), not by this stack (stop it, or set STACK_CLICKHOUSE_HTTP_PORT / STACK_CLICKHOUSE_TCP_PORT)"
    fi
  done

  need_command clickhouse-server clickhouse-server
  mkdir -p "$CLICKHOUSE_DIR/data" "$CLICKHOUSE_DIR/log"
  render "$SCRIPT_DIR/clickhouse/config.xml" "$CLICKHOUSE_CONFIG" "CLICKHOUSE_DIR=$CLICKHOUSE_DIR" \
    "CLICKHOUSE_HTTP_PORT=$CLICKHOUSE_HTTP_PORT" "CLICKHOUSE_TCP_PORT=$CLICKHOUSE_TCP_PORT"
  cp "$SCRIPT_DIR/clickhouse/users.xml" "$CLICKHOUSE_DIR/users.xml"

  log "clickhouse: starting on http://$HOST:$CLICKHOUSE_HTTP_PORT (native $HOST:$CLICKHOUSE_TCP_PORT)"
  pid=$(spawn "$CLICKHOUSE_PIDFILE" "$CLICKHOUSE_DIR/clickhouse.out" clickhouse-server --config-file="$CLICKHOUSE_CONFIG")

  local deadline=$(($(now_ms) + START_TIMEOUT * 1000))
  until clickhouse_ping; do
    if ! pid_alive "$pid"; then
      show_tail "$CLICKHOUSE_DIR/clickhouse.out"
      show_tail "$CLICKHOUSE_DIR/log/clickhouse-server.err.log"
      rm -f "$CLICKHOUSE_PIDFILE"
      die "clickhouse: the server exited during startup"
    fi
    if (($(now_ms) > deadline)); then
      show_tail "$CLICKHOUSE_DIR/log/clickhouse-server.log"
      die "clickhouse: no answer on /ping after ${START_TIMEOUT}s (pid $pid is still running; stop it with: stack.sh down clickhouse)"
    fi
    sleep 0.2
  done
  log "clickhouse: up on http://$HOST:$CLICKHOUSE_HTTP_PORT (pid $pid, $(elapsed "$t0"))"
}

clickhouse_down() {
  local pid
  if pid=$(clickhouse_pid); then
    log "clickhouse: stopping (pid $pid)"
    stop_pid clickhouse "$pid" "$CLICKHOUSE_HTTP_PORT" "$CLICKHOUSE_TCP_PORT"
    log "clickhouse: stopped (data kept in $CLICKHOUSE_DIR/data)"
  else
    log "clickhouse: not running"
  fi
  rm -f "$CLICKHOUSE_PIDFILE"
}

clickhouse_status() {
  local pid
  if clickhouse_ping; then
    if pid=$(clickhouse_pid); then
      printf '%-11s up    %-45s (pid %s, started by the stack)\n' clickhouse "http://$HOST:$CLICKHOUSE_HTTP_PORT" "$pid"
    else
      printf '%-11s up    %-45s (not started by the stack)\n' clickhouse "http://$HOST:$CLICKHOUSE_HTTP_PORT"
    fi
    return 0
  fi
  printf '%-11s down  %s\n' clickhouse "http://$HOST:$CLICKHOUSE_HTTP_PORT"
  return 1
}

# --- Redis ------------------------------------------------------------------------------------------

REDIS_DIR="$STACK_DIR/redis"
# Written by redis-server itself; its presence (with a live redis-server behind it) is the record
# that this script started the server.
REDIS_PIDFILE="$REDIS_DIR/redis.pid"

redis_pid() { owned_pid "$REDIS_PIDFILE" "redis-server"; }

# Speaks RESP over /dev/tcp, so it works even where redis-cli (redis-tools) is not installed.
redis_ping() {
  timeout 2 bash -c "exec 3<>/dev/tcp/$HOST/$REDIS_PORT && printf 'PING\r\n' >&3 && IFS= read -r line <&3 && [[ \$line == '+PONG'* ]]" 2>/dev/null
}

redis_up() {
  local t0 pid
  t0=$(now_ms)
  if redis_ping; then
    if pid=$(redis_pid); then
      log "redis: already running (pid $pid, started by the stack) on $HOST:$REDIS_PORT"
    else
      log "redis: already running on $HOST:$REDIS_PORT (not started by the stack; using it as is)"
    fi
    return
  fi
  if port_open "$HOST" "$REDIS_PORT"; then
    die "redis: port $REDIS_PORT is in use by $(port_owner "$REDIS_PORT") but it does not answer PING"
  fi

  need_command redis-server redis-server
  mkdir -p "$REDIS_DIR"
  rm -f "$REDIS_PIDFILE"
  # Tests need a cache, not durability: no RDB snapshots, no AOF. '-::1' = IPv6 loopback if available.
  log "redis: starting on $HOST:$REDIS_PORT"
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" --appendonly no \
    --dir "$REDIS_DIR" --logfile "$REDIS_DIR/redis.log" --pidfile "$REDIS_PIDFILE" >&2 9>&- ||
    { show_tail "$REDIS_DIR/redis.log"; die "redis: redis-server failed to start"; }
  if ! wait_until "$START_TIMEOUT" "redis PING" redis_ping; then
    show_tail "$REDIS_DIR/redis.log"
    die "redis: no PONG on $HOST:$REDIS_PORT"
  fi
  # With --daemonize the pid file appears just after the fork; make sure the ownership record exists.
  wait_until 5 "redis pid file" test -s "$REDIS_PIDFILE" || die "redis: started but wrote no pid file"
  log "redis: up on $HOST:$REDIS_PORT (pid $(cat "$REDIS_PIDFILE"), $(elapsed "$t0"))"
}

redis_down() {
  local pid
  if pid=$(redis_pid); then
    log "redis: stopping (pid $pid)"
    stop_pid redis "$pid" "$REDIS_PORT"
    log "redis: stopped"
  elif redis_ping; then
    log "redis: running but not started by the stack; leaving it alone"
  else
    log "redis: not running"
  fi
  rm -f "$REDIS_PIDFILE"
}

redis_status() {
  local pid
  if redis_ping; then
    if pid=$(redis_pid); then
      printf '%-11s up    %-45s (pid %s, started by the stack)\n' redis "redis://$HOST:$REDIS_PORT" "$pid"
    else
      printf '%-11s up    %-45s (not started by the stack)\n' redis "redis://$HOST:$REDIS_PORT"
    fi
    return 0
  fi
  printf '%-11s down  %s\n' redis "redis://$HOST:$REDIS_PORT"
  return 1
}

# --- PostgreSQL -------------------------------------------------------------------------------------

PG_DIR="$STACK_DIR/postgres"
# "<version> <cluster>" of the Debian cluster this script started; absent when it found one running.
PG_STARTED="$PG_DIR/started-by-stack"
PG_URL="postgres://postgres@$HOST:$PG_PORT/test"

pg_ready() { command -v pg_isready >/dev/null && pg_isready -q -h "$HOST" -p "$PG_PORT" -t 2; }
pg_test_db_ok() { psql -h "$HOST" -p "$PG_PORT" -U postgres -d test -w -tAc 'select 1' >/dev/null 2>&1; }

# The Debian cluster ("<version> <name>") configured for our port.
pg_cluster() { pg_lsclusters -h 2>/dev/null | awk -v port="$PG_PORT" '$3 == port { print $1, $2; exit }'; }

# The suites connect as `postgres` without a password over TCP. Debian's default pg_hba.conf asks for
# scram on 127.0.0.1, so trust lines go first (first match wins). Done only for a cluster this script
# starts, never for a server someone else runs.
pg_ensure_trust() {
  local version=$1 name=$2 hba
  hba="/etc/postgresql/$version/$name/pg_hba.conf"
  [[ -f $hba ]] || die "postgres: $hba not found"
  if $SUDO grep -qE '^host\s+all\s+all\s+127\.0\.0\.1/32\s+trust' "$hba"; then return; fi
  log "postgres: allowing passwordless local TCP connections (trust for 127.0.0.1 and ::1) in $hba"
  {
    printf '# added by deploy/local/stack.sh: local test stack, no passwords on loopback\n'
    printf 'host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n\n'
    $SUDO cat "$hba"
  } >"$PG_DIR/pg_hba.conf.new"
  $SUDO cp "$PG_DIR/pg_hba.conf.new" "$hba"
  rm -f "$PG_DIR/pg_hba.conf.new"
}

# Create the `test` database if missing: over TCP as `postgres` when trust allows it, else (root or
# sudo) as the postgres OS user over the local socket, which Debian's peer auth allows.
pg_ensure_test_db() {
  pg_test_db_ok && return
  log "postgres: creating database test"
  psql -h "$HOST" -p "$PG_PORT" -U postgres -d postgres -w -qc 'create database test' >/dev/null 2>&1 ||
    $SUDO runuser -u postgres -- psql -p "$PG_PORT" -d postgres -qc 'create database test' >/dev/null 2>&1 ||
    true
  pg_test_db_ok || die "postgres: cannot run 'select 1' as $PG_URL (is trust auth configured for 127.0.0.1 in pg_hba.conf?)"
}

postgres_up() {
  local t0
  t0=$(now_ms)
  mkdir -p "$PG_DIR"
  if pg_ready; then
    if [[ -f $PG_STARTED ]]; then
      log "postgres: already running (started by the stack) on $HOST:$PG_PORT"
    else
      log "postgres: already running on $HOST:$PG_PORT (not started by the stack; using it as is)"
    fi
    need_command psql postgresql-client
    pg_ensure_test_db
    return
  fi
  if port_open "$HOST" "$PG_PORT"; then
    die "postgres: port $PG_PORT is in use by $(port_owner "$PG_PORT") but pg_isready gets no answer"
  fi

  if ! command -v pg_ctlcluster >/dev/null || ! compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null ||
    ! command -v psql >/dev/null; then
    apt_install postgresql
  fi
  local cluster version name
  cluster=$(pg_cluster)
  if [[ -z $cluster ]]; then
    # Installing the package creates "<version> main" on 5432; a machine may still lack a cluster on
    # our port (deleted, or a different STACK_PG_PORT).
    version=$(find /usr/lib/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n 1)
    [[ -n $version ]] || die "postgres: no server found under /usr/lib/postgresql after installing"
    name=main
    if [[ -d /etc/postgresql/$version/main ]]; then name=stack; fi
    log "postgres: creating cluster $version/$name on port $PG_PORT"
    $SUDO pg_createcluster "$version" "$name" --port "$PG_PORT" >&2
    cluster=$(pg_cluster)
    [[ -n $cluster ]] || die "postgres: cluster creation did not register port $PG_PORT"
  fi
  read -r version name <<<"$cluster"
  pg_ensure_trust "$version" "$name"

  log "postgres: starting cluster $version/$name on $HOST:$PG_PORT"
  # --skip-systemctl-redirect: start the cluster directly; CI machines and containers have no systemd.
  $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" "$name" start >&2 9>&- ||
    { show_tail "/var/log/postgresql/postgresql-$version-$name.log"; die "postgres: pg_ctlcluster start failed"; }
  echo "$version $name" >"$PG_STARTED"
  if ! wait_until "$START_TIMEOUT" "pg_isready" pg_ready; then
    show_tail "/var/log/postgresql/postgresql-$version-$name.log"
    die "postgres: no answer on $HOST:$PG_PORT"
  fi
  pg_ensure_test_db
  log "postgres: up on $HOST:$PG_PORT ($(elapsed "$t0"))"
}

postgres_down() {
  if [[ -f $PG_STARTED ]]; then
    local version name
    read -r version name <"$PG_STARTED"
    log "postgres: stopping cluster $version/$name"
    $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" "$name" stop -m fast >&2 || true
    wait_until "$STOP_TIMEOUT" "port $PG_PORT to be released" port_free "$PG_PORT" ||
      die "postgres: still listening on $PG_PORT after stop"
    rm -f "$PG_STARTED"
    log "postgres: stopped"
  elif pg_ready; then
    log "postgres: running but not started by the stack; leaving it alone"
  else
    log "postgres: not running"
  fi
}

postgres_status() {
  if pg_ready && pg_test_db_ok; then
    local owner="not started by the stack"
    if [[ -f $PG_STARTED ]]; then owner="started by the stack"; fi
    printf '%-11s up    %-45s (%s)\n' postgres "$PG_URL" "$owner"
    return 0
  fi
  if pg_ready; then
    printf '%-11s down  %-45s (server answers, but select 1 on database test fails)\n' postgres "$PG_URL"
  else
    printf '%-11s down  %s\n' postgres "$PG_URL"
  fi
  return 1
}

# --- commands ---------------------------------------------------------------------------------------

usage() {
  cat >&2 <<EOF
usage: bash deploy/local/stack.sh <up|down|status|env> [service...]
services: ${ALL_SERVICES[*]} (default: all)
stack folder: $STACK_DIR (set STACK_DIR to move it)
EOF
  exit 2
}

# Serialise concurrent runs (two test jobs calling `up` at once) on a lock in the stack folder. The
# lock is fd 9, held until this script exits; everything that may outlive the script (the servers)
# is started with 9>&-, otherwise a running broker would hold the lock forever.
take_lock() {
  mkdir -p "$STACK_DIR"
  exec 9>"$STACK_DIR/.lock"
  flock -w "$LOCK_TIMEOUT" 9 || die "another stack.sh is still running after ${LOCK_TIMEOUT}s (lock: $STACK_DIR/.lock)"
}

main() {
  (($# >= 1)) || usage
  local command=$1; shift
  # The cluster (deploy/local/cluster.sh) instead of the single stack.
  if [[ ${1:-} == --cluster ]]; then shift; exec bash "$SCRIPT_DIR/cluster.sh" "$command" "$@"; fi
  local services=("$@") s
  ((${#services[@]})) || services=("${ALL_SERVICES[@]}")
  for s in "${services[@]}"; do
    [[ " ${ALL_SERVICES[*]} " == *" $s "* ]] || { log "unknown service: $s"; usage; }
  done

  case $command in
    up)
      take_lock
      local t0
      t0=$(now_ms)
      for s in "${services[@]}"; do "${s}_up"; done
      log "ready: ${services[*]} ($(elapsed "$t0")); stack folder $STACK_DIR"
      print_env
      ;;
    down)
      take_lock
      # Reverse order of `up`.
      local i
      for ((i = ${#services[@]} - 1; i >= 0; i--)); do "${services[i]}_down"; done
      ;;
    status)
      local failed=0
      for s in "${services[@]}"; do "${s}_status" || failed=1; done
      return "$failed"
      ;;
    env)
      print_env
      ;;
    -h | --help | help) usage ;;
    *) log "unknown command: $command"; usage ;;
  esac
}

# deploy/local/cluster.sh sources this file for its functions; run as a script, it is the command.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
