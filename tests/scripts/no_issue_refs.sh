#!/usr/bin/env bash
# No "issue N" in the tree: an installed system has no issue tracker, so
# comments, docs, man pages, templates and configuration name the decision
# itself (a rule ID of docs/rules-spec.md, a section of docs/ or README.md)
# and history stays in git. Fails, printing the hits, on any file tracked
# by git (or, outside a git checkout, any file but build trees) that
# matches the pattern below, except debian/changelog (release history) and
# this script.
# usage: no_issue_refs.sh TABULA SOURCE_DIR
set -u
src=${2:?usage: no_issue_refs.sh TABULA SOURCE_DIR}
cd "$src" || exit 1
pattern='\bissues? #?[0-9]+\b'
list() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z
  else
    find . \( -name .git -o -name 'build*' -o -name node_modules \) -prune \
      -o -type f -print0 | sed -z 's|^\./||'
  fi
}
files=$(list | grep -zv -e '^debian/changelog$' -e '^tests/scripts/no_issue_refs\.sh$' |
  xargs -0 -r grep -HnIiE "$pattern" --)
if [ -n "$files" ]; then
  printf '%s\n' "$files"
  echo "FAIL: $(printf '%s\n' "$files" | wc -l) line(s) cite an issue; name the rule or the docs/ section instead"
  exit 1
fi
echo "no issue references"
