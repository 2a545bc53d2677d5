#!/usr/bin/env bash
# Workload 2 (the paper's Squirrelmail case, reduced): curl fetches a PHP page from nginx (127.0.0.1:10080),
# which passes it to php-fpm over FastCGI on 127.0.0.1:19000; the page queries PostgreSQL over TCP
# 127.0.0.1, computes password hashes (bcrypt cost 11, a loop of 2) and writes a file it fsyncs.
# The truth: the php-fpm worker does most of the work (its CPU time), the postgres backend answers the query.
source "$(dirname "$0")/lib.sh"
command -v nginx >/dev/null || real_install nginx
real_install php-fpm php-pgsql postgresql strace curl
D=$(real_outdir webmail)
W=/run/rsp-real-web; rm -rf $W; mkdir -p $W/www $W/tmp; chmod 777 $W/tmp
PHPFPM=$(ls /usr/sbin/php-fpm* | sort -V | tail -1)
stop() {
  [ -e $W/nginx.pid ] && kill "$(cat $W/nginx.pid)" 2>/dev/null
  [ -e $W/fpm.pid ] && kill "$(cat $W/fpm.pid)" 2>/dev/null
  real_pg_stop
  sleep 0.3; rm -rf $W
}
trap stop EXIT
real_pg_start
psql -h 127.0.0.1 -p $PG_PORT -U postgres -q bench -c "create table users(id int primary key, name text, hash text); insert into users select g, 'user'||g, md5(g::text) from generate_series(1,1000) g;"
cat > $W/www/index.php <<'PHP'
<?php
$db = pg_connect("host=127.0.0.1 port=15432 dbname=bench user=postgres");
$r = pg_query($db, "select count(*), max(name) from users where id % 7 = 3");
$row = pg_fetch_row($r);
$h = '';
for ($i = 0; $i < 2; $i++) { $h = password_hash("secret$i", PASSWORD_BCRYPT, ["cost" => 11]); }
$f = fopen("/run/rsp-real-web/tmp/log.txt", "a");
fwrite($f, "$row[0] $row[1] $h\n");
fflush($f); fsync($f); fclose($f);
echo "rows=$row[0] last=$row[1] ok=" . (password_verify("secret1", $h) ? 1 : 0) . "\n";
PHP
cat > $W/fpm.conf <<CONF
[global]
pid = $W/fpm.pid
error_log = $W/fpm.log
daemonize = yes
[www]
user = www-data
group = www-data
listen = 127.0.0.1:19000
pm = static
pm.max_children = 1
CONF
cat > $W/nginx.conf <<CONF
worker_processes 1;
pid $W/nginx.pid;
error_log $W/nginx-error.log;
events { worker_connections 64; }
http {
  access_log off;
  server {
    listen 127.0.0.1:10080;
    root $W/www;
    location ~ \.php\$ {
      include /etc/nginx/fastcgi_params;
      fastcgi_param SCRIPT_FILENAME \$document_root\$fastcgi_script_name;
      fastcgi_pass 127.0.0.1:19000;
    }
  }
}
CONF
$PHPFPM -y $W/fpm.conf
nginx -c $W/nginx.conf
for i in $(seq 50); do curl -fs http://127.0.0.1:10080/index.php >/dev/null && break; sleep 0.2; done   # warm-up
real_record "$D" curl -fsS http://127.0.0.1:10080/index.php
real_strace "$D" curl -fsS http://127.0.0.1:10080/index.php
FPMCOMM=$(basename "$PHPFPM")
real_truth "$D" "$(cat <<J
{"name": "webmail",
 "design": "curl -> nginx -> php-fpm (FastCGI 127.0.0.1) -> PostgreSQL (TCP 127.0.0.1): a query, 2 bcrypt(cost 11) hashes, an fsync'd append",
 "workers": [{"label": "php-fpm worker", "comm": "^${FPMCOMM:0:15}\$"}],
 "related": "^(curl|nginx|php-fpm.*|postgres)\$",
 "kernel_helpers": "^(jbd2/.*|kworker/.*|ksoftirqd/.*|rcu.*|migration/.*|swapper.*)\$",
 "nanosleep_min_ms": null,
 "socket_waits": true,
 "senders": "^(nginx|php-fpm.*|postgres)\$"}
J
)"
echo "webmail: recorded in $D"
