#!/usr/bin/env bash
# tls.sh DAEMON - HTTPS on the built-in server (issue 25, item 5): with
# [web] tls_cert / tls_key the daemon answers `curl --cacert CA` over
# HTTPS with the token (200; no token 401), a plain-HTTP request gets no
# HTTP answer (the connection is closed) and the daemon goes on serving,
# TLS 1.0 and 1.1 are refused, a client trusting another CA fails
# verification; `check --url https://`
# works with --ca-file and fails without it with a message naming the URL
# and the reason (exit 2); a bad certificate path, a key that does not
# match, or only one of the two settings stop start-up with a message
# naming the file (exit 2).  Beyond loopback a token over plain HTTP is
# warned about, over HTTPS it is not; a key others can read is warned
# about.  The Windows build (under Wine,
# when built) refuses tls_cert saying what to do instead.  A throw-away
# CA and certificates made with openssl in $tmpdir; daemons are ours,
# stopped by PID.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"
need openssl curl

pki=$tmpdir/pki
mkdir -p "$pki"

# ca NAME: a self-signed CA $pki/NAME.pem with its key $pki/NAME.key.
ca() {
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=memwatch test $1" \
		-keyout "$pki/$1.key" -out "$pki/$1.pem" \
		-addext "basicConstraints=critical,CA:TRUE" \
		-addext "keyUsage=critical,keyCertSign" 2>/dev/null
}

# server_cert: $pki/server.pem for 127.0.0.1 and localhost, signed by ca.
server_cert() {
	openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
		-keyout "$pki/server.key" -out "$pki/server.csr" 2>/dev/null &&
	printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost" "basicConstraints=CA:FALSE" \
		"extendedKeyUsage=serverAuth" >"$pki/ext.cnf" &&
	openssl x509 -req -days 2 -in "$pki/server.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca.key" \
		-CAcreateserial -extfile "$pki/ext.cnf" -out "$pki/server.pem" 2>/dev/null
}

check "a throw-away CA, a server certificate it signs, and another CA" \
	'ca ca && server_cert && ca other'

token=tls-test-token
tls=(--set "web.tls_cert=$pki/server.pem" --set "web.tls_key=$pki/server.key")
mw_serve tls --set "web.token=$token" "${tls[@]}"
tls_pid=$mw_pid
https=https://127.0.0.1:$port

# up: the daemon answers over HTTPS with the right CA.
up() { curl -s -o /dev/null --max-time 2 --cacert "$pki/ca.pem" "$https/healthz"; }
check "the daemon answers HTTPS" wait_until 10 up
check "the log says it listens on https://" \
	'grep -q "listening on https://127.0.0.1:$port" "$tmpdir/tls.log"'
check "a key only its owner reads (0600, as openssl writes it) is not warned about" \
	'[ "$(stat -c %a "$pki/server.key")" = 600 ] && ! grep -q "tls_key.*other users" "$tmpdir/tls.log"'

check "curl --cacert CA with the token: /healthz answers 200" \
	'[ "$(status "$https/healthz" --cacert "$pki/ca.pem" -H "Authorization: Bearer $token")" = 200 ]'
check "with the token an API path answers 200 over HTTPS" \
	'[ "$(status "$https/api/v1/collectors" --cacert "$pki/ca.pem" -H "Authorization: Bearer $token")" = 200 ]'
check "without the token an API path answers 401" \
	'expect_error 401 "bearer token" "$https/api/v1/collectors" --cacert "$pki/ca.pem"'

# A plain-HTTP request on the TLS port: it connects, and the connection
# is closed without an HTTP answer (curl: 52 "Empty reply from server",
# or 56 when it is reset); nothing is served.
plain_refused() {
	local code rc
	code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 \
		-H "Authorization: Bearer $token" "http://127.0.0.1:$port/api/v1/collectors")
	rc=$?
	echo "curl exit $rc, status $code"
	{ [ "$rc" = 52 ] || [ "$rc" = 56 ]; } && [ "$code" = 000 ]
}
check "plain HTTP on the TLS port gets no HTTP answer" plain_refused
check "and the daemon goes on serving HTTPS" up

# handshake VERSION: openssl s_client completes a handshake at that
# version (the client made willing to speak the old ones: SECLEVEL=0).
handshake() {
	openssl s_client -connect "127.0.0.1:$port" "-$1" -CAfile "$pki/ca.pem" \
		-cipher 'DEFAULT@SECLEVEL=0' </dev/null >"$tmpdir/s_client.out" 2>&1
}
check "TLS 1.2 and 1.3 handshakes complete" 'handshake tls1_2 && handshake tls1_3'
check "TLS 1.0 and 1.1 are refused (RFC 8996)" '! handshake tls1 && ! handshake tls1_1'

# verify_failed CA: curl trusting CA refuses the daemon's certificate
# (exit 60, "SSL certificate problem").
verify_failed() {
	local rc
	curl -sS -o /dev/null --max-time 5 ${1:+--cacert "$1"} "$https/healthz" 2>"$tmpdir/curl.err"
	rc=$?
	cat "$tmpdir/curl.err"
	[ "$rc" = 60 ]
}
check "curl trusting another CA fails verification" verify_failed "$pki/other.pem"
check "curl with the system's store fails verification" verify_failed ""

# memwatchd check over HTTPS (exit 3: inconclusive, a fresh database).
check "check --url https:// --ca-file CA gets the report" \
	'expect_rc 3 "$daemon" check --url "$https" --token "$token" --ca-file "$pki/ca.pem" &&
	 grep -q inconclusive "$tmpdir/cmd.out"'
check "check --url https://localhost --ca-file CA (the name in the certificate) too" \
	'expect_rc 3 "$daemon" check --url "https://localhost:$port" --token "$token" \
		--ca-file "$pki/ca.pem"'
check "check --url https:// without --ca-file: exit 2, the URL and the verification failure" \
	'expect_rc 2 "$daemon" check --url "$https" --token "$token" &&
	 grep -qF "memwatchd check: --url: $https: certificate of 127.0.0.1 did not verify" \
		"$tmpdir/cmd.out" && grep -q -- "--ca-file" "$tmpdir/cmd.out"'
check "check --ca-file with another CA: exit 2, did not verify" \
	'expect_rc 2 "$daemon" check --url "$https" --token "$token" --ca-file "$pki/other.pem" &&
	 grep -q "did not verify" "$tmpdir/cmd.out"'
check "check --ca-file with a missing file: exit 2 naming it" \
	'expect_rc 2 "$daemon" check --url "$https" --token "$token" --ca-file "$pki/none.pem" &&
	 grep -qF -- "--ca-file $pki/none.pem cannot be read" "$tmpdir/cmd.out"'
check "check --url http:// --ca-file: exit 2, not https://" \
	'expect_rc 2 "$daemon" check --url "http://127.0.0.1:$port" --ca-file "$pki/ca.pem" &&
	 grep -q "is not https://" "$tmpdir/cmd.out"'
check "diff --url https:// --ca-file CA reaches the daemon (its 404 for an unknown process)" \
	'expect_rc 2 "$daemon" diff --url "$https" --token "$token" --ca-file "$pki/ca.pem" \
		--process no-such-process && grep -q "answered 404" "$tmpdir/cmd.out"'
check "diff --url https:// without --ca-file fails verification" \
	'expect_rc 2 "$daemon" diff --url "$https" --token "$token" --process x &&
	 grep -q "did not verify" "$tmpdir/cmd.out"'
check "the TLS daemon stops cleanly" mw_stop "$tls_pid"

# Start-up refusals: exit 2 and a message naming the file and the fault
# (bounded: a daemon that starts instead is stopped by timeout, exit 124).
cp "$pki/other.key" "$pki/mismatch.key"
printf 'not a certificate\n' >"$pki/junk.pem"
# refused CERT KEY NEEDLE: `run` with those settings exits 2 and its
# output has NEEDLE.
refused() {
	expect_rc 2 timeout 20 "$daemon" run --db "$tmpdir/refused.db" \
		--listen "127.0.0.1:$(free_port)" --set "web.tls_cert=$1" --set "web.tls_key=$2" \
		</dev/null &&
		grep -qF -- "$3" "$tmpdir/cmd.out"
}
# what it is | tls_cert | tls_key | what the message says
while IFS='|' read -r what cert key needle; do
	check "$what: exit 2 naming it" refused "$pki/$cert" "$pki/$key" "$needle"
done <<EOF
a missing tls_cert|none.pem|server.key|[web] tls_cert '$pki/none.pem' cannot be opened
a tls_cert that is not PEM|junk.pem|server.key|[web] tls_cert '$pki/junk.pem' is not a PEM certificate
a key that does not match the certificate (GnuTLS's words)|server.pem|mismatch.key|do not match
the two files swapped|server.key|server.pem|are tls_cert and tls_key swapped?
EOF
check "tls_cert without tls_key: exit 2" \
	'expect_rc 2 timeout 20 "$daemon" run --db "$tmpdir/refused.db" \
		--listen "127.0.0.1:$(free_port)" --set "web.tls_cert=$pki/server.pem" &&
	 grep -qF "tls_cert is set without [web] tls_key" "$tmpdir/cmd.out"'

# Beyond loopback: a token over plain HTTP is said loudly; over HTTPS not.
port=$(free_port)
mw_start open --db "$tmpdir/open.db" --listen "0.0.0.0:$port" --set "web.token=$token"
open_pid=$mw_pid
check "0.0.0.0 with a token over plain HTTP starts" wait_ready "http://127.0.0.1:$port/healthz"
check "and warns that the token crosses the network in clear text" \
	'grep "warn" "$tmpdir/open.log" | grep -q "0.0.0.0:$port over plain HTTP: the bearer token"'
check "it stops cleanly" mw_stop "$open_pid"
# ... and this one's key (a copy) can be read by everyone: warned about.
port=$(free_port)
cp "$pki/server.key" "$pki/open.key"
chmod 644 "$pki/open.key"
mw_start open_tls --db "$tmpdir/open_tls.db" --listen "0.0.0.0:$port" --set "web.token=$token" \
	--set "web.tls_cert=$pki/server.pem" --set "web.tls_key=$pki/open.key"
open_pid=$mw_pid
https=https://127.0.0.1:$port
check "0.0.0.0 with a token over HTTPS starts" wait_until 10 up
check "and does not warn about the token" '! grep -q "clear text" "$tmpdir/open_tls.log"'
check "a tls_key others can read (0644) is warned about, with chmod 600" \
	'grep "warn" "$tmpdir/open_tls.log" | grep -qF "tls_key '"'"'$pki/open.key'"'"' can be read by other users (mode 0644)" &&
	 grep -q "chmod 600" "$tmpdir/open_tls.log"'
check "it stops cleanly" mw_stop "$open_pid"

# The Windows build has no TLS in its libmicrohttpd: refused, saying
# what to do instead.
exe=$root/build/win64/memwatchd.exe
if [ -n "${MW_SKIP_WIN64:-}" ] || [ ! -e "$exe" ] || ! command -v wine >/dev/null 2>&1; then
	skip "the Windows build under Wine (not built, no Wine, or MW_SKIP_WIN64)"
else
	check "memwatchd.exe with tls_cert: exit 2, no HTTPS in this build, use a reverse proxy" \
		'expect_rc 2 timeout 60 "$root/scripts/wine-run.sh" "$exe" run \
			--db "$(wine_path "$tmpdir/win.db")" --listen "127.0.0.1:$(free_port)" \
			--set "web.tls_cert=$(wine_path "$pki/server.pem")" \
			--set "web.tls_key=$(wine_path "$pki/server.key")" &&
		 grep -q "cannot serve HTTPS" "$tmpdir/cmd.out" &&
		 grep -q "reverse proxy" "$tmpdir/cmd.out"'
fi

finish
