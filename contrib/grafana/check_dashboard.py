#!/usr/bin/env python3
"""check_dashboard.py - checks contrib/grafana/memwatch.json, the Grafana
dashboard shipped for memwatch's series; used by tests/e2e/prom_rules.sh
(the file alone) and tests/e2e/alerts_prometheus.py (against a real
Prometheus fed by memwatch).  Only the standard library.

    check_dashboard.py DASHBOARD.json
        The JSON parses and is importable: a schemaVersion, the template
        variables datasource (type datasource, prometheus), host and
        process; every panel has a title, a known type, a place (gridPos),
        a unique id, the data source variable and at least one query (each
        with its own refId); every variable a query names exists.

    check_dashboard.py DASHBOARD.json --prometheus URL --var host=V --var process=P
        The same, then every query with the variables substituted is run
        against URL (/api/v1/query or query_range, as the panel asks) and
        must return data; the host and process variables' own queries
        (label_values) must offer V and P.

Prints one line per problem (or per query checked with -v) and exits 1 if
there was any problem, 0 otherwise.
"""
import json
import re
import sys
import time
import urllib.parse
import urllib.request

REQUIRED_VARS = ("datasource", "host", "process")
# Panel types Grafana 10 ships (an unknown type imports as a broken panel).
PANEL_TYPES = {"timeseries", "table", "stat", "gauge", "bargauge", "barchart", "piechart",
               "heatmap", "histogram", "state-timeline", "status-history", "text", "logs"}
# Grafana's own variables, with the values a 1-minute refresh would give.
BUILTINS = {"__rate_interval": "1m", "__interval": "15s", "__range": "1h",
            "__range_s": "3600", "__interval_ms": "15000"}
VAR_RE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]")


def obj(x):
    """x when it is a JSON object, else an empty one (bad input reads as missing)."""
    return x if isinstance(x, dict) else {}


def variables(dash):
    t = dash.get("templating")
    lst = t.get("list") if isinstance(t, dict) else None
    return {v["name"]: v for v in lst if isinstance(v, dict) and isinstance(v.get("name"), str)} \
        if isinstance(lst, list) else {}


def var_query(v):
    q = v.get("query")
    q = q.get("query", "") if isinstance(q, dict) else q
    return q if isinstance(q, str) else ""


def static_problems(dash):
    """What makes the dashboard not importable or not usable, as text lines."""
    if not isinstance(dash, dict):
        return ["not a dashboard: the top level is not a JSON object"]
    out = []
    if not isinstance(dash.get("schemaVersion"), int):
        out.append("no schemaVersion")
    if not dash.get("title"):
        out.append("no title")
    vs = variables(dash)
    for name in REQUIRED_VARS:
        if name not in vs:
            out.append("template variable %s missing" % name)
    ds = vs.get("datasource")
    if ds and (ds.get("type") != "datasource" or ds.get("query") != "prometheus"):
        out.append("variable datasource is not a prometheus data source variable")
    for name in ("host", "process"):
        if name in vs and not var_query(vs[name]).startswith("label_values("):
            out.append("variable %s has no label_values query" % name)
    panels = dash.get("panels")
    if not isinstance(panels, list) or not panels or not all(isinstance(p, dict) for p in panels):
        out.append("no panels (a list of objects)")
        return out
    ids = set()
    for p in panels:
        what = "panel %r" % p.get("title", p.get("id"))
        if not p.get("title"):
            out.append("%s: no title" % what)
        if not isinstance(p.get("id"), int):
            out.append("%s: no numeric id" % what)
        elif p["id"] in ids:
            out.append("%s: id %r used twice" % (what, p["id"]))
        else:
            ids.add(p["id"])
        g = obj(p.get("gridPos"))
        if not all(isinstance(g.get(k), int) for k in "xywh"):
            out.append("%s: no gridPos" % what)
        if obj(p.get("datasource")).get("uid") != "${datasource}":
            out.append("%s: data source is not ${datasource}" % what)
        if not isinstance(p.get("type"), str) or p["type"] not in PANEL_TYPES:
            out.append("%s: unknown panel type %r" % (what, p.get("type")))
        targets = p.get("targets") or []
        if not isinstance(targets, list) or not all(isinstance(t, dict) for t in targets):
            out.append("%s: targets is not a list of queries" % what)
            continue
        if not targets:
            out.append("%s: no query" % what)
        refs = [t.get("refId") for t in targets]
        if not all(isinstance(r, str) and r for r in refs) or len(set(refs)) != len(refs):
            out.append("%s: refIds missing or repeated %s" % (what, refs))
        for t in targets:
            expr = t.get("expr") if isinstance(t.get("expr"), str) else ""
            expr = expr.strip()
            if not expr:
                out.append("%s: target %s has no expr" % (what, t.get("refId")))
            for m in VAR_RE.finditer(expr):
                name = m.group(1) or m.group(2) or m.group(3)
                if name not in vs and name not in BUILTINS:
                    out.append("%s: query names undefined variable $%s" % (what, name))
    for name in ("host", "process"):
        for m in VAR_RE.finditer(var_query(obj(vs.get(name)))):
            ref = m.group(1) or m.group(2) or m.group(3)
            if ref not in vs:
                out.append("variable %s names undefined variable $%s" % (name, ref))
    return out


def substitute(expr, values):
    def one(m):
        name = m.group(1) or m.group(2) or m.group(3)
        return values.get(name, BUILTINS.get(name, m.group(0)))
    return VAR_RE.sub(one, expr)


def prom_get(base, path, params):
    url = base.rstrip("/") + path + "?" + urllib.parse.urlencode(params, doseq=True)
    with urllib.request.urlopen(url, timeout=30) as r:
        d = json.loads(r.read())
    if d.get("status") != "success":
        raise RuntimeError("%s: %s" % (path, d.get("error")))
    return d["data"]


def label_values(base, query, values):
    """label_values(SELECTOR, LABEL) the way Grafana runs it."""
    m = re.match(r"label_values\((.*),\s*(\w+)\)\s*$", substitute(query, values))
    if not m:
        raise RuntimeError("cannot read %r" % query)
    now = time.time()
    return prom_get(base, "/api/v1/label/%s/values" % m.group(2),
                    {"match[]": m.group(1), "start": "%.0f" % (now - 3600), "end": "%.0f" % now})


def live_problems(dash, base, values, verbose):
    """Each query, substituted, must return data from the Prometheus at base."""
    out = []
    try:
        prom_get(base, "/api/v1/status/buildinfo", {})
    except Exception as e:  # nothing else can be checked
        return ["Prometheus at %s does not answer: %s" % (base, e)]
    vs = variables(dash)
    for name in ("host", "process"):
        try:
            offered = label_values(base, var_query(vs[name]), values)
        except Exception as e:  # a refused query is a problem to report
            out.append("variable %s: %s" % (name, e))
            continue
        if values.get(name) not in offered:
            out.append("variable %s offers %s, not %r" % (name, offered, values.get(name)))
    now = time.time()
    for p in dash["panels"]:
        for t in p.get("targets", []):
            expr = substitute(t["expr"], values)
            try:
                if t.get("instant") and not t.get("range"):
                    data = prom_get(base, "/api/v1/query", {"query": expr, "time": "%.3f" % now})
                else:
                    data = prom_get(base, "/api/v1/query_range",
                                    {"query": expr, "start": "%.3f" % (now - 600),
                                     "end": "%.3f" % now, "step": "5"})
                n = len(data["result"])
            except Exception as e:
                out.append("panel %r query %s: %s (%s)" % (p["title"], t.get("refId"), e, expr))
                continue
            if n == 0:
                out.append("panel %r query %s returns no data: %s" % (p["title"], t.get("refId"), expr))
            elif verbose:
                print("# panel %r query %s: %d series" % (p["title"], t.get("refId"), n))
    return out


def main(argv):
    args = list(argv[1:])
    verbose = "-v" in args
    if verbose:
        args.remove("-v")
    base, values, files = None, {}, []
    while args:
        a = args.pop(0)
        if a == "--prometheus" and args:
            base = args.pop(0)
        elif a == "--var" and args and "=" in args[0]:
            k, v = args.pop(0).split("=", 1)
            values[k] = v
        else:
            files.append(a)
    if len(files) != 1:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: check_dashboard.py DASHBOARD.json [-v] [--prometheus URL --var NAME=VALUE ...]",
              file=sys.stderr)
        return 2
    try:
        with open(files[0], encoding="utf-8") as f:
            dash = json.load(f)
    except (OSError, ValueError) as e:
        print("%s: %s" % (files[0], e))
        return 1
    problems = static_problems(dash)
    if base and not problems:
        problems += live_problems(dash, base, values, verbose)
    for line in problems:
        print("%s: %s" % (files[0], line))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
