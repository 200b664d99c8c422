#!/usr/bin/env bash
# PushBench's sender (both transports) against h2load (nghttp2's HTTP/2 load generator), side by
# side, on one mock.
#
# Starts `pushbench mock` (release build, one event-loop thread, verifying ES256 provider tokens
# of a key made for this script), then for each shape CONNECTIONS×STREAMS runs both clients
# alternately, ROUNDS times, with the same headers (bearer, push type, topic, priority,
# expiration, content type), a payload of the same size and a different device path per push
# (10,000 of them, cycled), REQUESTS pushes each. PushBench runs
# once with each transport (`--transport nghttp2` and `--transport curl`). Prints every run, then
# per shape the medians of req/s and of client CPU per request (user + sys of the whole client
# process over its requests), and each transport's ratio to h2load. The mock's CPU per request is
# printed too: on 2 cores the clients and the mock share the machine.
#
# Usage: Benchmarks/h2load-compare.sh [ROUNDS] [REQUESTS] [SHAPES...]
#        (defaults: 3 rounds, 100000 requests, shapes 1x100 8x100)
# With OLD_BINARY=path/to/an/earlier/pushbench, that build runs in the same rotation too (as
# old-nghttp2 and old-curl), so a change is judged against its parent on the same machine.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
requests=${2:-100000}
shift $(($# > 2 ? 2 : $#))
shapes=("${@:-1x100 8x100}")
[[ ${#shapes[@]} -eq 1 ]] && read -r -a shapes <<<"${shapes[0]}"
command -v h2load >/dev/null || { echo "h2load not found: run Scripts/install-deps.sh (nghttp2-client)" >&2; exit 2; }

source Benchmarks/with-mock.sh

start_signed_mock
mapfile -t push_arguments < <(h2load_push_arguments "$origin")
echo "mock $origin (1 event-loop thread), $requests requests per run, payload $(wc -c <"$work/payload.json") bytes" >&2

# CPU seconds (user + sys) the mock has used so far.
mock_cpu() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$mock_pid/stat"; }

# Prints "<req/s> <client µs/request> <mock µs/request>" for one run of client $1 at $2 conns × $3 streams.
measure() {
    local client=$1 connections=$2 streams=$3 before after output rate transport program
    before=$(mock_cpu)
    if [[ $client == h2load ]]; then
        output=$(/usr/bin/time -f 'cpu %U %S' h2load -n "$requests" -c "$connections" -m "$streams" \
            "${push_arguments[@]}" 2>&1)
        grep -q "$requests succeeded" <<<"$output" || { echo "$output" >&2; exit 1; }
        rate=$(awk '/^finished in/ {print $4}' <<<"$output")
    else
        transport=${client#*-} program=$binary
        [[ $client == old-* ]] && program=$OLD_BINARY
        output=$(/usr/bin/time -f 'cpu %U %S' "$program" run --transport "$transport" --endpoint "$origin" \
            --ca-file "$work/mock.pem" \
            --auth-key "$work/key.p8" --key-id "$key_id" --team-id "$team_id" --requests "$requests" \
            --activities $((requests / 100 + 1)) --connections "$connections" --streams "$streams" --no-budget \
            --reports-dir "$work/reports" 2>&1)
        grep -q "^succeeded *$requests\$" <<<"$output" || { echo "$output" >&2; exit 1; }
        rate=$(awk '/^throughput/ {print $2}' <<<"$output")
    fi
    after=$(mock_cpu)
    awk -v rate="${rate%,}" -v n="$requests" -v before="$before" -v after="$after" \
        '/^cpu / {printf "%.0f %.1f %.1f\n", rate, ($2 + $3) * 1e6 / n, (after - before) * 1e6 / n}' <<<"$output"
}

median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

printf '%-7s %-6s %-18s %10s %20s %18s\n' shape round client "req/s" "client µs/request" "mock µs/request"
clients=(h2load pushbench-nghttp2 pushbench-curl)
[[ -n ${OLD_BINARY:-} ]] && clients+=(old-nghttp2 old-curl)
summary=()
for shape in "${shapes[@]}"; do
    connections=${shape%x*} streams=${shape#*x}
    declare -A rates=() cpus=()
    for round in $(seq 1 "$rounds"); do
        for client in "${clients[@]}"; do
            read -r rate cpu mock < <(measure "$client" "$connections" "$streams")
            rates[$client]+="$rate " cpus[$client]+="$cpu "
            printf '%-7s %-6s %-18s %10s %20s %18s\n' "$shape" "$round" "$client" "$rate" "$cpu" "$mock"
        done
    done
    med() { tr ' ' '\n' <<<"$1" | grep . | median; }
    h_rate=$(med "${rates[h2load]}") h_cpu=$(med "${cpus[h2load]}")
    for client in "${clients[@]:1}"; do
        summary+=("$(awk -v s="$shape" -v c="$client" -v hr="$h_rate" -v hc="$h_cpu" \
            -v pr="$(med "${rates[$client]}")" -v pc="$(med "${cpus[$client]}")" 'BEGIN {
            printf "%-7s %-18s %6.0f req/s %5.1f µs/req   h2load %6.0f req/s %5.1f µs/req   req/s ratio %.2f, CPU ratio %.2f",
                s, c, pr, pc, hr, hc, pr / hr, pc / hc }')")
    done
    unset rates cpus
done
printf '\nmedians (ratios: pushbench / h2load)\n'
printf '%s\n' "${summary[@]}"
