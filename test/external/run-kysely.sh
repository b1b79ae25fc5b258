#!/usr/bin/env bash
# Runs Kysely's own PostgreSQL integration suite (a suite nobody here wrote) against the
# server at 127.0.0.1:PORT and compares the outcome with kysely-blocklist.tsv.
#
#   test/external/run-kysely.sh CHECKOUT PORT [RESULT_JSON]
#
# CHECKOUT is a Kysely checkout (test/external/README.md says how to make one). It is built
# once (npm install --ignore-scripts, tsc, the two build scripts, tsc -p test/node) and
# never modified: the suite's connection constants (localhost:5434, user/password kysely,
# database kysely_test) are redirected at run time by kysely-connection.cjs, preloaded
# into mocha. Exit status: 0 when every failure is on the blocklist, 1 otherwise.
set -euo pipefail
checkout=$(cd "${1:?usage: run-kysely.sh CHECKOUT PORT [RESULT_JSON]}" && pwd)
port=${2:?usage: run-kysely.sh CHECKOUT PORT [RESULT_JSON]}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
result=${3:-$(mktemp -t kysely-result-XXXXXX.json)}

cd "$checkout"
if [ ! -d node_modules ]; then npm install --ignore-scripts --no-audit --no-fund >&2; fi
if [ ! -d test/node/dist ]; then
  npx tsc >&2
  node scripts/add-deno-type-references.cjs >&2
  node scripts/copy-interface-documentation.cjs >&2
  npx tsc -p test/node >&2
fi

# Mocha's exit status is the failure count: the comparison below decides the script's.
DIALECTS=postgres FLOE_KYSELY_PORT="$port" npx mocha --timeout 15000 \
  --require "$here/kysely-connection.cjs" \
  --reporter json --reporter-option "output=$result" \
  'test/node/dist/**/*.test.js' >/dev/null 2>&1 || true

cd "$here/../.."
node --import tsx test/external/kysely-outcome.ts "$result" "$here/kysely-blocklist.tsv"
