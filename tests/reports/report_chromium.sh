#!/usr/bin/env bash
# report_chromium.sh REPORT_DIR SCREENSHOT - opens REPORT_DIR/index.html (written by
# report_html.sh) in headless Chromium: the page loads, every plot image is decoded (the page's
# own check sets data-images-ok / data-images-total on <body>), and at a laptop's and a desktop's
# width (1366, 1400 and 1920 px) the page's layout check (data-layout-* on <body>) finds no table
# wider than its container's visible area without a scroll box, no scroll box past the window or
# squeezed beside its plot, and no sideways scrolling of the page. The check is itself checked:
# copies of the page whose tables are forced past the window, or squeezed, must be flagged. Screenshots are kept at
# SCREENSHOT (1366 px) and SCREENSHOT with -1920 before .png (CI artifacts). Skipped (77) without
# chromium or without the report.
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
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
attr() { sed -n "s/.*<body[^>]*$1=\"\([^\"]*\)\".*/\1/p" <<<"$2" | head -1; }   # NAME DOM

dom=$(timeout 180 "$browser" "${flags[@]}" --dump-dom "$url" 2>/dev/null)
want=$(grep -o '<img class="plot"' "$dir/index.html" | wc -l)
got_ok=$(attr data-images-ok "$dom")
got_total=$(attr data-images-total "$dom")
[ -n "$got_total" ] && [ "$got_total" -eq "$want" ] && [ "$want" -gt 0 ] && ok ||
  bad "page did not load or report its images (total '$got_total', want $want)"
[ -n "$got_ok" ] && [ "$got_ok" = "$got_total" ] && ok || bad "only '$got_ok' of '$got_total' plot images loaded"

# layout URL WIDTH: prints "tables overflow scrolling detail" as the page measured them
layout() {
  local d
  d=$(timeout 180 "$browser" "${flags[@]}" --window-size="$2,3000" --dump-dom "$1" 2>/dev/null)
  [ "$(attr data-layout-width "$d")" = "$2" ] || { echo "- - - no layout check at $2 px"; return; }
  echo "$(attr data-layout-tables "$d") $(attr data-layout-overflow "$d") $(attr data-layout-scrolling "$d") $(attr data-layout-detail "$d")"
}

mkdir -p "$(dirname "$shot")"
for width in 1366 1400 1920; do   # 1400: where the tables were squeezed beside their plots (issue)
  read -r tables overflow scrolling detail <<<"$(layout "$url" "$width")"
  echo "at $width px: $tables tables, $scrolling scroll inside their full-width box, $overflow overflow"
  [ "$tables" -gt 0 ] 2>/dev/null && [ "$overflow" = 0 ] && ok ||
    bad "at $width px: $overflow tables or boxes overflow the window or are squeezed ($detail)"
  [ "$width" = 1400 ] && continue
  out=$shot
  [ "$width" = 1366 ] || out=${shot%.png}-$width.png
  timeout 180 "$browser" "${flags[@]}" --window-size="$width,4000" --screenshot="$out" "$url" >/dev/null 2>&1
  [ -s "$out" ] && ok && echo "screenshot: $out" || bad "no screenshot at $out"
done

# the check can fail: tables without their scroll boxes, unwrapped, run past a 1366 px window;
# tables given a fixed place beside their plot (the old layout) are squeezed at 1400 px
broken() {   # NAME CSS WIDTH
  sed "s#</head>#<style>$2</style></head>#" "$dir/index.html" >"$profile/$1.html"
  read -r _ overflow _ <<<"$(layout "file://$profile/$1.html" "$3")"
  [ "$overflow" -gt 0 ] 2>/dev/null && ok || bad "the layout check missed the $1 tables ($overflow flagged)"
}
broken unboxed ".scroll, .tablewrap { overflow: visible !important; max-width: none !important; flex: none !important; } td, th { white-space: nowrap; }" 1366
broken squeezed ".tablewrap { flex: 1 1 26em !important; }" 1400
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
