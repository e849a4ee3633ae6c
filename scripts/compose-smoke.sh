#!/usr/bin/env bash
# Smoke test of docker-compose.yml, for users (not run in CI, and never run where it was written:
# that machine has no container engine). Starts ClickHouse, Tailscope and the forwarding
# Collector, sends one fan-out trace (a root and four client/server call pairs) through the
# Collector's OTLP/HTTP port, reads it back from Tailscope's REST API (the trace, then the
# fan-out it forms), and tears everything down, volumes included.
#
#   scripts/compose-smoke.sh                 docker compose
#   COMPOSE="podman compose" scripts/compose-smoke.sh
#   COMPOSE_SMOKE_KEEP=1 scripts/compose-smoke.sh   leave the stack running afterwards
#
# Needs: a container engine with Compose v2, curl. The first run pulls images and runs `npm ci`
# inside the `deps` service, which takes minutes.
set -euo pipefail

cd "$(dirname "$0")/.."
COMPOSE=${COMPOSE:-docker compose}
API=${TAILSCOPE_API:-http://127.0.0.1:8080}
COLLECTOR=${COLLECTOR_OTLP_HTTP:-http://127.0.0.1:14318}
WAIT_S=${COMPOSE_SMOKE_WAIT_S:-600}

say() { printf 'compose-smoke: %s\n' "$*"; }
fail() {
  say "FAILED: $*"
  $COMPOSE ps || true
  $COMPOSE logs --tail 50 tailscope otel-collector || true
  exit 1
}

teardown() {
  if [ "${COMPOSE_SMOKE_KEEP:-0}" = 1 ]; then
    say "leaving the stack running ($COMPOSE down -v to remove it)"
  else
    say 'tearing down'
    $COMPOSE down -v --remove-orphans >/dev/null 2>&1 || true
  fi
}
trap teardown EXIT

say 'starting clickhouse, tailscope and otel-collector (not the demo)'
# --wait: until the healthchecks pass (ClickHouse answers, Tailscope's /readyz is 200).
$COMPOSE up -d --wait --wait-timeout "$WAIT_S" clickhouse tailscope otel-collector ||
  fail 'the stack did not become healthy'

# One trace, timestamps now: root GET /search on frontend, four calls to kv-1..kv-4 (Get).
now_ns=$(($(date +%s) * 1000000000))
trace_id=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
root_id=00000000000000a0
spans=''
for i in 1 2 3 4; do
  start=$((now_ns + 1000000))
  end=$((start + i * 2000000))
  client_id=$(printf '00000000000000c%x' "$i")
  server_id=$(printf '00000000000000d%x' "$i")
  spans+=$(cat <<JSON
{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"frontend"}},{"key":"host.name","value":{"stringValue":"frontend-1"}}]},
 "scopeSpans":[{"scope":{"name":"compose-smoke"},"spans":[{"traceId":"$trace_id","spanId":"$client_id","parentSpanId":"$root_id","name":"kv Get","kind":3,"startTimeUnixNano":"$start","endTimeUnixNano":"$((end + 100000))","attributes":[{"key":"peer.service","value":{"stringValue":"kv"}}]}]}]},
{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"kv"}},{"key":"host.name","value":{"stringValue":"kv-$i"}}]},
 "scopeSpans":[{"scope":{"name":"compose-smoke"},"spans":[{"traceId":"$trace_id","spanId":"$server_id","parentSpanId":"$client_id","name":"Get","kind":2,"startTimeUnixNano":"$((start + 50000))","endTimeUnixNano":"$end"}]}]},
JSON
)
done
body=$(cat <<JSON
{"resourceSpans":[$spans
{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"frontend"}},{"key":"host.name","value":{"stringValue":"frontend-1"}}]},
 "scopeSpans":[{"scope":{"name":"compose-smoke"},"spans":[{"traceId":"$trace_id","spanId":"$root_id","name":"GET /search","kind":2,"startTimeUnixNano":"$now_ns","endTimeUnixNano":"$((now_ns + 20000000))"}]}]}]}
JSON
)

say "sending trace $trace_id (9 spans) through the Collector at $COLLECTOR"
curl -fsS -X POST "$COLLECTOR/v1/traces" -H 'content-type: application/json' --data "$body" >/dev/null ||
  fail 'the Collector refused the OTLP request'

# The Collector batches (1 s) and Tailscope writes about once a second: poll.
got=0
for _ in $(seq 1 60); do
  if trace=$(curl -fsS "$API/api/v1/traces/$trace_id" 2>/dev/null); then
    got=$(printf '%s' "$trace" | grep -o '"spanId"' | wc -l | tr -d ' ')
    [ "$got" -ge 9 ] && break
  fi
  sleep 1
done
[ "$got" -ge 9 ] || fail "trace $trace_id: $got of 9 spans came back from $API"
say "trace read back: $got spans"

from=$(((now_ns / 1000000) - 60000))
to=$(((now_ns / 1000000) + 60000))
fanouts=$(curl -fsS "$API/api/v1/fanouts?from=$from&to=$to") || fail '/api/v1/fanouts failed'
printf '%s' "$fanouts" | grep -q '"leafService":"kv"' || fail "no kv fan-out in $fanouts"
printf '%s' "$fanouts" | grep -q '"max":4' || fail "the fan-out is not 4 wide: $fanouts"
say 'fan-out frontend GET /search -> kv Get, width 4: found'
say 'OK'
