# Sourced by the scripts that drive one `pushbench mock`: builds the release binary, makes
# $work (removed on exit, after the mock in $mock_pid is stopped), and sources signed-push.sh.
swift build -c release --product pushbench >&2
binary=$PWD/.build/release/pushbench
work=$(mktemp -d)
mock_pid=""
cleanup() {
    [[ -n $mock_pid ]] && kill -INT "$mock_pid" 2>/dev/null && wait "$mock_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

source Benchmarks/signed-push.sh
