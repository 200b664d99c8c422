# Sourced by the scripts that drive one `pushbench mock`: builds the release binary, makes
# $work (removed on exit, after the mock in $mock_pid is stopped), and sources signed-push.sh.
swift build -c release --product pushbench >&2
binary=$PWD/.build/release/pushbench
work=$(mktemp -d)
mock_pid=""
# The mock's status on SIGINT (130) is not the script's: under set -e, the last command of an && list
# would end the script with it.
cleanup() {
    [[ -n $mock_pid ]] && kill -INT "$mock_pid" 2>/dev/null && wait "$mock_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

source Benchmarks/signed-push.sh
