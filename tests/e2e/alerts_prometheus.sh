#!/usr/bin/env bash
# alerts_prometheus.sh - contrib/prometheus's alert and recording rules and
# contrib/grafana's dashboard against Debian's real Prometheus fed by
# memwatch's remote write: a leaking helper's alerts fire in ALERTS, a
# plateauing one raises none, every dashboard query returns data.  Every
# process is started by the test and stopped by its PID.  The scenario and
# the checks: alerts_prometheus.py (TAP lines).
set -u
cd "$(dirname "$0")/../.."
exec python3 tests/e2e/alerts_prometheus.py
