#!/usr/bin/env bash
# Runs every test of byomcp, installing what it needs first (Debian's chromium and
# redis-server, the npm dev packages, staticcheck). Usage: ./test.sh
set -euo pipefail
cd "$(dirname "$0")"

step() { printf '\n==> %s\n' "$*"; }

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || need_apt+=(haproxy)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need_apt+=(nginx)
if ((${#need_apt[@]})); then
  step "apt-get install ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

step "npm ci"
if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*'))
if [ -n "$unformatted" ]; then echo "gofmt needed on:"; echo "$unformatted"; exit 1; fi

step "go vet"
go vet ./...

step "staticcheck"
STATICCHECK="$(go env GOPATH)/bin/staticcheck"
if [ ! -x "$STATICCHECK" ]; then GOFLAGS= go install honnef.co/go/tools/cmd/staticcheck@v0.8.2; fi
"$STATICCHECK" ./...

step "go test -race ./..."
export BYOMCP_REQUIRE_REDIS=1 BYOMCP_REQUIRE_NODE=1 BYOMCP_REQUIRE_LB=1
go test -race -count=1 -timeout 15m ./...

step "go test ./agentsvc/planner/ (its conversation tables whole: under -race they run one in four)"
go test -count=1 ./agentsvc/planner/

step "node --test jsclient/test/"
node --test jsclient/test/

step "browser end-to-end tests (playwright-core + Debian chromium)"
BYOMCP_BIN="$(mktemp -d)/byomcp"
go build -o "$BYOMCP_BIN" ./cmd/byomcp
export BYOMCP_BIN
node --test --test-concurrency=1 e2e/browser/

step "AG-UI end-to-end tests (@ag-ui/client HttpAgent against the binary)"
node --test --test-concurrency=1 e2e/agui/

if [ -x e2e/mcp/conformance.sh ]; then
  step "MCP conformance suite (client, core)"
  e2e/mcp/conformance.sh
fi

printf '\nall tests passed\n'
