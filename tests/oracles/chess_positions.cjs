#!/usr/bin/env node
// Random legal chess positions for the chess rules tests (tests/unit/rules/test_chess.c and
// tests/scripts/chess_oracles.sh), made by random playouts with chess.js 1.4.0 from the six
// Chess Programming Wiki perft roots. Deterministic: same N and SEED, same output.
//
// usage: node chess_positions.cjs [N=240] [SEED=1]          -> N FENs, one per line
//        node chess_positions.cjs moves < fens.txt          -> per FEN: "fen FEN", sorted
//                                                              "uci san" lines, a blank line
//
// The sample is stratified so that the special moves are really exercised: at least N/8
// positions each where an en-passant capture, a castling move, a promotion is legal, and
// N/8 positions in check; the rest are the end points of the playouts. Positions with no
// legal move (mate, stalemate) are skipped: there is nothing to divide.
'use strict';
const { Chess } = require('chess.js');

const ROOTS = [
  'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
  'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1',
  '8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1',
  'r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1',
  'rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8',
  'r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10',
];

if (process.argv[2] === 'moves') {
  const lines = require('node:fs').readFileSync(0, 'utf8').split('\n').filter((l) => l.trim());
  const out = [];
  for (const fen of lines) {
    const c = new Chess(fen);
    out.push(`fen ${fen}`);
    for (const m of c.moves({ verbose: true }).map((x) => `${x.lan} ${x.san}`).sort()) out.push(m);
    out.push('');
  }
  process.stdout.write(out.join('\n'));
  process.exit(0);
}

const N = +(process.argv[2] || 240);
let seed = +(process.argv[3] || 1);
// A plain LCG (glibc's constants): deterministic across node versions.
const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };

const want = Math.ceil(N / 8);
const kinds = { ep: [], castle: [], promo: [], check: [] };
const seen = new Set();
const plain = [];
const kindsOf = (c) => {
  const ms = c.moves({ verbose: true });
  const k = [];
  if (ms.some((m) => m.flags.includes('e'))) k.push('ep');
  if (ms.some((m) => m.flags.includes('k') || m.flags.includes('q'))) k.push('castle');
  if (ms.some((m) => m.flags.includes('p'))) k.push('promo');
  if (c.inCheck()) k.push('check');
  return { k, n: ms.length };
};
const full = () => Object.values(kinds).every((v) => v.length >= want);

for (let game = 0; game < 100000 && (!full() || plain.length + Object.values(kinds).reduce((a, v) => a + v.length, 0) < N); game++) {
  const c = new Chess(ROOTS[rnd(ROOTS.length)]);
  const plies = rnd(80);
  for (let i = 0; i < plies; i++) {
    const ms = c.moves({ verbose: true });
    if (!ms.length) break;
    // Lean towards pawn moves one time in three, so promotions and e.p. turn up.
    const pawn = ms.filter((m) => m.piece === 'p');
    const pick = pawn.length && rnd(3) === 0 ? pawn[rnd(pawn.length)] : ms[rnd(ms.length)];
    c.move(pick);
    const { k, n } = kindsOf(c);
    if (!n) break;
    for (const kind of k) {
      if (kinds[kind].length < want && !seen.has(c.fen())) { kinds[kind].push(c.fen()); seen.add(c.fen()); }
    }
  }
  const { n } = kindsOf(c);
  if (n && !seen.has(c.fen())) { plain.push(c.fen()); seen.add(c.fen()); }
}
const special = Object.values(kinds).flat();
const out = special.concat(plain.slice(0, Math.max(0, N - special.length)));
process.stdout.write(out.join('\n') + '\n');
