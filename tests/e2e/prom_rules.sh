#!/usr/bin/env bash
# prom_rules.sh - the files in contrib/ checked without a running daemon:
# memwatch's Prometheus rules load (`promtool check rules`), their unit
# tests pass (`promtool test rules contrib/prometheus/tests/*.yml`: series
# that leak, plateau and saw-tooth, memwatch down, silent, not writing),
# and the Grafana dashboard is importable JSON with its variables and a
# query in every panel (contrib/grafana/check_dashboard.py).  The same
# rules and dashboard against a real Prometheus fed by memwatch:
# alerts_prometheus.sh.
set -u
. "$(dirname "$0")/../lib/tap.sh"
cd "$root"

need python3
check "the Grafana dashboard is importable JSON: variables datasource, host, process; a query in every panel" \
	python3 contrib/grafana/check_dashboard.py contrib/grafana/memwatch.json
# The checker itself finds a panel without a query.
python3 - contrib/grafana/memwatch.json "$tmpdir/broken.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["panels"][1]["targets"] = []
d["templating"]["list"] = [v for v in d["templating"]["list"] if v["name"] != "process"]
json.dump(d, open(sys.argv[2], "w"))
PY
check "... and a dashboard without a panel's query or the process variable is refused, naming both" bash -c \
	"! python3 contrib/grafana/check_dashboard.py '$tmpdir/broken.json' >'$tmpdir/broken.out' &&
	 grep -q 'no query' '$tmpdir/broken.out' && grep -q 'variable process missing' '$tmpdir/broken.out'"

need promtool
check "promtool check rules: memwatch-alerts.yml and memwatch-rules.yml" \
	promtool check rules contrib/prometheus/memwatch-alerts.yml contrib/prometheus/memwatch-rules.yml
for t in contrib/prometheus/tests/*.yml; do
	check "promtool test rules $t" promtool test rules "$t"
done
finish
