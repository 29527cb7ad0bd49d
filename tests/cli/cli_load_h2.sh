#!/usr/bin/env bash
# cli_load_h2.sh - `latlab load --http2` against nginx started here on
# 127.0.0.1 (its http2 module): over TLS (h2 chosen by ALPN, a self-signed
# certificate made here with openssl req) and as h2c with prior knowledge,
# always stopped.  Every scheduled request completes with no error; a 404
# path counts as error replies; a server stream cap under --inflight is
# counted as waits for a stream; a TLS server without h2 in ALPN, an
# HTTP/1.1-only server, and hostile servers (python3 here: one that never
# sends SETTINGS, one that sends GOAWAY mid-run, one that resets streams)
# give a clear error or counted failures, within the run plus its timeout.
# SKIPPED without nginx, openssl or python3, or in a build without nghttp2
# (which must then refuse --http2 with exit 2 saying so).
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

# ---- a build without nghttp2 says so (exit 2, naming the flag) --------------------------
"$LATLAB" load --http2 http://127.0.0.1:1/ --rate 10 --duration 1s >"$tmp/nh.out" 2>"$tmp/nh.err"
rc=$?
if grep -q "without HTTP/2" "$tmp/nh.err"; then
    [ $rc = 2 ] && grep -q -- "--http2" "$tmp/nh.err" || fail "no nghttp2: exit $rc (want 2 naming --http2)"
    echo "SKIPPED: this latlab was built without nghttp2 (--http2 refused with exit 2)"
    exit 77
fi
command -v nginx >/dev/null || { echo "SKIPPED: nginx is not installed"; exit 77; }
command -v openssl >/dev/null || { echo "SKIPPED: openssl is not installed"; exit 77; }
"$LATLAB" load https://127.0.0.1:1/ --rate 10 --duration 1s >"$tmp/nt.out" 2>"$tmp/nt.err"
grep -q "without OpenSSL" "$tmp/nt.err" && { echo "SKIPPED: this latlab was built without OpenSSL"; exit 77; }

# ---- misuse: exit 2 before any work --------------------------------------------------------
load_usage "--http2: only with --protocol http" 127.0.0.1:1 --rate 10 --http2 --protocol redis
echo "misuse: exit 2"

# ---- servers --------------------------------------------------------------------------------
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -keyout "$tmp/good.key" -out "$tmp/good.pem" \
    -subj "/CN=good" -addext "subjectAltName=IP:127.0.0.1" >"$tmp/openssl.log" 2>&1 ||
    fail "openssl req could not make a certificate"
h2_nginx() { # name listen-args directives: started, its port in port_NAME; /missing answers 404
    local d=$tmp/nginx-$1 port
    port=$(free_port)
    nginx_conf "$d" "$port" off
    sed -i -e "s|listen 127.0.0.1:$port;|listen 127.0.0.1:$port $2; $3 location /missing { return 404 \"no\"; }|" \
        "$d/nginx.conf"
    grep -q "location /missing" "$d/nginx.conf" || fail "nginx.conf: no listen line to change"
    nginx -c "$d/nginx.conf" -p "$d" 2>"$tmp/nginx-$1.err" </dev/null >/dev/null &
    pids+=("$!")
    printf -v "port_$1" %s "$port"
}
cert="ssl_certificate $tmp/good.pem; ssl_certificate_key $tmp/good.key;"
h2_nginx tls "ssl http2" "$cert"
h2_nginx h2c http2 ""
h2_nginx capped http2 "http2_max_concurrent_streams 2;"
h2_nginx h1tls ssl "$cert"
h2_nginx h1 "" ""
tls=$port_tls h2c=$port_h2c capped=$port_capped h1tls=$port_h1tls h1=$port_h1
for p in "$tls" "$h2c" "$capped" "$h1tls" "$h1"; do wait_port "$p"; done

run() { # name want-exit args...
    local name=$1 want=$2
    shift 2
    local t0
    t0=$(date +%s%N)
    timeout 60 "$LATLAB" load --http2 "$@" --connections 4 --quiet --json "$tmp/$name.json" \
        >"$tmp/$name.out" 2>"$tmp/$name.err"
    local rc=$?
    took_ms=$((($(date +%s%N) - t0) / 1000000))
    [ $rc = "$want" ] || fail "$name: exit $rc (want $want): $(cat "$tmp/$name.err")"
}
count() { j "$tmp/$1.json" "d['counts']$2"; }
all_ok() { # name n
    [ "$(count "$1" "['completed']")" = "$2" ] || fail "$1: completed $(count "$1" "['completed']") of $2"
    [ "$(count "$1" "['failed'] + d['counts']['errors']['refused']")" = 0 ] || fail "$1: requests failed"
}

# ---- h2 over TLS (ALPN) and h2c: every request completes ------------------------------------
run tls 0 "https://127.0.0.1:$tls/" --cacert "$tmp/good.pem" --rate 400 --duration 1s --inflight 4
all_ok tls 400
[ "$(count tls "['error_replies']")" = 0 ] || fail "tls: error replies"
[ "$(j "$tmp/tls.json" "d['tls']['handshakes']")" -ge 4 ] || fail "tls: no handshakes counted"
grep -q "^http2: 0 waits for a stream" "$tmp/tls.out" || fail "tls: no http2 line: $(cat "$tmp/tls.out")"
run h2c 0 "http://127.0.0.1:$h2c/" --rate 400 --duration 1s --inflight 8
all_ok h2c 400
grep -q "^latlab load http://127.0.0.1:$h2c/ (http2): " "$tmp/h2c.out" &&
    [ "$(j "$tmp/h2c.json" "d['config']['protocol']")" = http2 ] || fail "h2c: the protocol not named http2"
echo "h2 (TLS, ALPN) and h2c: 400 of 400 completed each"

# ---- a 404 path: complete responses counted as error replies ----------------------------------
run missing 0 "http://127.0.0.1:$h2c/missing" --rate 200 --duration 1s
all_ok missing 200
[ "$(count missing "['error_replies']")" = 200 ] || fail "missing: error replies $(count missing "['error_replies']") of 200"
echo "404: 200 error replies"

# ---- --targets over h2: each stream carries its target's request (3:1, the 404s on /missing) ---
printf 'GET / name=root weight=3\n\nPOST /missing name=missing\nContent-Type: text/plain\n@b.txt\n' \
    >"$tmp/t.txt"
printf 'hello' >"$tmp/b.txt"
run targets 0 "http://127.0.0.1:$h2c" --targets "$tmp/t.txt" --rate 400 --duration 1s --inflight 8
all_ok targets 400
python3 - "$tmp/targets.json" <<'PY' || fail "targets over h2: $(cat "$tmp/targets.out")"
import json, sys
t = {x["name"]: x for x in json.load(open(sys.argv[1]))["targets"]}
assert (t["root"]["completed"], t["missing"]["completed"]) == (300, 100), t
assert (t["root"]["error_replies"], t["missing"]["error_replies"]) == (0, 100), t
PY
echo "--targets over h2: 300 to /, 100 POSTs to /missing answered 404"

# ---- the server's stream cap (2) under --inflight 8: waits for a stream, counted apart ----------
run capped 0 "http://127.0.0.1:$capped/" --rate 20000 --duration 1s --inflight 8 --connections 1
[ "$(count capped "['completed']")" = 20000 ] || fail "capped: not every request completed"
sw=$(count capped "['stream_waits']")
[ "$sw" -gt 0 ] || fail "capped: no wait for a stream counted"
[ "$sw" -le "$(count capped "['cap_waits']")" ] || fail "capped: more stream waits than waits"
echo "stream cap: $sw waits for a stream"

# ---- servers that do not speak h2: a clear error, exit 1, before the schedule ------------------
run noalpn 1 "https://127.0.0.1:$h1tls/" --cacert "$tmp/good.pem" --rate 100 --duration 1s
grep -q "did not select h2 by ALPN" "$tmp/noalpn.err" || fail "noalpn: no clear error: $(cat "$tmp/noalpn.err")"
[ "$(count noalpn "['sent']")" = 0 ] || fail "noalpn: requests were sent"
run h1only 1 "http://127.0.0.1:$h1/" --rate 100 --duration 1s
grep -q "could not go on: protocol error .* port $h1" "$tmp/h1only.err" ||
    fail "h1only: no clear error: $(cat "$tmp/h1only.err")"
echo "no h2: $(cat "$tmp/noalpn.err") / $(cat "$tmp/h1only.err")"

# ---- hostile servers ----------------------------------------------------------------------------
hostile() { # mode: started, its port in port_MODE
    local port
    port=$(free_port)
    "$PY" - "$port" "$1" >"$tmp/hostile-$1.log" 2>&1 <<'PYEOF' &
import socket, struct, sys, threading
port, mode = int(sys.argv[1]), sys.argv[2]
def frame(t, flags, sid, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([t, flags]) + struct.pack(">I", sid) + payload
def serve(c):
    buf, answered = b"", 0
    try:
        while True:
            d = c.recv(65536)
            if not d:
                return
            buf += d
            if buf.startswith(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"):
                buf = buf[24:]
                if mode != "silent":
                    c.sendall(frame(4, 0, 0))
            if mode == "silent":
                buf = b""
                continue
            while len(buf) >= 9:
                n = int.from_bytes(buf[:3], "big")
                if len(buf) < 9 + n:
                    break
                t, fl, sid = buf[3], buf[4], int.from_bytes(buf[5:9], "big") & 0x7FFFFFFF
                buf = buf[9 + n:]
                if t == 4 and not fl & 1:
                    c.sendall(frame(4, 1, 0))
                if t != 1:
                    continue
                answered += 1
                if mode == "rst" and answered % 5 == 0:
                    c.sendall(frame(3, 0, sid, struct.pack(">I", 2)))
                elif mode == "goaway" and answered == 50:
                    # the streams after this one are refused; the connection ends
                    c.sendall(frame(7, 0, 0, struct.pack(">II", sid - 2, 0)))
                else:
                    c.sendall(frame(1, 5, sid, b"\x88"))
    except OSError:
        pass
    finally:
        c.close()
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen(64)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PYEOF
    pids+=("$!")
    printf -v "port_$1" %s "$port"
}
hostile silent
hostile goaway
hostile rst
silent=$port_silent goaway=$port_goaway rst=$port_rst
for p in "$silent" "$goaway" "$rst"; do wait_port "$p"; done

# never SETTINGS: the connect (2 s) fails clearly, the run does not hang
run silent 1 "http://127.0.0.1:$silent/" --rate 100 --duration 1s --timeout 2s
grep -q "could not go on: .*timed out.* port $silent" "$tmp/silent.err" ||
    fail "silent: no clear error: $(cat "$tmp/silent.err")"
[ "$took_ms" -lt 10000 ] || fail "silent: took $took_ms ms"
echo "no SETTINGS: $(cat "$tmp/silent.err") (${took_ms} ms)"

# GOAWAY after 50 streams on each connection: the refused ones counted, connections re-made
run goaway 0 "http://127.0.0.1:$goaway/" --rate 1000 --duration 1s --inflight 4 --timeout 2s
ga=$(count goaway "['goaways']")
[ "$ga" -gt 4 ] || fail "goaway: $ga GOAWAY frames counted (want connections re-made)"
[ "$(count goaway "['reconnects']")" -gt 0 ] || fail "goaway: no connection re-made"
[ "$(count goaway "['completed'] + d['counts']['failed']")" = "$(count goaway "['sent']")" ] ||
    fail "goaway: requests neither completed nor failed"
[ "$(count goaway "['completed']")" -gt 500 ] || fail "goaway: too few completed"
[ "$(count goaway "['errors']['timeout']")" = 0 ] || fail "goaway: requests timed out"
grep -q "GOAWAY frames" "$tmp/goaway.out" || fail "goaway: not said"
[ "$took_ms" -lt 8000 ] || fail "goaway: took $took_ms ms"
echo "GOAWAY: $ga frames, $(count goaway "['errors']['goaway']") requests refused, $(count goaway "['completed']") completed"

# RST_STREAM on every fifth stream: counted as rst_stream, the rest complete
run rst 0 "http://127.0.0.1:$rst/" --rate 1000 --duration 1s --inflight 4 --timeout 2s
rs=$(count rst "['errors']['rst_stream']")
[ "$rs" -ge 150 ] && [ "$rs" -le 250 ] || fail "rst: $rs streams reset (want about 200)"
[ "$(count rst "['completed'] + d['counts']['errors']['rst_stream']")" = 1000 ] ||
    fail "rst: completed + reset is not 1000"
grep -q "rst_stream $rs" "$tmp/rst.out" || fail "rst: not in the errors line"
echo "RST_STREAM: $rs streams reset, counted"
echo "PASS"
