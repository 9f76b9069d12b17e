#!/usr/bin/env python3
"""Check every tabula-dice roll printed in tabula's mails (docs/dice-protocol.md).

usage: tabula-verify-dice.py [--game G] [MAIL-FILE ...]   (no file, or -: stdin)
Prints "all N rolls verify" (exit 0) or the first failure (exit 1); 2 = bad usage.
Python 3 standard library only; same rules as tabula's referee/kit/dice.c (tools/README.md).
"""
import hashlib, hmac, re, sys

G, NUM, HEX = ' +game +([0-9]{1,20})', '([1-9][0-9]{0,8})', '([0-9a-f]{64})'
LINES = {  # the grammar of tools/README.md, matched after stripping quote marks
    'C': rf'Dice commitment: +tabula-dice-[12]{G} +chain +{NUM} +N +{NUM} +commitment +{HEX}',
    'E': rf'Dice entropy:{G} +E +{HEX}',
    'e': rf'Dice entropy:{G} +e{NUM}(?: (.*))?',
    'R': rf'Dice roll:{G} +chain +{NUM} +roll +{NUM} +key +{HEX} +faces((?: +[0-9]){{1,16}})',
    'P': rf'Dice preview:{G} +roll +{NUM} +faces((?: +[0-9]){{1,16}})',
    'M': rf'Dice match:{G} +part +{NUM} +played +as +game +([0-9]{{1,20}}) +from +roll +{NUM}'}
LINES = {kind: re.compile(rx) for kind, rx in LINES.items()}

class Fail(Exception):
    pass

def faces(key, game, i, E, n):
    out, j = [], 0
    while len(out) < n:  # bytes >= 252 are skipped, so b % 6 has no bias
        # both versions: the faces kept tabula-dice-1's message
        msg = f'tabula-dice-1|{game}|{i}|{E}|{j}'.encode()
        out += [b % 6 + 1 for b in hmac.new(key, msg, hashlib.sha256).digest() if b < 252]
        j += 1
    return out[:n]

def parse(sources):
    """{game: {(kind, chain or index): set of values}}; a fact may be printed many times."""
    games = {}
    for name, data in sources:
        for no, line in enumerate(data.split(b'\n'), 1):
            line = line.lstrip(b' \t>').rstrip(b' \t\r').decode('utf-8', 'surrogateescape')
            if not line.startswith(('Dice commitment:', 'Dice entropy:', 'Dice roll:',
                                    'Dice preview:', 'Dice match:')):
                continue
            match = [(kind, m.groups()) for kind, rx in LINES.items() if (m := rx.fullmatch(line))]
            if not match:
                raise Fail(f'{name} line {no}: malformed dice line')
            kind, (g, *v) = match[0]
            if kind == 'C':    # chain: (N, commitment)
                key, val = int(v[0]), (int(v[1]), v[2])
            elif kind == 'E':
                key, val = 0, v[0]
            elif kind == 'e':  # K: the e_K string, as bytes
                key, val = int(v[0]), (v[1] or '').encode('utf-8', 'surrogateescape')
            elif kind == 'P':  # i: faces shown in advance (Lag, LG-1)
                key, val = int(v[0]), [int(f) for f in v[1].split()]
            elif kind == 'M':  # part K of a match: (the game playing it, its first roll)
                key, val = int(v[0]), (v[1], int(v[2]))
            else:              # i: (chain, key, faces)
                key, val = int(v[1]), (int(v[0]), v[2], [int(f) for f in v[3].split()])
            games.setdefault(g, {}).setdefault((kind, key), []).append(val)
    return games

def one(facts, key, what):
    if any(val != facts[key][0] for val in facts[key]):
        raise Fail(f'{what}: conflicting lines')
    return facts[key][0]

def verify(facts, game):
    chains = {k[1]: one(facts, k, f'chain {k[1]} commitment') for k in sorted(facts) if k[0] == 'C'}
    es = []
    for k in sorted(k for k in facts if k[0] == 'e'):
        es.append(one(facts, k, f'entropy e{k[1]}'))
        if k[1] != len(es):
            raise Fail(f'entropy e{len(es)} missing')
    printed = one(facts, ('E', 0), 'entropy E') if ('E', 0) in facts else None
    rolls = max([k[1] for k in facts if k[0] == 'R'], default=0)
    if not es and rolls and not printed:
        raise Fail('entropy e1 missing')
    # no e_K but E printed: a published tabula-dice-1 record, whose entropy
    # lines (Message-IDs) stay in the players' mails; E is taken as printed
    E = hashlib.sha256(b'\n'.join(es)).hexdigest() if es else printed
    if es and printed and printed != E:
        raise Fail(f'entropy: E printed {printed}, computed {E} from e1..e{len(es)}')
    for i in range(1, rolls + 1):
        if ('R', i) not in facts:
            raise Fail(f'roll {i} missing')
        c, key, shown = one(facts, ('R', i), f'roll {i}')
        first = 1  # chain c takes the rolls after those of chains 1..c-1
        for d in range(1, c + 1):
            if d not in chains:
                raise Fail(f'roll {i}: chain {d} commitment missing')
            first += chains[d][0] if d < c else 0
        if not first <= i < first + chains[c][0]:
            raise Fail(f'roll {i}: chain {c} covers rolls {first} to {first + chains[c][0] - 1}')
        key, link = bytes.fromhex(key), hashlib.sha256(bytes.fromhex(key)).digest()
        if i == first and link.hex() != chains[c][1]:
            raise Fail(f'roll {i}: key does not hash to the chain {c} commitment')
        if i > first and link != prev:
            raise Fail(f'roll {i}: key does not hash to the previous key')
        got = faces(key, game, i, E, len(shown))
        if shown != got:
            raise Fail(f'roll {i}: faces {" ".join(map(str, shown))} printed, '
                       f'{" ".join(map(str, got))} computed')
        prev = key
    return rolls, not es and bool(printed)

def previews(facts):
    """Faces mailed privately before a roll (Lag Backgammon Chess, LG-1) must be
    the faces of that roll once it is played; returns how many were checked."""
    checked = 0
    for k in sorted(k for k in facts if k[0] == 'P'):
        shown = one(facts, k, f'roll {k[1]} preview')
        if ('R', k[1]) in facts:
            played = facts[('R', k[1])][0][2]
            if played[:len(shown)] != shown:
                raise Fail(f'roll {k[1]}: preview faces {" ".join(map(str, shown))}, '
                           f'played {" ".join(map(str, played))}')
            checked += 1
    return checked

def match_parts(facts, rolls, first_game):
    """A backgammon match's later games play on with its first game's dice
    (docs/dice-protocol.md, "Matches"): part K's first roll comes after
    part K-1's, parts 2, 3, ... without a gap, each played as a game of its
    own made after the one before (part 1 is the first game itself, with
    no such line). Returns how many games the dice cover (1 without such
    lines)."""
    parts = sorted(k[1] for k in facts if k[0] == 'M')
    if parts and parts[0] == 1:
        raise Fail(f'match part 1: the first game, {first_game}, has no Dice match line')
    prev_game, prev_roll = first_game, 1
    for n, part in enumerate(parts, 2):
        game, first = one(facts, ('M', part), f'match part {part}')
        if part != n:
            raise Fail(f'match part {n} missing')
        if first <= prev_roll or first > rolls + 1:
            raise Fail(f'match part {part}: from roll {first}, after roll {prev_roll} '
                       f'of part {part - 1}, of {rolls} rolls')
        if int(game) <= prev_game:
            raise Fail(f'match part {part}: game {game} is not after the part before it')
        prev_game, prev_roll = int(game), first
    return len(parts) + 1

def main(argv):
    game = None
    if argv[:1] == ['--game'] and len(argv) > 1:
        game, argv = argv[1], argv[2:]
    if any(a.startswith('-') and a != '-' for a in argv):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        games = parse([(a, sys.stdin.buffer.read() if a == '-' else open(a, 'rb').read())
                       for a in argv or ['-']])
        if not games:
            raise Fail('no dice lines found')
        if game is None and len(games) > 1:
            raise Fail(f'dice lines of several games ({", ".join(games)}): choose one with --game')
        if game is not None and game not in games:
            raise Fail(f'no dice lines for game {game}')
        game = game or next(iter(games))
        n, bare = verify(games[game], game)
        parts = match_parts(games[game], n, int(game))
        if parts > 1:
            print(f'all {n} rolls verify; the {parts} games of the match share them')
        elif any(k[0] == 'P' for k in games[game]):
            print(f'all {n} rolls verify; {previews(games[game])} private previews match')
        else:
            print(f'all {n} rolls verify')
        if bare:
            print('E as printed: these lines show no entropy; the players\' mails do')
        return 0
    except (Fail, OSError) as e:
        print(e)
        return 1

if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
