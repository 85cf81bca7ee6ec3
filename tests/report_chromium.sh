#!/usr/bin/env bash
# report_chromium.sh REPORT_DIR SCREENSHOT - opens REPORT_DIR/index.html (written by
# report_html.sh) in headless Chromium: the page loads, every plot image is decoded (the page's
# own check sets data-images-ok / data-images-total on <body>), and a full-page screenshot is
# kept at SCREENSHOT (a CI artifact). Skipped (77) without chromium or without the report.
set -u
dir=$1 shot=$2
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "SKIP: chromium not installed (Debian: apt-get install chromium)"; exit 77; }
[ -f "$dir/index.html" ] || { echo "SKIP: $dir/index.html missing (report_html was skipped or failed)"; exit 77; }
url="file://$(cd "$dir" && pwd)/index.html"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile"
       --virtual-time-budget=15000 --no-first-run --disable-extensions)
dom=$(timeout 180 "$browser" "${flags[@]}" --dump-dom "$url" 2>/dev/null)
want=$(grep -o '<img class="plot"' "$dir/index.html" | wc -l)
got_ok=$(sed -n 's/.*<body[^>]*data-images-ok="\([0-9]*\)".*/\1/p' <<<"$dom" | head -1)
got_total=$(sed -n 's/.*<body[^>]*data-images-total="\([0-9]*\)".*/\1/p' <<<"$dom" | head -1)
pass=0 fail=0
if [ -n "$got_total" ] && [ "$got_total" -eq "$want" ] && [ "$want" -gt 0 ]; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: page did not load or report its images (total '$got_total', want $want)"; fi
if [ -n "$got_ok" ] && [ "$got_ok" = "$got_total" ]; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: only '$got_ok' of '$got_total' plot images loaded"; fi
mkdir -p "$(dirname "$shot")"
timeout 180 "$browser" "${flags[@]}" --window-size=1400,4000 --screenshot="$shot" "$url" >/dev/null 2>&1
if [ -s "$shot" ]; then pass=$((pass + 1)); echo "screenshot: $shot"; else
  fail=$((fail + 1)); echo "FAIL: no screenshot at $shot"; fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
