# nginx.sh - sourced by what starts an nginx of its own on 127.0.0.1
# (tests/cli/cli_load_servers.sh, scripts/load-bench.sh): nginx_conf DIR PORT LOG
# writes DIR/nginx.conf for a foreground single-process nginx whose every
# path is under DIR, answering "ok" to everything, keep-alive without limit;
# LOG is the access log ("off" for none).  Start it with
#   nginx -c DIR/nginx.conf -p DIR
nginx_conf() {
    local d=$1 port=$2 log=$3
    mkdir -p "$d"
    cat >"$d/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $d/nginx.pid;
error_log $d/error.log;
events { worker_connections 1024; }
http {
    access_log $log;
    client_body_temp_path $d/body;
    proxy_temp_path $d/proxy;
    fastcgi_temp_path $d/fastcgi;
    uwsgi_temp_path $d/uwsgi;
    scgi_temp_path $d/scgi;
    keepalive_requests 100000000;
    server { listen 127.0.0.1:$port; location / { return 200 "ok"; } }
}
CONF
}
