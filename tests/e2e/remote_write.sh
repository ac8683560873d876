#!/usr/bin/env bash
# remote_write.sh - memwatch forwards its stored points to real receivers
# (Debian's Prometheus with --web.enable-remote-write-receiver, Debian's
# VictoriaMetrics) and to misbehaving ones (tests/e2e/remote_write_fake.py:
# 401, a 400 once, a receiver that hangs, a TLS certificate that does not
# verify).  Everything runs on loopback; every process is started by the
# test and stopped by its PID.  The scenario and the checks are in
# remote_write.py (TAP lines).
set -u
cd "$(dirname "$0")/../.."
exec python3 tests/e2e/remote_write.py build/native/memwatchd
