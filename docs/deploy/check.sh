#!/usr/bin/env bash
# Checks the deployment examples' syntax with the real tools, where they are installed:
#   apt-get install systemd caddy nginx
# Litestream is not packaged by Debian; its file is checked as YAML only.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if command -v systemd-analyze >/dev/null; then
  # verify wants the paths the unit names; it is run against a copy pointing at real files.
  sed -e "s|/opt/node-24/bin/node|$(command -v true)|" "$here/agent-contact.service" > "$work/agent-contact.service"
  systemd-analyze verify "$work/agent-contact.service" && echo "systemd unit: ok"
  sed -e "s|/opt/node-24/bin/node|$(command -v true)|" "$here/agent-contact-check.service" > "$work/agent-contact-check.service"
  cp "$here/agent-contact-check.timer" "$work/"
  systemd-analyze verify "$work/agent-contact-check.service" "$work/agent-contact-check.timer" && echo "check timer: ok"
fi
if command -v caddy >/dev/null; then
  caddy validate --adapter caddyfile --config "$here/Caddyfile" 2>&1 | tail -1 && echo "Caddyfile: ok"
fi
if command -v nginx >/dev/null; then
  # nginx -t needs a whole configuration and the certificate files the site names.
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=test -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
  sed -e "s|/etc/letsencrypt/live/agents.example.org/fullchain.pem|$work/cert.pem|" \
      -e "s|/etc/letsencrypt/live/agents.example.org/privkey.pem|$work/key.pem|" "$here/nginx.conf" > "$work/site.conf"
  printf 'pid %s/nginx.pid;\nerror_log stderr;\nevents {}\nhttp {\n  access_log off;\n  include %s/site.conf;\n}\n' "$work" "$work" > "$work/nginx.conf"
  nginx -t -q -c "$work/nginx.conf" && echo "nginx site: ok"
fi
python3 -c 'import sys, yaml; yaml.safe_load(open(sys.argv[1])); print("litestream.yml: valid YAML")' "$here/litestream.yml" 2>/dev/null \
  || echo "litestream.yml: not checked (needs python3 with PyYAML)"
