#!/usr/bin/env bash
# Runs the load suite against byomcp and against the Node reference agent (bench/ref-agent.mjs:
# ws + the official MCP TypeScript SDK Client) with the same generator in one run, and prints
# the README's performance table with the ratios, then every measure per scenario.
#
# Usage: bench/side-by-side.sh [byomcp bench flags...]
#   e.g. bench/side-by-side.sh --scale 0.1          a quick run (a tenth of the sessions and time)
#        bench/side-by-side.sh --scenarios idle     one scenario
#        bench/side-by-side.sh --scenarios realistic,realistic-memory,provider,burst
#                                                   the realistic pages (issue 18) only
# The suite: idle, one, steady, turns, hundred, saturation, and on the demo's real pages
# realistic (SQLite store), realistic-memory, provider (HTTPS model) and burst (a Python
# http.server model: needs python3).
# The results are also written as JSON to $BENCH_JSON (default: a temporary file, named at the
# end). Needs Go, Node 20+ and the npm dev packages (installed if missing).
# A full run takes about 15 minutes and uses both cores: run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v python3 >/dev/null; then
  echo "side-by-side: python3 is needed for the burst scenario's model (bench/slow-model.py)" >&2
fi
if [ ! -d node_modules/@modelcontextprotocol/sdk ] || [ ! -d node_modules/ws ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
dir="$(mktemp -d)"
json="${BENCH_JSON:-$dir/bench-results.json}"
go build -o "$dir/byomcp" ./cmd/byomcp
status=0
"$dir/byomcp" bench --compare "node bench/ref-agent.mjs" --json "$json" "$@" || status=$?
echo
echo "JSON results: $json"
exit "$status"
