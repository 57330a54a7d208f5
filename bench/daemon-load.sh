#!/usr/bin/env bash
# A bounded load run against the daemon on loopback: N distinct lookup
# requests of the largest size the API accepts (256 paths, just under the
# 512 KiB body limit), C at a time. Prints the daemon's RSS when idle after
# its first sync, its peak during the burst, and 60 s after it.
#
#   go build -o /tmp/gm ./cmd/gitmemory
#   bench/daemon-load.sh /tmp/gm /path/to/repo [N=400] [C=8]
set -euo pipefail
bin=$1 repo=$(cd "$2" && pwd) n=${3:-400} c=${4:-8}
tmp=$(mktemp -d)
export GITMEMORY_HOME="$tmp/home" GITMEMORY_TOKEN=
port=$((20000 + RANDOM % 20000))
"$bin" add "$repo" --name load >/dev/null
"$bin" daemon --listen "127.0.0.1:$port" --audit off 2>"$tmp/log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
rss() { awk '/^VmRSS/ { print int($2 / 1024) }' "/proc/$pid/status"; }
until curl -sf -X POST -H 'Content-Type: application/json' "http://127.0.0.1:$port/v1/repositories/load/sync" >/dev/null; do sleep 1; done
sleep 20 # the daemon returns the sync's garbage after 10 s idle
idle=$(rss)
peak=$idle
(while kill -0 $pid 2>/dev/null; do rss; sleep 0.2; done) >"$tmp/samples" &
sampler=$!
python3 - "$port" "$n" "$c" <<'PY'
import json, sys, time, urllib.request
from concurrent.futures import ThreadPoolExecutor
port, n, c = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def body(i):
    # 256 distinct paths of ~1,990 bytes: just under the 512 KiB limit.
    paths = ["src/r%d/p%d/" % (i, k) + "x" * 1970 for k in range(256)]
    return json.dumps({"repository": "load", "paths": paths, "days": 36500}).encode()
def send(i):
    req = urllib.request.Request("http://127.0.0.1:%s/v1/lookup" % port, data=body(i),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        r.read()
        return r.status
start = time.time()
with ThreadPoolExecutor(c) as ex:
    codes = list(ex.map(send, range(n)))
print("requests: %d of %d bytes each, %d at a time, in %.1f s; statuses %s" %
      (n, len(body(0)), c, time.time() - start, {s: codes.count(s) for s in set(codes)}))
PY
sleep 1
kill $sampler 2>/dev/null || true
peak=$(sort -n "$tmp/samples" | tail -1)
sleep 60
after=$(rss)
echo "daemon RSS: idle ${idle} MB, peak ${peak} MB (+$((peak - idle))), 60 s after ${after} MB (+$((after - idle)))"
