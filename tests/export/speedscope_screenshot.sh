#!/bin/sh
# speedscope_screenshot.sh - a look at a speedscope export as speedscope
# draws it: loads FILE the way the `speedscope` command does (a script
# calling speedscope.loadFileFromBase64, named in the page's
# #localProfilePath) into headless Chromium and writes a PNG.  For people
# to look at, not run by CTest (Chromium is not a build dependency).
#
# Usage: speedscope_screenshot.sh NPM_DIR FILE PNG
# (NPM_DIR: where speedscope_install.sh put speedscope, build/npm)
set -e
npm_dir=$1 file=$2 png=$3
release=$npm_dir/node_modules/speedscope/dist/release
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
node -e 'const fs = require("fs");
fs.writeFileSync(process.argv[2], "speedscope.loadFileFromBase64(" +
	JSON.stringify(require("path").basename(process.argv[1])) + ", " +
	JSON.stringify(fs.readFileSync(process.argv[1]).toString("base64")) + ")")' \
	"$file" "$tmp/load.js"
# WebGL through SwiftShader: speedscope draws its flame chart with it.
chromium --headless=new --no-sandbox --user-data-dir="$tmp/profile" --enable-unsafe-swiftshader \
	--use-angle=swiftshader --allow-file-access-from-files --window-size=1400,700 \
	--virtual-time-budget=5000 --screenshot="$png" \
	"file://$(cd "$release" && pwd)/index.html#localProfilePath=$tmp/load.js" 2>/dev/null
