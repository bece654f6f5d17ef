#!/bin/sh
# speedscope_install.sh - installs the npm package speedscope (the version
# speedscope_load.mjs knows) into NPM_DIR once, for the tests that hand files
# to speedscope's importer.  Exit 77 (skip) without node and npm.
#
# Usage: speedscope_install.sh NPM_DIR
npm_dir=$1
version=1.25.0
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
	echo "SKIP: node and npm are not installed (scripts/install-deps installs them)"
	exit 77
fi
grep -q "\"version\": \"$version\"" "$npm_dir/node_modules/speedscope/package.json" 2>/dev/null &&
	exit 0
mkdir -p "$npm_dir" || exit 1
if ! HOME="$npm_dir" npm install --prefix "$npm_dir" --cache "$npm_dir/cache" --no-audit \
	--no-fund --loglevel=error "speedscope@$version" >"$npm_dir/install.log" 2>&1; then
	echo "npm install speedscope@$version into $npm_dir failed:"
	cat "$npm_dir/install.log"
	exit 1
fi
echo "installed speedscope@$version into $npm_dir"
