#!/usr/bin/env bash
# dice_verifier.sh: the standalone verifier tools/tabula-verify-dice.py on fake
# mails holding the tabula-dice-1 test vectors (tests/data/dice/vectors.txt,
# from docs/dice-protocol.md) and on the oracle's chain-2 transcript
# (tests/data/dice/chain2.txt), and a backgammon match's "Dice match" lines on
# the vectors. Checks it accepts them, and that each kind of
# tampering fails naming the roll, with the same reasons as referee/kit/dice.c.
# usage: bash dice_verifier.sh TABULA_BINARY SOURCE_DIR   (the binary is unused)
set -u
src=${2:?usage: dice_verifier.sh TABULA_BINARY SOURCE_DIR}
verifier=$src/tools/tabula-verify-dice.py
data=$src/tests/data/dice
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

# check NAME WANT_RC WANT_OUTPUT ARGS...: runs the verifier, compares exit and
# the whole output.
check() {
  local name=$1 want_rc=$2 want=$3 out rc
  shift 3
  out=$(python3 "$verifier" "$@" 2>&1)
  rc=$?
  if [ "$rc" = "$want_rc" ] && [ "$out" = "$want" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $name: exit $rc, want $want_rc; output '$out', want '$want'"
  fi
}

# The vector values (read once), printed as the service's templates print them.
declare -A key faces
entropies=()
while read -r word rest; do
  case $word in
    x) read -r i hex f1 f2 <<<"$rest"; key[$i]=$hex; faces[$i]="$f1 $f2" ;;
    E) E=$rest ;;
    entropy) entropies+=("$rest") ;;
  esac
done <"$data/vectors.txt"
x() { echo "${key[$1]}"; }
roll() { echo "Dice roll: game 7 chain 1 roll $1 key ${key[$1]} faces ${faces[$1]}"; }
commit="Dice commitment: tabula-dice-1 game 7 chain 1 N 8 commitment $(x 0)"
headers() {
  printf 'From: tabula <referee@tabula.example>\nTo: alice@example.org\n'
  printf 'Subject: tabula game 7: %s\nMessage-ID: <%s.7@tabula.example>\n\n' "$1" "$2"
}

{ headers "invitation" inv; echo "You are invited. Reply 'accept' to join."; echo "$commit"; } \
  >"$tmp/1.eml"
{
  headers "the game starts" start
  echo "> $commit"
  for n in "${!entropies[@]}"; do
    echo "Dice entropy: game 7 e$((n + 1)) ${entropies[$n]}"
  done
  echo "Dice entropy: game 7 E $E"
  for i in 1 2 3; do roll "$i"; done
} >"$tmp/2.eml"
# The third mail quotes the second (a reply), with CRLF line ends.
{
  headers "your move" move
  echo "On Monday the referee wrote:"
  for i in 1 2 3; do echo "> $(roll "$i")"; done
  for i in 4 5 6 7 8; do roll "$i"; done
  echo "-- "
  echo "tabula"
} | sed 's/$/\r/' >"$tmp/3.eml"
mails=("$tmp/1.eml" "$tmp/2.eml" "$tmp/3.eml")

check "vectors" 0 "all 8 rolls verify" "${mails[@]}"
check "vectors from stdin" 0 "all 8 rolls verify" < <(cat "${mails[@]}")
check "vectors, --game 7" 0 "all 8 rolls verify" --game 7 "${mails[@]}"

# tamper FILE SED-EXPR: a copy of the mails with FILE (3 = the third) edited.
tamper() {
  rm -rf "$tmp/t" && mkdir "$tmp/t" && cp "${mails[@]}" "$tmp/t/"
  sed -i "$2" "$tmp/t/$1.eml"
}
tampered=("$tmp/t/1.eml" "$tmp/t/2.eml" "$tmp/t/3.eml")

tamper 3 's/faces 5 3/faces 5 4/'
check "one face" 1 "roll 5: faces 5 4 printed, 5 3 computed" "${tampered[@]}"
key5=$(x 5)
tamper 3 "s/$key5/${key5:0:10}0${key5:11}/"
check "one key" 1 "roll 5: key does not hash to the previous key" "${tampered[@]}"
tamper 2 "s/key $(x 1)/key $(x 2)/"
sed -i "s/key $(x 1)/key $(x 2)/" "$tmp/t/3.eml"
check "roll 1 key" 1 "roll 1: key does not hash to the chain 1 commitment" "${tampered[@]}"
tamper 2 '/roll 3 key/d'
sed -i '/roll 3 key/d' "$tmp/t/3.eml"
check "missing roll" 1 "roll 3 missing" "${tampered[@]}"
tamper 3 '/^> Dice roll: game 7 chain 1 roll 2 /s/faces 2 1/faces 2 2/'
check "conflicting copy" 1 "roll 2: conflicting lines" "${tampered[@]}"
tamper 2 's/e1 alice-entropy/e1 alice-entropz/'
check "entropy" 1 "entropy: E printed $E, computed \
$(printf 'alice-entropz\n<CAF00D@mail.example>' | sha256sum | cut -d' ' -f1) from e1..e2" \
  "${tampered[@]}"
tamper 2 '/Dice commitment/d'
sed -i '/Dice commitment/d' "$tmp/t/1.eml"
check "no commitment" 1 "roll 1: chain 1 commitment missing" "${tampered[@]}"
# A mail client that wrapped a long line breaks it; that must not pass silently.
tamper 3 's/ faces 1 4/\n faces 1 4/'
check "wrapped line" 1 "$tmp/t/3.eml line 13: malformed dice line" "${tampered[@]}"

# tabula-dice-2 (docs/dice-protocol.md, "Versions"): the faces are the same,
# the commitment names the version; an unknown version is malformed.
tamper 1 's/tabula-dice-1/tabula-dice-2/'
sed -i 's/tabula-dice-1/tabula-dice-2/' "$tmp/t/2.eml"
check "tabula-dice-2" 0 "all 8 rolls verify" "${tampered[@]}"
tamper 1 's/tabula-dice-1/tabula-dice-3/'
check "tabula-dice-3" 1 "$tmp/t/1.eml line 7: malformed dice line" "${tampered[@]}"
# A published tabula-dice-1 record: E alone, no e lines. The rolls are
# checked against E as printed, and it says so; a wrong E fails a roll;
# neither E nor an e line: no roll can be checked.
tamper 2 '/Dice entropy: game 7 e[0-9]/d'
check "E alone" 0 "all 8 rolls verify
E as printed: these lines show no entropy; the players' mails do" "${tampered[@]}"
sed -i "s/E $E/E ${E:0:63}0/" "$tmp/t/2.eml"
check "E alone, changed" 1 "roll 1: faces 2 1 printed, $(python3 - "$verifier" "$(x 1)" "${E:0:63}0" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location('v', sys.argv[1])
v = importlib.util.module_from_spec(spec); spec.loader.exec_module(v)
print(" ".join(map(str, v.faces(bytes.fromhex(sys.argv[2]), '7', 1, sys.argv[3], 2))))
PY
) computed" "${tampered[@]}"
tamper 2 '/Dice entropy:/d'
check "no entropy at all" 1 "entropy e1 missing" "${tampered[@]}"
# The README's check of one's own entropy: openssl's HMAC of the Message-ID
# under the salt is the protocol's vector (secret 00..1f, <CAF00D@mail.example>).
salt=f5957bf9d574d187a2f7559294fc6f36f9b689566341d51e49bbdf92bbfda4ed
mid=$(printf '%s' '<CAF00D@mail.example>' | openssl dgst -sha256 -hmac "$salt" | sed 's/.*= //')
if [ "mid:$mid" = "mid:44a9afd5ffaacf59ac0c41fa80a7eff2bb2cb174411869179de3914443f0cb8b" ] &&
  grep -q "mid:$mid" "$src/docs/dice-protocol.md"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAIL openssl's keyed digest of the vectors' Message-ID: mid:$mid"
fi

# A backgammon match (docs/dice-protocol.md, "Matches"): game 7's chain also
# rolls for the match's parts 2 and 3, played as games 9 and 12, from rolls 4
# and 7. Each part's start mail says so; the checker wants parts 2, 3, ...
# without a gap, each after the part before in rolls and in games.
{
  headers "the game starts" part2
  echo "Dice match: game 7 part 2 played as game 9 from roll 4"
  echo "> Dice match: game 7 part 3 played as game 12 from roll 7"
} >"$tmp/4.eml"
check "match" 0 "all 8 rolls verify; the 3 games of the match share them" "${mails[@]}" "$tmp/4.eml"
match() {
  sed "s/^> Dice match: .*/> Dice match: $1/" "$tmp/4.eml" >"$tmp/5.eml"
  check "match: $2" 1 "$3" "${mails[@]}" "$tmp/5.eml"
}
match "game 7 part 4 played as game 12 from roll 7" "a part skipped" "match part 3 missing"
match "game 7 part 3 played as game 12 from roll 3" "a part goes back" \
  "match part 3: from roll 3, after roll 4 of part 2, of 8 rolls"
match "game 7 part 3 played as game 12 from roll 4" "two parts from one roll" \
  "match part 3: from roll 4, after roll 4 of part 2, of 8 rolls"
match "game 7 part 3 played as game 12 from roll 10" "a gap after the last roll" \
  "match part 3: from roll 10, after roll 4 of part 2, of 8 rolls"
match "game 7 part 3 played as game 8 from roll 7" "an earlier game" \
  "match part 3: game 8 is not after the part before it"
match "game 7 part 1 played as game 12 from roll 7" "part 1" \
  "match part 1: the first game, 7, has no Dice match line"
match "game 7 part 2 played as game 9 from roll 5" "two lines for one part" \
  "match part 2: conflicting lines"
match "game 7 part 3 played as game 12 from roll 7 and 8" "a wrapped line" \
  "$tmp/5.eml line 7: malformed dice line"
check "match: part 2 as game 7 itself" 1 "match part 2: game 7 is not after the part before it" \
  "${mails[@]}" <(echo "Dice match: game 7 part 2 played as game 7 from roll 4")

# Several games: the oracle's game 12 (chain 2) next to game 7.
check "chain 2" 0 "all 7 rolls verify" "$data/chain2.txt"
check "two games" 1 "dice lines of several games (7, 12): choose one with --game" \
  "${mails[@]}" "$data/chain2.txt"
check "pick game 12" 0 "all 7 rolls verify" --game 12 "${mails[@]}" "$data/chain2.txt"
check "pick game 7" 0 "all 8 rolls verify" --game 7 "${mails[@]}" "$data/chain2.txt"
check "absent game" 1 "no dice lines for game 9" --game 9 "${mails[@]}"
check "no dice" 1 "no dice lines found" "$src/CMakeLists.txt"
# The tool's faces() against the oracle's 64 rolls (skipped bytes 252..255).
out=$(python3 - "$verifier" "$data/faces.txt" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location('v', sys.argv[1])
v = importlib.util.module_from_spec(spec); spec.loader.exec_module(v)
rows = [l.split() for l in open(sys.argv[2]) if not l.startswith('#')]
bad = [r[:2] for r in rows
       if v.faces(bytes.fromhex(r[2]), r[0], int(r[1]), r[3], len(r) - 4) != list(map(int, r[4:]))]
print(f'{len(rows)} rows, {len(bad)} differ {bad[:3]}')
PY
)
if [ "$out" = "64 rows, 0 differ []" ]; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAIL faces.txt: $out"
fi
python3 "$verifier" --bogus >/dev/null 2>&1
rc=$?
if [ "$rc" = 2 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL usage: exit $rc"; fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
