#!/usr/bin/env bash
# prometheus.sh DAEMON - a real Prometheus (Debian's `prometheus`) scrapes
# memwatchd's /metrics on loopback and its query API returns memwatch's
# series.  Skips when prometheus is not installed.  Bounded (< 60 s).
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

need prometheus curl python3

mw_serve_data x --interval 100ms --set storage.flush_interval=200ms

pport=$(free_port)
cat >"$tmpdir/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: memwatch
    static_configs:
      - targets: ['127.0.0.1:$port']
YML
prometheus --config.file="$tmpdir/prometheus.yml" --storage.tsdb.path="$tmpdir/prom" \
	--web.listen-address="127.0.0.1:$pport" >"$tmpdir/prometheus.log" 2>&1 &
prom_pid=$!
pids+=("$prom_pid")
papi=http://127.0.0.1:$pport/api/v1
check "prometheus ready" wait_ready "http://127.0.0.1:$pport/-/ready"

# prom_has QUERY: poll the query API until QUERY returns a series
# (scrapes every second; bounded to ~30 s).
prom_has() {
	local i
	for i in $(seq 1 150); do
		curl -sf --max-time 2 --data-urlencode "query=$1" "$papi/query" |
			python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d["status"]=="success" and d["data"]["result"] else 1)' 2>/dev/null &&
			return 0
		sleep 0.2
	done
	curl -s --max-time 2 "$papi/targets" | head -c 800
	return 1
}
check "target scraped and up" prom_has 'up{job="memwatch"} == 1'
check "query API returns memwatch_system_available_bytes" prom_has 'memwatch_system_available_bytes > 0'
check "query API returns per-process series" prom_has "memwatch_process_private_bytes{pid=\"$main_pid\"}"
check "query API returns the daemon's health" prom_has 'memwatch_collector_duration_seconds{collector="process"}'
check "no scrape errors (samples scraped)" prom_has 'scrape_samples_scraped{job="memwatch"} > 10'

kill -TERM "$prom_pid" 2>/dev/null
check "daemon stops with status 0" mw_stop "$main_pid"
finish
