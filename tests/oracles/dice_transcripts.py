#!/usr/bin/env python3
"""Oracle for tabula-dice-1 (docs/dice-protocol.md), independent of referee/kit/dice.c
and of tools/tabula-verify-dice.py: Python's hashlib and hmac only.

1. Recomputes every value of tests/data/dice/vectors.txt (copied from the
   protocol's test vectors) and fails if one differs, so the copy and this
   oracle agree with the protocol.
2. Writes tests/data/dice/chain2.txt: three fake mails of game 12 with N = 4
   and 7 rolls, so rolls 5..7 use chain 2 (roll numbers count over the game,
   roll i of chain c uses key index j = i - (c-1)*N; see referee/kit/dice.h).
   Three seats, one entropy in UTF-8, one roll of 3 faces, lines repeated
   across mails and quoted with "> ". The chain secrets are fixed
   (SHA-256 of "tabula test chain 1" / "... 2") so the file is reproducible.
3. Writes tests/data/dice/faces.txt: 64 rolls with varied keys, games, roll
   numbers and E, 40 faces each (past block_0), chosen so that every skipped
   byte value 252..255 occurs and one roll needs more than two blocks.

Run from anywhere: python3 tests/oracles/dice_transcripts.py
"""
import hashlib, hmac, os

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, '..', 'data', 'dice')


def sha(b):
    return hashlib.sha256(b).digest()


def keys(secret, n):
    """x_0 .. x_n of the chain whose secret end is x_n."""
    xs = [secret]
    for _ in range(n):
        xs.append(sha(xs[-1]))
    return xs[::-1]


def faces(key, game, i, E, count):
    out, j = [], 0
    while len(out) < count:
        block = hmac.new(key, f'tabula-dice-1|{game}|{i}|{E}|{j}'.encode(), hashlib.sha256).digest()
        out += [b % 6 + 1 for b in block if b < 252]
        j += 1
    return out[:count]


def check_vectors():
    v = {'entropy': [], 'x': [], 'faces': []}
    for line in open(os.path.join(DATA, 'vectors.txt'), encoding='utf-8'):
        line = line.rstrip('\n')
        if not line or line.startswith('#'):
            continue
        word, rest = line.split(' ', 1)
        if word in ('entropy', 'x', 'faces'):
            v[word].append(rest)
        else:
            v[word] = rest
    n, game = int(v['n']), v['game']
    xs = keys(bytes.fromhex(v['secret']), n)
    E = hashlib.sha256('\n'.join(v['entropy']).encode()).hexdigest()
    assert E == v['E'], 'E'
    for row in v['x']:
        i, key, *fs = row.split()
        i = int(i)
        assert xs[i].hex() == key, f'x_{i}'
        if i:
            assert faces(xs[i], game, i, E, 2) == list(map(int, fs)), f'faces of roll {i}'
    for row in v['faces']:
        g, i, *fs = row.split()
        assert faces(xs[int(i)], g, int(i), E, len(fs)) == list(map(int, fs)), f'faces {g} {i}'
    print(f'vectors.txt: {len(v["x"])} keys and {len(v["faces"])} face rows agree')


def chain2():
    game, n = '12', 4
    es = ['alice-entropy', 'zoë was here', '<0001.AB@mail.example>']
    E = hashlib.sha256('\n'.join(es).encode()).hexdigest()
    chains = [keys(sha(f'tabula test chain {c}'.encode()), n) for c in (1, 2)]
    commit = [f'Dice commitment: tabula-dice-1 game {game} chain {c + 1} N {n} '
              f'commitment {chains[c][0].hex()}' for c in range(2)]
    entropy = [f'Dice entropy: game {game} e{s + 1} {e}' for s, e in enumerate(es)]
    entropy.append(f'Dice entropy: game {game} E {E}')
    rolls = []
    for i in range(1, 8):
        c, j = (i - 1) // n, (i - 1) % n + 1
        count = 3 if i == 6 else 2
        fs = ' '.join(map(str, faces(chains[c][j], game, i, E, count)))
        rolls.append(f'Dice roll: game {game} chain {c + 1} roll {i} key {chains[c][j].hex()} faces {fs}')

    def mail(subject, body):
        return (f'From: tabula <referee@tabula.example>\nTo: alice@example.org\n'
                f'Subject: {subject}\nMessage-ID: <{subject.replace(" ", ".")}@tabula.example>\n\n'
                + '\n'.join(body) + '\n')

    out = mail('game 12 created', ['You are invited to game 12.', commit[0]])
    out += mail('game 12 started', ['All seats are filled.', commit[0]] + entropy + rolls[:2])
    # Chain 2 is announced before its first use; the reply quotes earlier mail.
    out += mail('game 12 move 9', ['> ' + r for r in rolls[:4]] + ['>', '> ' + commit[0],
                commit[1]] + rolls[3:] + ['', 'Board:', '  13 14 15 16 17 18'])
    with open(os.path.join(DATA, 'chain2.txt'), 'w', encoding='utf-8', newline='\n') as f:
        f.write(out)
    print('chain2.txt: game 12, N 4, 7 rolls over 2 chains')


def faces_rows():
    rows, skipped, blocks3 = [], set(), False
    for r in range(64):
        key = sha(f'faces key {r}'.encode())
        game, i = str(1 + r * 37 % 1000), 1 + r * 101
        E = sha(f'E {r}'.encode()).hex()
        count = 70 if r == 0 else 40  # ~31 faces a block: 70 needs block_2
        stream = b''.join(hmac.new(key, f'tabula-dice-1|{game}|{i}|{E}|{j}'.encode(),
                                   hashlib.sha256).digest() for j in range(4))
        used = [b for b in stream if b < 252][:count]
        last = [k for k, b in enumerate(stream) if b < 252][count - 1]
        skipped |= {b for b in stream[:last] if b >= 252}
        blocks3 |= last >= 64
        fs = faces(key, game, i, E, count)
        assert fs == [b % 6 + 1 for b in used]
        rows.append(f'{game} {i} {key.hex()} {E} ' + ' '.join(map(str, fs)))
    assert skipped == {252, 253, 254, 255} and blocks3, (skipped, blocks3)
    with open(os.path.join(DATA, 'faces.txt'), 'w', newline='\n') as f:
        f.write('# made by tests/oracles/dice_transcripts.py: GAME I KEY E FACES...\n')
        f.write('\n'.join(rows) + '\n')
    print(f'faces.txt: {len(rows)} rolls, skipped bytes {sorted(skipped)} all seen')


if __name__ == '__main__':
    check_vectors()
    chain2()
    faces_rows()
