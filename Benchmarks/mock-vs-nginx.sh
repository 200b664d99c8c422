#!/usr/bin/env bash
# The mock against the limit: h2load sends the same Live Activity pushes to Debian's nginx
# (nginx-apns.conf: `return 200` with an `apns-id`, over HTTP/2 and TLS) and to `pushbench mock`
# (every header validated, the ES256 provider token verified once and cached, `apns-id` echoed,
# everything counted), alternating, ROUNDS times, at each server thread
# count (nginx workers, mock --threads) and each h2load shape CONNECTIONSxSTREAMS. h2load itself
# runs one thread, so the client's cost is the same for every server.
#
# The servers' own CPU (user + system, nginx's workers included) is read from /proc around each
# run and divided by the requests, which must all succeed. Prints every run, then per thread
# count and shape the medians of both servers' µs a request and req/s, the mock's ratios to
# nginx, and whether they meet the goal the mock is built towards: at most 1.2 times nginx's CPU
# a request, at least 0.9 times its req/s. Always exits 0 when every run succeeded: the goal is
# a figure to read, not a gate, on a machine this shared.
#
# Usage: [THREADS="1 2"] Benchmarks/mock-vs-nginx.sh [ROUNDS] [REQUESTS] [SHAPES...]
#        (defaults: 3 rounds, 200000 requests, shapes 1x100 8x100 64x10)
# With BASELINE_PUSHBENCH=/path/to/an/older/pushbench, that binary's mock joins each rotation
# ("baseline"), started with BASELINE_ARGS too when set (an older build's `--engine nio`, say), so
# a change to the mock is judged against the build before it.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3} requests=${2:-200000}
shift $(($# > 2 ? 2 : $#))
shapes=("${@:-1x100 8x100 64x10}")
[[ ${#shapes[@]} -eq 1 ]] && read -r -a shapes <<<"${shapes[0]}"
read -r -a thread_counts <<<"${THREADS:-1 2}"
command -v h2load >/dev/null || { echo "h2load not found: run Scripts/install-deps.sh (nghttp2-client)" >&2; exit 2; }
command -v nginx >/dev/null || { echo "nginx not found: apt-get install nginx-light" >&2; exit 2; }

swift build -c release --product pushbench >&2
binary=$PWD/.build/release/pushbench
work=$(mktemp -d)
declare -A pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -INT "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT

source Benchmarks/signed-push.sh
# One certificate for both servers, so the handshakes cost them alike.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout "$work/server.key" -out "$work/server.pem" 2>/dev/null

# Starts `pushbench mock` ($2, the binary) as server $1 with $3 threads and any further arguments;
# sets origins[$1], pids[$1].
declare -A origins=()
start_mock() {
    "$2" mock --port 0 --tls-cert "$work/server.pem" --tls-key "$work/server.key" --auth-key "$work/public.pem" \
        --key-id "$key_id" --team-id "$team_id" --threads "$3" "${@:4}" >"$work/$1.log" 2>&1 &
    pids[$1]=$!
    for _ in $(seq 1 50); do grep -q "listening on https://" "$work/$1.log" && break; sleep 0.1; done
    origins[$1]=$(grep -o 'https://[0-9.:]*' "$work/$1.log" | head -1)
    [[ -n ${origins[$1]} ]] || { cat "$work/$1.log" >&2; exit 1; }
}

# Starts nginx with $1 workers; sets origins[nginx], pids[nginx] (its master).
start_nginx() {
    local port
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    sed -e "s|@WORK@|$work|g" -e "s|@PORT@|$port|g" -e "s|@WORKERS@|$1|g" \
        Benchmarks/nginx-apns.conf >"$work/nginx.conf"
    nginx -c "$work/nginx.conf" -p "$work" 2>>"$work/nginx-error.log" &
    pids[nginx]=$!
    origins[nginx]=https://127.0.0.1:$port
    for _ in $(seq 1 50); do curl -sk --http2 -o /dev/null "${origins[nginx]}/" && break; sleep 0.1; done
    curl -sk --http2 -o /dev/null "${origins[nginx]}/" || { cat "$work/nginx-error.log" >&2; exit 1; }
}

stop_servers() {
    for name in "${!pids[@]}"; do
        if [[ $name == nginx ]]; then kill -QUIT "${pids[$name]}"; else kill -INT "${pids[$name]}"; fi
        wait "${pids[$name]}" 2>/dev/null || true
    done
    pids=()
}

# CPU seconds (user + sys) server $1 and its children (nginx's workers) have used so far.
server_cpu() {
    local pid=${pids[$1]}
    for each in $pid $(pgrep -P "$pid" 2>/dev/null || true); do cat "/proc/$each/stat" 2>/dev/null; done \
        | awk -v hz="$(getconf CLK_TCK)" '{ sum += $14 + $15 } END { print sum / hz }'
}

# Prints "<req/s> <server µs/request>" for one h2load run of shape $2 against server $1.
measure() {
    local connections=${2%x*} streams=${2#*x} before after output arguments
    mapfile -t arguments < <(h2load_push_arguments "${origins[$1]}")
    before=$(server_cpu "$1")
    output=$(h2load -n "$requests" -c "$connections" -m "$streams" -t 1 "${arguments[@]}" 2>&1)
    after=$(server_cpu "$1")
    grep -q "$requests succeeded" <<<"$output" || { echo "$1 $2: $output" >&2; exit 1; }
    awk -v before="$before" -v after="$after" -v n="$requests" \
        '/^finished in/ {printf "%.0f %.2f\n", $4, (after - before) * 1e6 / n}' <<<"$output"
}

median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

read -r -a baseline_arguments <<<"${BASELINE_ARGS:-}"
mocks=(mock ${BASELINE_PUSHBENCH:+baseline})
servers=(nginx "${mocks[@]}")
declare -A rates=() cpus=()
echo "h2load -n $requests -t 1; server threads: ${thread_counts[*]}; shapes: ${shapes[*]}" >&2
printf '%-7s %-7s %-5s %-8s %10s %20s\n' threads shape round server "req/s" "server µs/request"
for threads in "${thread_counts[@]}"; do
    start_nginx "$threads"
    start_mock mock "$binary" "$threads"
    [[ -n ${BASELINE_PUSHBENCH:-} ]] && start_mock baseline "$BASELINE_PUSHBENCH" "$threads" "${baseline_arguments[@]}"
    for round in $(seq 1 "$rounds"); do
        for shape in "${shapes[@]}"; do
            for server in "${servers[@]}"; do
                read -r rate server_cpu < <(measure "$server" "$shape")
                rates[$threads $shape $server]+="$rate " cpus[$threads $shape $server]+="$server_cpu "
                printf '%-7s %-7s %-5s %-8s %10s %20s\n' "$threads" "$shape" "$round" "$server" "$rate" "$server_cpu"
            done
        done
    done
    stop_servers
done

echo
echo "medians of $rounds rounds; the goal: the mock at most 1.2x nginx's µs a request, at least 0.9x its req/s"
header='%-7s %-7s %-8s %12s %12s %10s %12s %12s %10s %6s\n'
printf "$header" threads shape mock "nginx µs/req" "mock µs/req" "CPU ratio" "nginx req/s" "mock req/s" "req ratio" goal
for threads in "${thread_counts[@]}"; do
    for shape in "${shapes[@]}"; do
        for engine in "${mocks[@]}"; do
            awk -v t="$threads" -v s="$shape" -v e="$engine" \
                -v nc="$(median "${cpus[$threads $shape nginx]}")" -v mc="$(median "${cpus[$threads $shape $engine]}")" \
                -v nr="$(median "${rates[$threads $shape nginx]}")" -v mr="$(median "${rates[$threads $shape $engine]}")" '
                BEGIN {
                    goal = (mc <= 1.2 * nc && mr >= 0.9 * nr) ? "met" : "not"
                    printf "%-7s %-7s %-8s %12.2f %12.2f %10.2f %12.0f %12.0f %10.2f %6s\n", t, s, e, nc, mc, mc / nc, nr, mr, mr / nr, goal
                }'
        done
    done
done
