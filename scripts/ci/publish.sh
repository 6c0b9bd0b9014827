#!/usr/bin/env bash
# What the GitHub Action (action.yml) runs with mode: publish. Builds data from this
# repository once, then publishes INPUT_PATH to the hub at INPUT_HUB as a trusted publisher:
# data asks GitHub for the job's ID token (the job needs permissions: id-token: write), the
# hub trades it for a token that may publish INPUT_DATASET (OWNER/DATASET, needed: the hub
# matches the job only against that owner's publishers) when its trusted publisher names
# this workflow, and data publishes with it under that owner; the dataset's name is the
# package's. No secret is stored: a
# DATA_TOKEN set in the job's environment is used instead, as by data publish anywhere.
# Its exit code is data's: 0 published, 1 invalid or failed, 4 refused.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
error() {
  echo "::error title=data publish::$1" >&2
  exit 2
}
[[ -n "${INPUT_HUB:-}" ]] || error "hub is needed: the hub's address, such as https://hub.example.org"
if [[ -z "${DATA_TOKEN:-}" && -z "${DATA_ID_TOKEN:-}" && -z "${ACTIONS_ID_TOKEN_REQUEST_URL:-}" ]]; then
  error "this job cannot ask GitHub for an ID token: give the job permissions: id-token: write"
fi
args=(publish "${INPUT_PATH:-.}" --api "$INPUT_HUB" --findability "${INPUT_FINDABILITY:-published}")
[[ -n "${INPUT_DATASET:-}" ]] || error "dataset is needed: OWNER/DATASET, as its trusted publisher names it"
[[ "$INPUT_DATASET" =~ ^[^/[:space:]]+/[^/[:space:]]+$ ]] ||
  error "dataset must be OWNER/DATASET, not \"${INPUT_DATASET}\""
args+=(--owner "${INPUT_DATASET%%/*}")
if [[ ! -f "$root/packages/cli/dist/start.js" ]]; then
  (cd "$root" && npm ci --no-audit --no-fund --loglevel=error && npm run build --silent) >&2
fi
exec node "$root/bin/data" "${args[@]}"
