#!/usr/bin/env bash
# The long crash trials: kill -9 at random
# moments, compared with the same workload run without a kill
# (tests/crash/crash_trials.py says what is compared; CI runs a short one).
#
# usage: bench/crash_trials.sh [TABULA=./build/referee/tabula] [maildir|smtp|both]
#   maildir: 100 trials of 1,000 mails, the Maildir sink (0 moves lost,
#            0 applied twice, 0 replies lost, 0 duplicate reply files)
#   smtp:    20 trials of 300 mails through real Postfix into Dovecot
#            (tests/harness/mailharness.sh, as root): 0 lost, at most one
#            extra delivery per kill
#   env: TRIALS, MAILS, KILLS, SEED override the numbers
# Point it at a Release build (the ASan one works, ~5x slower).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tabula=$(realpath "${1:-./build/referee/tabula}")
what=${2:-both}
[ -x "$tabula" ] || { echo "no tabula binary at $tabula (build it first)" >&2; exit 2; }
trials=$here/../tests/crash/crash_trials.py
rc=0
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$what" = maildir ] || [ "$what" = both ]; then
  nice python3 "$trials" "$tabula" "$here/.." --sink maildir --trials "${TRIALS:-100}" \
    --mails "${MAILS:-1000}" --kills "${KILLS:-4}" --seed "${SEED:-1300}" || rc=1
fi
if [ "$what" = smtp ] || [ "$what" = both ]; then
  nice python3 "$trials" "$tabula" "$here/.." --sink smtp --trials "${SMTP_TRIALS:-20}" \
    --mails "${SMTP_MAILS:-300}" --kills "${KILLS:-4}" --seed "${SEED:-1300}" || rc=1
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
