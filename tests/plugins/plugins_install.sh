#!/usr/bin/env bash
# plugins_install.sh BUILD_DIR SOURCE_DIR OUTDIR - a plugin author's path (docs/plugins.md): install
# xpubench, build examples/plugins/cpu_softmax on its own against the installed header with its own
# few lines of CMake (find_package(xpubench)), and list its kernels with the installed xpubench.
set -eu
build=$1 src=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
cmake --install "$build" --prefix "$out/prefix" > "$out/install.log"
test -f "$out/prefix/include/xpubench/xpubench_plugin.h"
cmake -S "$src/examples/plugins/cpu_softmax" -B "$out/build" -DCMAKE_PREFIX_PATH="$out/prefix" \
      -DCMAKE_BUILD_TYPE=Release > "$out/configure.log"
cmake --build "$out/build" > "$out/build.log"
so=$out/build/libxpb_example_cpu_softmax.so
"$out/prefix/bin/xpubench" list --kernels "$so" > "$out/list.txt"
grep -q "cpu/example (plugin) cpu/example-nomax (plugin)" "$out/list.txt" \
  || { echo "FAIL: the installed xpubench does not list the plugin built against the install"; cat "$out/list.txt"; exit 1; }
echo "OK: built against $out/prefix/include, listed by $out/prefix/bin/xpubench"
