#!/usr/bin/env bash
# cli_load_tls.sh - `latlab load https://...` against nginx started here on
# 127.0.0.1 with a self-signed certificate made here (openssl req), always
# stopped.  With --cacert every scheduled request completes and the TLS
# handshakes are reported apart (JSON "tls": count, p50, p99, max, not in
# latency); --insecure needs no CA; without either the run fails before the
# schedule with OpenSSL's certificate error (exit 1), as it does for a
# certificate made for another name; with nginx closing connections every
# 20 requests, re-made connections resume their session (--tls-resume on)
# or never do (off).  A server that answers TLS with plain bytes fails with
# a clear error, well within the run plus its timeout.  Misuse exits 2.
# SKIPPED without nginx or openssl, or in a build without OpenSSL (which must
# then refuse https:// with exit 2 naming the scheme).
set -u
LATLAB=${LATLAB:?path of the latlab tool}
SRC=${LAT_SRC_DIR:?source dir}
PATH=$PATH:/usr/sbin
# The system python3 itself (a pyenv shim would be the pid the test stops, not the server).
PY=$(command -v /usr/bin/python3 || command -v python3) || { echo "SKIPPED: python3 is not installed"; exit 77; }
# shellcheck source=support/servers.sh
. "$SRC/tests/support/servers.sh"
# shellcheck source=support/nginx.sh
. "$SRC/tests/support/nginx.sh"
j() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# ---- a build without OpenSSL says so (exit 2, naming the scheme) ------------------------
"$LATLAB" load https://127.0.0.1:1/ --rate 10 --duration 1s >"$tmp/nt.out" 2>"$tmp/nt.err"
rc=$?
if grep -q "without OpenSSL" "$tmp/nt.err"; then
    [ $rc = 2 ] && grep -q "https" "$tmp/nt.err" || fail "no TLS: exit $rc (want 2 naming https)"
    echo "SKIPPED: this latlab was built without OpenSSL (https:// refused with exit 2)"
    exit 77
fi
command -v nginx >/dev/null || { echo "SKIPPED: nginx is not installed"; exit 77; }
command -v openssl >/dev/null || { echo "SKIPPED: openssl is not installed"; exit 77; }

# ---- misuse: exit 2 before any work --------------------------------------------------------
load_usage "only with an https:// target" http://127.0.0.1:1/ --rate 10 --insecure
load_usage "only with an https:// target" 127.0.0.1:1 --rate 10 --tls-resume off
load_usage "--protocol http" https://127.0.0.1:1/ --rate 10 --protocol redis
load_usage "TLS: $tmp/none.pem" https://127.0.0.1:1/ --rate 10 --cacert "$tmp/none.pem"
echo "misuse: exit 2"

# ---- certificates and servers ---------------------------------------------------------------
cert() { # name subjectAltName
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -keyout "$tmp/$1.key" -out "$tmp/$1.pem" \
        -subj "/CN=$1" -addext "subjectAltName=$2" >"$tmp/openssl-$1.log" 2>&1 ||
        fail "openssl req could not make a certificate"
}
cert good IP:127.0.0.1
cert wrong DNS:other.example
tls_nginx() { # name cert -> prints the port; nginx closes a connection every 20 requests
    local d=$tmp/nginx-$1 port
    port=$(free_port)
    nginx_conf "$d" "$port" off
    sed -i -e "s|listen 127.0.0.1:$port;|listen 127.0.0.1:$port ssl; ssl_certificate $tmp/$2.pem; ssl_certificate_key $tmp/$2.key; ssl_protocols TLSv1.2 TLSv1.3; keepalive_requests 20;|" \
        -e "/keepalive_requests 100000000/d" "$d/nginx.conf"
    grep -q "ssl_certificate" "$d/nginx.conf" || fail "nginx.conf: no ssl listen"
    echo "$port"
}
good=$(tls_nginx good good)
nginx -c "$tmp/nginx-good/nginx.conf" -p "$tmp/nginx-good" 2>"$tmp/nginx-good.err" &
pids+=("$!")
wrong=$(tls_nginx wrong wrong)
nginx -c "$tmp/nginx-wrong/nginx.conf" -p "$tmp/nginx-wrong" 2>"$tmp/nginx-wrong.err" &
pids+=("$!")
wait_port "$good"
wait_port "$wrong"

run() { # name want-exit args...
    local name=$1 want=$2
    shift 2
    timeout 60 "$LATLAB" load "$@" --duration 1s --connections 4 --quiet --json "$tmp/$name.json" \
        >"$tmp/$name.out" 2>"$tmp/$name.err"
    local rc=$?
    [ $rc = "$want" ] || fail "$name: exit $rc (want $want): $(cat "$tmp/$name.err")"
}
url=https://127.0.0.1:$good/

# ---- verified by --cacert: every request completes, handshakes apart -------------------------
run cacert 0 "$url" --cacert "$tmp/good.pem" --rate 400
[ "$(j "$tmp/cacert.json" "d['counts']['completed']")" = 400 ] ||
    fail "cacert: completed $(j "$tmp/cacert.json" "d['counts']['completed']") of 400"
[ "$(j "$tmp/cacert.json" "d['counts']['failed'] + d['counts']['errors']['refused']")" = 0 ] ||
    fail "cacert: requests failed"
hs=$(j "$tmp/cacert.json" "d['tls']['handshakes']")
[ "$hs" -ge 4 ] || fail "cacert: $hs handshakes (want one per connection at least)"
[ "$(j "$tmp/cacert.json" "d['tls']['failed']")" = 0 ] || fail "cacert: failed handshakes"
[ "$(j "$tmp/cacert.json" "d['tls']['in_latency']")" = False ] || fail "cacert: handshakes in latency"
j "$tmp/cacert.json" "0 < d['tls']['handshake_p50_ns'] <= d['tls']['handshake_p99_ns'] <= d['tls']['handshake_max_ns']" |
    grep -q True || fail "cacert: handshake p50/p99/max missing or out of order"
# the latency histogram holds the requests alone: one value per completed request
[ "$(j "$tmp/cacert.json" "d['latency']['n'] + d['censored']['n']")" = 400 ] ||
    fail "cacert: the latency histogram holds other than the 400 requests"
grep -q "^tls: $hs handshakes (resumed [0-9]*, failed 0): p50 .* p99 .* max .*none in the requests' latency" \
    "$tmp/cacert.out" || fail "cacert: no tls line in the report: $(grep tls "$tmp/cacert.out")"
echo "cacert: 400 completed, $hs handshakes reported apart"

# ---- --tls-handshake-in-latency is said so ------------------------------------------------
run inlat 0 "$url" --cacert "$tmp/good.pem" --rate 200 --tls-handshake-in-latency
[ "$(j "$tmp/inlat.json" "d['tls']['in_latency']")" = True ] || fail "inlat: not marked in latency"
[ "$(j "$tmp/inlat.json" "d['counts']['completed']")" = 200 ] || fail "inlat: not every request completed"

# ---- resumption: connections re-made every 20 requests --------------------------------------
run resume_on 0 "$url" --cacert "$tmp/good.pem" --rate 400 --tls-resume on
run resume_off 0 "$url" --cacert "$tmp/good.pem" --rate 400 --tls-resume off
on=$(j "$tmp/resume_on.json" "d['tls']['resumed']")
off=$(j "$tmp/resume_off.json" "d['tls']['resumed']")
hoff=$(j "$tmp/resume_off.json" "d['tls']['handshakes']")
[ "$hoff" -gt 4 ] || fail "resume: no connection was re-made ($hoff handshakes)"
[ "$on" -gt 0 ] || fail "resume on: no handshake resumed"
[ "$off" = 0 ] || fail "resume off: $off handshakes resumed"
[ "$(j "$tmp/resume_on.json" "d['counts']['completed']")" = 400 ] || fail "resume on: lost requests"
echo "resume: on $on resumed, off 0 of $hoff"

# ---- --insecure: no CA needed ----------------------------------------------------------------
run insecure 0 "$url" --insecure --rate 200
[ "$(j "$tmp/insecure.json" "d['counts']['completed']")" = 200 ] || fail "insecure: not every request completed"

# ---- certificate errors: exit 1 before the schedule, OpenSSL's reason -------------------------
certfail() { # name want-text url args...
    local name=$1 want=$2
    shift 2
    run "$name" 1 "$@" --rate 100
    grep -q "$want" "$tmp/$name.err" || fail "$name: message without '$want': $(cat "$tmp/$name.err")"
    grep -qF "$1" "$tmp/$name.err" || fail "$name: the message does not name the target"
    [ "$(j "$tmp/$name.json" "d['counts']['sent']")" = 0 ] || fail "$name: requests were sent"
}
certfail unknown_ca "certificate verify failed" "$url"
certfail wrong_name "certificate verify failed: IP address mismatch" \
    "https://127.0.0.1:$wrong/" --cacert "$tmp/wrong.pem"
echo "certificate errors: exit 1 before the schedule"

# ---- a server that answers TLS with plain bytes ---------------------------------------------
junk=$(free_port)
"$PY" - "$junk" >"$tmp/junk.log" 2>&1 <<'PYEOF' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(64)
while True:
    c, _ = s.accept()
    try:
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok" * 50)
    except OSError:
        pass
PYEOF
pids+=("$!")
wait_port "$junk"
run junk 1 "https://127.0.0.1:$junk/" --insecure --rate 100 --timeout 2s
grep -q "the TLS handshake failed: .* at 127.0.0.1 port $junk" "$tmp/junk.err" ||
    fail "junk: no clear TLS error: $(cat "$tmp/junk.err")"
echo "junk server: $(cat "$tmp/junk.err")"
echo "PASS"
