#!/usr/bin/env bash
# Lighthouse and axe-core on a paired phone's page, on the insecure origin a table uses:
# tests/system/test-phone-audit.sh
#
# Installs Lighthouse and axe-core (CRIBBAGE_LIGHTHOUSE_VERSION, CRIBBAGE_AXE_VERSION) from the npm
# registry into ${CRIBBAGE_AUDIT_CACHE:-~/.cache/cribbage-board-audit} (outside git: delete it to
# install again), then runs tests/system/phone_audit.py with this tree's venv's Python
# (.venv/bin/python, or CRIBBAGE_AUDIT_PYTHON): a mock board and its web view, Blue's phone paired
# from the board's menu, Lighthouse on /phone at http://cribbage-table.local:PORT (plain HTTP under a
# name that is not localhost, as at a table) and at http://127.0.0.1:PORT, and axe-core on /phone's
# four views, /, /games and /stats at 390x844. One "ok"/"FAIL" line a check; the last line is the
# figures, such as
#   phone audit: lighthouse /phone insecure performance 98 accessibility 100 best-practices 79 seo 100; ...
# Over plain HTTP Lighthouse's is-on-https and redirects-http cannot pass: they are said, not failed.
# Performance fails under 90 only (Lighthouse simulates a slow phone, and a busy machine moves it).
# Needs node and npm, Debian's chromium and chromium-driver; not part of the default test run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tree="$(cd "$here/../.." && pwd)"
cache="${CRIBBAGE_AUDIT_CACHE:-$HOME/.cache/cribbage-board-audit}"
python="${CRIBBAGE_AUDIT_PYTHON:-$tree/.venv/bin/python}"
lighthouse_version="${CRIBBAGE_LIGHTHOUSE_VERSION:-12}"
axe_version="${CRIBBAGE_AXE_VERSION:-4}"
for tool in node npm /usr/bin/chromium /usr/bin/chromedriver "$python"; do
    command -v "$tool" >/dev/null || { echo "phone audit: $tool is missing" >&2; exit 2; }
done
if [ ! -x "$cache/node_modules/.bin/lighthouse" ] || [ ! -f "$cache/node_modules/axe-core/axe.min.js" ]; then
    mkdir -p "$cache"
    (cd "$cache" && npm install --no-audit --no-fund --silent \
        "lighthouse@$lighthouse_version" "axe-core@$axe_version" >/dev/null)
fi
echo "lighthouse $(cd "$cache" && node -p 'require("lighthouse/package.json").version'), axe-core $(cd "$cache" && node -p 'require("axe-core/package.json").version')"
cd "$tree"
exec "$python" "$here/phone_audit.py" "$cache/node_modules"
