#!/usr/bin/env bash
# What starting a tabula process costs before it does anything:
# an empty program, the same program linked with tabula's libraries in
# stages (SQLite, nettle, inih; + GnuTLS; + libetpan, which brings GnuTLS,
# libdb, sasl2 and liblockfile), and `tabula --version`, alternating in one
# run, CPU (user + sys from wait4) medians. The difference between the last
# stage and the empty program is what the dynamic loader and the libraries'
# constructors take from every `deliver`.
#
# usage: bench/startup.sh [TABULA=./build/referee/tabula] [N=100]
set -u
tabula=$(realpath "${1:-./build/referee/tabula}")
n=${2:-100}
[ -x "$tabula" ] || { echo "no tabula binary at $tabula (build it first)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tabula-startup.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf 'int main(void) { return 0; }\n' >"$work/empty.c"
cc=${CC:-cc}
libs_base="-lsqlite3 -lnettle -linih -lm"
build() { # name, libraries
  # shellcheck disable=SC2086
  "$cc" -O2 "$work/empty.c" -o "$work/$1" -Wl,--no-as-needed $2 ||
    { echo "cannot link $1 with: $2" >&2; exit 1; }
}
build empty ""
build sqlite_nettle_inih "$libs_base"
build plus_gnutls "$libs_base -lgnutls"
build plus_libetpan "$libs_base -lgnutls $(pkg-config --libs libetpan | sed 's/-specs=[^ ]*//')"
python3 - "$work" "$tabula" "$n" <<'PY'
import os, resource, statistics, subprocess, sys
work, tabula, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
cases = [("empty program", [work + "/empty"]),
         ("+ sqlite3 nettle inih", [work + "/sqlite_nettle_inih"]),
         ("+ gnutls", [work + "/plus_gnutls"]),
         ("+ libetpan (tabula's set)", [work + "/plus_libetpan"]),
         ("tabula --version", [tabula, "--version"])]
cpu = {name: [] for name, _ in cases}
load0 = os.getloadavg()
for _ in range(n):
    for name, argv in cases:
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu[name].append((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
load1 = os.getloadavg()
empty = statistics.median(cpu["empty program"])
print("process start, CPU (user+sys) medians of %d, alternating, %d cores" % (n, os.cpu_count()))
print("%-28s %10s %14s" % ("", "CPU ms", "above empty"))
for name, _ in cases:
    m = statistics.median(cpu[name])
    print("%-28s %10.2f %14.2f" % (name, m * 1e3, (m - empty) * 1e3))
print("load average (1, 5, 15 min) before: %.2f %.2f %.2f, after: %.2f %.2f %.2f" % (load0 + load1))
PY
