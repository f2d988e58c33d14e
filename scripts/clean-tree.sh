#!/usr/bin/env bash
# Setup and the build leave the tree as they found it (`make test`: `tree-snapshot` first,
# `test-clean-tree` last, after everything that writes files).
#
#   clean-tree.sh snapshot   record `git status --porcelain` (tools/.tree-before, ignored)
#   clean-tree.sh check      fail on any difference: with CI=true against an empty status (CI
#                            runs on a fresh clone, and `make setup` ran before `make test`),
#                            otherwise against the snapshot, so local edits made before
#                            `make test` are not blamed on it
set -euo pipefail
cd "$(dirname "$0")/.."
snapshot=tools/.tree-before
status() { git status --porcelain=v1 --untracked-files=all; }
case ${1:-} in
snapshot)
    status >"$snapshot"
    ;;
check)
    if [[ ${CI:-} == true || ! -f $snapshot ]]; then
        before=
    else
        before=$(cat "$snapshot")
    fi
    after=$(status)
    if [[ $after != "$before" ]]; then
        echo "clean-tree: setup, the build or the tests changed the work tree (git status --porcelain):" >&2
        diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") | sed -n 's/^> /  /p' >&2
        echo "clean-tree: commit what belongs in the repository, or make the tool write into an ignored folder" >&2
        exit 1
    fi
    echo "clean-tree: git status unchanged ($(printf '%s' "$after" | grep -c . || true) entries, as before)"
    ;;
*)
    echo "usage: $0 snapshot|check" >&2
    exit 2
    ;;
esac
