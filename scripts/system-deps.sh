#!/usr/bin/env bash
# Installs the Debian packages the tests and the main job drive for real, when missing:
#   bwrap (shell sandbox), tmux (terminal tests), python3/make/g++ (better-sqlite3's build, sandbox
#   corpus), curl/openssl/procps/perl/util-linux/git (hostile-command corpus, protected paths),
#   clangd (third language server), ripgrep (grep's prefilter tests), chromium (the browser tests
#   of `spine export --format html` and `spine serve`, driven by playwright-core).
# Idempotent; does nothing when everything is there. As root it uses apt-get; otherwise sudo when
# available, else it names the packages to install and exits 1. Works from any shell.
set -euo pipefail
missing=""
for pair in bwrap:bubblewrap tmux:tmux python3:python3 make:make g++:g++ curl:curl \
  openssl:openssl sysctl:procps perl:perl-base setpriv:util-linux git:git clangd:clangd rg:ripgrep \
  chromium:chromium; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing="$missing ${pair#*:}"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
  run=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  run=(sudo)
else
  echo "system-deps: please install these Debian packages (as root):$missing" >&2
  exit 1
fi
"${run[@]}" apt-get update -qq
# shellcheck disable=SC2086
"${run[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
