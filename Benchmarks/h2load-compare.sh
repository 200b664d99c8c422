#!/usr/bin/env bash
# PushBench's sender against h2load (nghttp2's HTTP/2 load generator), side by side, on a server
# that keeps up (Debian's nginx) and on `pushbench mock`.
#
# Both targets serve HTTP/2 over TLS on loopback with one certificate made for this script:
#   nginx  nginx-apns.conf: `return 200` with an `apns-id`, NGINX_WORKERS workers (default 1);
#          installed from Debian's packages if missing. The clients' own cost shows here.
#   mock   `pushbench mock`, one event-loop thread, verifying the ES256 provider tokens of a key
#          made for the script. The mock is usually the bottleneck, which hides the clients' cost.
# For each target, path kind and shape, the clients run alternately, ROUNDS times, REQUESTS pushes
# each, with the same headers (bearer, push type, topic, priority, expiration, content type) and
# a payload of the same size. Path kinds:
#   single    every push to one device token (PushBench: `--tokens` of one line)
#   distinct  a different device path per push (h2load cycles 10,000 with -i; PushBench sends
#             its scenario to REQUESTS/100 + 1 synthetic activities)
# Shapes are CONNECTIONSxSTREAMS, with tN for N threads on both sides (`--threads N`, `-t N`):
# 1x100, 8x100 and 8x100t2 by default.
#
# Every figure is divided by the pushes actually sent: h2load's succeeded count (all must
# succeed), PushBench's summary.json `counts.sent` (all must succeed, the books balanced). CPU is
# the whole client process's user and system time (/usr/bin/time). Prints every run, then per
# target, path kind and shape the medians of req/s and of user, system and total CPU per push,
# and each PushBench's ratios to h2load.
#
# Usage: Benchmarks/h2load-compare.sh [ROUNDS] [REQUESTS] [SHAPES...]
#        (defaults: 3 rounds, 200000 requests, shapes 1x100 8x100 8x100t2)
# Environment: TARGETS (default "nginx mock"), PATHS (default "single distinct"),
#   CURL=1 adds PushBench's libcurl transport (pushbench-curl) and libcurl's own floor (curl-floor:
#   Benchmarks/curl-floor.c, a bare curl_multi loop sending the same requests; one thread, so not
#   at tN shapes),
#   OLD_BINARY=path/to/an/earlier/pushbench runs that build in the same rotation (old-nghttp2, and
#   old-curl with CURL=1), so a change is judged against its parent on the same machine,
#   INSTRUCTIONS=1 runs every client under Valgrind's callgrind and adds its user-space
#   instructions per push (the whole process, every thread): a count this shared machine's load
#   does not move, where CPU times drift by 10% between rounds. It also splits that count into
#   the libraries both clients drive for the same requests and answers (libnghttp2, libssl,
#   libcrypto: "shared") and everything else (the client's own code, its runtime and libc: "own"),
#   which shows how much of a client's cost is left to improve. Under Valgrind a client runs some
#   50 times slower than the server, so it reads more answers per read, and work done per second
#   (progress, the run's timeline) weighs 50 times more; rates and CPU times in this mode are
#   Valgrind's, not the clients'.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
requests=${2:-200000}
shift $(($# > 2 ? 2 : $#))
shapes=("${@:-1x100 8x100 8x100t2}")
[[ ${#shapes[@]} -eq 1 ]] && read -r -a shapes <<<"${shapes[0]}"
read -r -a targets <<<"${TARGETS:-nginx mock}"
read -r -a path_kinds <<<"${PATHS:-single distinct}"
command -v h2load >/dev/null || { echo "h2load not found: run Scripts/install-deps.sh (nghttp2-client)" >&2; exit 2; }

install_nginx() {
    command -v nginx >/dev/null && return
    echo "installing Debian's nginx-light (for the nginx target)" >&2
    local sudo=""
    [[ $(id -u) == 0 ]] || sudo=sudo
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null \
        || { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null; }
}
[[ " ${targets[*]} " == *" nginx "* ]] && install_nginx

source Benchmarks/with-mock.sh

nginx_pid=""
stop_servers() {
    [[ -n $nginx_pid ]] && kill -QUIT "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
    cleanup
}
trap stop_servers EXIT

# One certificate for both servers, for 127.0.0.1 and localhost.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout "$work/server.key" -out "$work/server.pem" 2>/dev/null
head -1 "$work/tokens.txt" >"$work/one-token.txt"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Starts the target $1; sets origin and server_pid (for its CPU time).
start_target() {
    if [[ $1 == mock ]]; then
        start_signed_mock --tls-cert "$work/server.pem" --tls-key "$work/server.key"
        server_pid=$mock_pid
        return
    fi
    local port
    port=$(free_port)
    sed -e "s|@WORK@|$work|g" -e "s|@PORT@|$port|g" -e "s|@WORKERS@|${NGINX_WORKERS:-1}|g" \
        Benchmarks/nginx-apns.conf >"$work/nginx.conf"
    nginx -c "$work/nginx.conf" -p "$work" &
    nginx_pid=$!
    origin=https://127.0.0.1:$port
    for _ in $(seq 1 50); do curl -sk --http2 -o /dev/null "$origin/" && break; sleep 0.1; done
    curl -sk --http2 -o /dev/null "$origin/" || { cat "$work/nginx-error.log" >&2; exit 1; }
    server_pid=$nginx_pid
}

stop_target() {
    if [[ $1 == mock ]]; then
        kill -INT "$mock_pid" && wait "$mock_pid" 2>/dev/null || true
        mock_pid=""
    else
        kill -QUIT "$nginx_pid" && wait "$nginx_pid" 2>/dev/null || true
        nginx_pid=""
    fi
}

# CPU seconds (user + sys) the server and its children (nginx's workers) have used so far.
server_cpu() {
    local pids
    pids=$(pgrep -P "$server_pid" 2>/dev/null || true)
    for pid in $server_pid $pids; do cat "/proc/$pid/stat" 2>/dev/null; done \
        | awk -v hz="$(getconf CLK_TCK)" '{ sum += $14 + $15 } END { print sum / hz }'
}

# How each client runs: timed, and with INSTRUCTIONS=1 counted under callgrind (PushBench from a
# copy without debug information, which Valgrind 3.19 cannot read).
timed=(/usr/bin/time -f 'cpu %U %S')
if [[ ${INSTRUCTIONS:-0} == 1 ]]; then
    timed+=(valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out")
    strip --strip-debug -o "$work/pushbench-counted" "$binary" && binary=$work/pushbench-counted
    if [[ -n ${OLD_BINARY:-} ]]; then
        strip --strip-debug -o "$work/old-pushbench-counted" "$OLD_BINARY" && OLD_BINARY=$work/old-pushbench-counted
    fi
fi

# Instructions a run spent in libnghttp2, libssl and libcrypto, from its callgrind profile.
shared_instructions() {
    callgrind_annotate --threshold=100 "$work/callgrind.out" 2>/dev/null | awk '
        /^ *[0-9,]+ +\(/ && /\[/ { count = $1; gsub(",", "", count); if ($NF ~ /libnghttp2|libssl|libcrypto/) sum += count }
        END { printf "%.0f\n", sum }'
}

# Prints "<pushes> <req/s> <user µs/push> <sys µs/push> <server µs/push> <instructions/push>
# <shared instructions/push>" (the last two "-" unless INSTRUCTIONS=1) for one run of client $1
# at shape $2 with path kind $3.
measure() {
    local client=$1 shape=$2 path_kind=$3 before after output rate pushes program transport
    local connections=${shape%%x*} rest=${shape#*x} threads=1
    local streams=${rest%t*}
    [[ $rest == *t* ]] && threads=${rest#*t}
    before=$(server_cpu)
    if [[ $client == curl-floor ]]; then
        local urls=$work/uris.txt
        if [[ $path_kind == single ]]; then
            urls=$work/one-uri.txt
            echo "$origin/3/device/$(cat "$work/one-token.txt")" >"$urls"
        fi
        output=$("${timed[@]}" "$work/curl-floor" "$urls" "$requests" "$connections" "$streams" \
            "$work/server.pem" "$work/payload.json" "${floor_headers[@]}" 2>&1) || { echo "$output" >&2; exit 1; }
        pushes=$(awk '/^sent/ {print $4}' <<<"$output")
        rate=$(awk '/^sent/ {print $NF}' <<<"$output")
    elif [[ $client == h2load ]]; then
        local paths=(-i "$work/uris.txt")
        [[ $path_kind == single ]] && paths=("$origin/3/device/$(cat "$work/one-token.txt")")
        output=$("${timed[@]}" h2load -n "$requests" -c "$connections" -m "$streams" -t "$threads" \
            "${push_arguments[@]}" "${paths[@]}" 2>&1)
        grep -q "$requests succeeded" <<<"$output" || { echo "$output" >&2; exit 1; }
        pushes=$requests
        rate=$(awk '/^finished in/ {print $4}' <<<"$output")
    else
        transport=${client#*-} program=$binary
        [[ $client == old-* ]] && program=$OLD_BINARY
        local tokens=() activities=$((requests / 100 + 1))
        [[ $path_kind == single ]] && tokens=(--tokens "$work/one-token.txt")
        rm -rf "$work/reports"
        output=$("${timed[@]}" "$program" run --transport "$transport" --endpoint "$origin" \
            --ca-file "$work/server.pem" --auth-key "$work/key.p8" --key-id "$key_id" --team-id "$team_id" \
            --requests "$requests" --activities "$activities" "${tokens[@]}" --threads "$threads" \
            --connections "$connections" --streams "$streams" --no-budget --reports-dir "$work/reports" 2>&1) \
            || { echo "$output" >&2; exit 1; }
        read -r pushes rate < <(python3 - "$work"/reports/*/summary.json <<'PYTHON'
import json, sys
summary = json.load(open(sys.argv[1]))
counts = summary["counts"]
if not summary["accounting_balanced"] or counts["succeeded"] != counts["sent"]:
    sys.exit(f"not every push succeeded: {counts}")
print(counts["sent"], round(summary["throughput_per_s"]))
PYTHON
        )
    fi
    after=$(server_cpu)
    local shared=-
    [[ ${INSTRUCTIONS:-0} == 1 ]] && shared=$(shared_instructions)
    awk -v pushes="$pushes" -v rate="${rate%,}" -v before="$before" -v after="$after" -v shared="$shared" \
        '/Collected : / {instructions = $NF}
        /^cpu / {cpu = sprintf("%d %.0f %.2f %.2f %.2f", pushes, rate, $2 * 1e6 / pushes, $3 * 1e6 / pushes,
            (after - before) * 1e6 / pushes)}
        END {print cpu, instructions == "" ? "- -" : sprintf("%.0f %.0f", instructions / pushes, shared / pushes)}' <<<"$output"
}

median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
med() { tr ' ' '\n' <<<"$1" | grep . | median; }

clients=(h2load pushbench-nghttp2)
if [[ ${CURL:-0} == 1 ]]; then
    clients+=(pushbench-curl curl-floor)
    cc -O2 -o "$work/curl-floor" Benchmarks/curl-floor.c -lcurl
fi
if [[ -n ${OLD_BINARY:-} ]]; then
    clients+=(old-nghttp2)
    [[ ${CURL:-0} == 1 ]] && clients+=(old-curl)
fi
echo "$requests pushes per run, payload $(wc -c <"$work/payload.json") bytes, rounds $rounds" >&2
printf '%-6s %-9s %-8s %-5s %-18s %7s %8s %11s %10s %11s %13s %12s %13s\n' target paths shape round client pushes \
    req/s "user µs/push" "sys µs/push" "CPU µs/push" "server µs/push" "instr/push" "shared/push"
summary=()
for target in "${targets[@]}"; do
    start_target "$target"
    mapfile -t push_arguments < <(h2load_push_arguments "$origin" | sed '/^-i$/,+1d')
    mapfile -t floor_headers < <(printf '%s\n' "${push_arguments[@]}" | sed -n '/^-H$/{n;p}')
    for path_kind in "${path_kinds[@]}"; do
        for shape in "${shapes[@]}"; do
            declare -A rates=() users=() systems=() totals=() counts=() shares=()
            for round in $(seq 1 "$rounds"); do
                for client in "${clients[@]}"; do
                    [[ $client == curl-floor && $shape == *t* ]] && continue
                    read -r pushes rate user system server instructions shared \
                        < <(measure "$client" "$shape" "$path_kind")
                    total=$(awk -v u="$user" -v s="$system" 'BEGIN {printf "%.2f", u + s}')
                    rates[$client]+="$rate " users[$client]+="$user " systems[$client]+="$system "
                    totals[$client]+="$total " counts[$client]+="$instructions " shares[$client]+="$shared "
                    printf '%-6s %-9s %-8s %-5s %-18s %7s %8s %11s %10s %11s %13s %12s %13s\n' "$target" \
                        "$path_kind" "$shape" "$round" "$client" "$pushes" "$rate" "$user" "$system" "$total" \
                        "$server" "$instructions" "$shared"
                done
            done
            h_rate=$(med "${rates[h2load]}") h_total=$(med "${totals[h2load]}") h_count=$(med "${counts[h2load]}")
            for client in "${clients[@]}"; do
                [[ -z ${rates[$client]:-} ]] && continue
                summary+=("$(awk -v t="$target" -v p="$path_kind" -v s="$shape" -v c="$client" -v hr="$h_rate" \
                    -v ht="$h_total" -v r="$(med "${rates[$client]}")" -v u="$(med "${users[$client]}")" \
                    -v y="$(med "${systems[$client]}")" -v x="$(med "${totals[$client]}")" -v hc="$h_count" \
                    -v n="$(med "${counts[$client]}")" -v counted="${INSTRUCTIONS:-0}" \
                    -v d="$(med "${shares[$client]}")" 'BEGIN {
                    printf "%-6s %-9s %-8s %-18s %8.0f %6.2f %6.2f %6.2f", t, p, s, c, r, u, y, x
                    if (counted == 1) printf " %9.0f %9.0f %9.0f", n, d, n - d
                    if (c != "h2load") printf "   %5.2f %5.2f", r / hr, x / ht
                    if (c != "h2load" && counted == 1) printf " %5.2f", n / hc
                    printf "\n" }')")
            done
            unset rates users systems totals counts shares
        done
    done
    stop_target "$target"
done
printf '\nmedians (ratios: this client / h2load)\n'
if [[ ${INSTRUCTIONS:-0} == 1 ]]; then
    printf '%-6s %-9s %-8s %-18s %8s %6s %6s %6s %9s %9s %9s   %5s %5s %5s\n' target paths shape client req/s user \
        sys CPU instr shared own req/s CPU instr
    printf '%-45s %8s %6s %6s %6s %9s %9s %9s\n' "" "" "µs" "µs" "µs" "/push" "/push" "/push"
else
    printf '%-6s %-9s %-8s %-18s %8s %6s %6s %6s   %5s %5s\n' target paths shape client req/s user sys CPU \
        req/s CPU
    printf '%-45s %8s %6s %6s %6s\n' "" "" "µs" "µs" "µs"
fi
printf '%s\n' "${summary[@]}"
