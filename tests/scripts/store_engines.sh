#!/usr/bin/env bash
# The store's engine is reached through its driver only (store/driver.h,
# docs/architecture.md "The store"): no C file but a driver includes an
# engine's client header, so a second engine never means a change to the
# service, the mail code, the tools or the tests. Fails, printing the hits,
# on any tracked .c or .h file that includes sqlite3.h or libpq-fe.h,
# except store/driver_sqlite.c and store/driver_pg.c.
# usage: store_engines.sh TABULA SOURCE_DIR
set -u
src=${2:?usage: store_engines.sh TABULA SOURCE_DIR}
cd "$src" || exit 1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  hits=$(git ls-files -z -- '*.c' '*.h' |
    grep -zv -e '^store/driver_sqlite\.c$' -e '^store/driver_pg\.c$' |
    xargs -0 -r grep -HnE '^\s*#\s*include\s*[<"](sqlite3|libpq-fe)\.h[>"]' --)
else
  hits=$(find . \( -name .git -o -name 'build*' -o -name node_modules \) -prune \
    -o -type f \( -name '*.c' -o -name '*.h' \) -print0 | sed -z 's|^\./||' |
    grep -zv -e '^store/driver_sqlite\.c$' -e '^store/driver_pg\.c$' |
    xargs -0 -r grep -HnE '^\s*#\s*include\s*[<"](sqlite3|libpq-fe)\.h[>"]' --)
fi
if [ -n "$hits" ]; then
  printf '%s\n' "$hits"
  echo "FAIL: $(printf '%s\n' "$hits" | wc -l) file(s) include an SQL engine's header outside its store driver"
  exit 1
fi
echo "engine headers only in the store's drivers"
