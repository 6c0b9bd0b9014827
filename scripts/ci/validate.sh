#!/usr/bin/env bash
# What the GitHub Action (action.yml) runs: builds data from this repository once, then
# validates INPUT_PATH with INPUT_FORMAT (github: errors as annotations on the files' lines)
# and --strict when INPUT_STRICT is true. Its exit code is data's: 0 valid, 1 invalid.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [[ ! -f "$root/packages/cli/dist/start.js" ]]; then
  (cd "$root" && npm ci --no-audit --no-fund --loglevel=error && npm run build --silent) >&2
fi
args=(validate "${INPUT_PATH:-.}" --format "${INPUT_FORMAT:-github}")
case "${INPUT_STRICT:-false}" in
  true) args+=(--strict) ;;
  false | '') ;;
  *)
    echo "::error title=data validate::strict must be true or false, not \"${INPUT_STRICT}\"" >&2
    exit 2
    ;;
esac
exec node "$root/bin/data" "${args[@]}"
