#!/usr/bin/env node
// Random English-checkers positions for the differential tests against rapid-draughts
// (tests/oracles/gen_checkers_divide.sh, tests/scripts/checkers_oracle.sh).
//
// usage: node checkers_random.mjs COUNT SEED DEPTH
// Prints COUNT distinct PDN FENs ("B:W21,22,...:B1,K5,..."), one per line, each reached by
// random play from the start position with rapid-draughts 1.0.6 (npm, pinned in package.json):
// a random game length of 1..120 plies, uniformly random legal moves, a seeded PRNG
// (mulberry32), so the same SEED gives the same positions. Positions whose game is already
// over are skipped.
//
// Positions are also skipped when a king ring capture (a king landing back on its own
// starting square during a multi-jump) occurs anywhere in the move tree that a divide at
// DEPTH walks (the root and every node above the leaves): rapid-draughts keeps the origin
// "occupied" during a jump and so gets exactly those moves wrong (shared oracles.md 3.2;
// W:WK14:B10,11,18,19 gives 14x23/14x7 instead of 14x14 twice). Those cases are
// hand-checked in tests/unit/rules/test_checkers.c instead. The ring test below is a
// small, separate king-jump search written for this filter only.
import { EnglishDraughtsEngineFactory as F } from 'rapid-draughts/english';

// square s (1..32) -> engine bit; the table of checkers_oracle.mjs (rapid-draughts' 1D adapter)
const R = [11,5,31,25,10,4,30,24,3,29,23,17,2,28,22,16,27,21,15,9,26,20,14,8,19,13,7,1,18,12,6,0]
  .map(i => (2 ** i) >>> 0);

const [count = '10', seed = '1', depth = '3'] = process.argv.slice(2);

function mulberry32(a) {
  return () => {
    a |= 0; a = (a + 0x6D2B79F5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = mulberry32(+seed);

// Board geometry in the standard numbering: square s on row r = (s-1)/4 counted from the top
// (rank 8); file = 2*((s-1)%4) + (r even ? 1 : 0); rank index y = 7 - r.
const xy = s => {
  const r = Math.floor((s - 1) / 4);
  return [2 * ((s - 1) % 4) + (r % 2 === 0 ? 1 : 0), 7 - r];
};
const sq = (x, y) =>
  (x < 0 || x > 7 || y < 0 || y > 7 || (x + y) % 2) ? 0 : (7 - y) * 4 + Math.floor(x / 2) + 1;
const DIRS = [[1, 1], [-1, 1], [1, -1], [-1, -1]];

function squaresOf(e) {
  const b = e.data.board, out = { light: [], dark: [], king: new Set() };
  R.forEach((bit, i) => {
    if ((b.light & bit) >>> 0) out.light.push(i + 1);
    if ((b.dark & bit) >>> 0) out.dark.push(i + 1);
    if ((b.king & bit) >>> 0) out.king.add(i + 1);
  });
  return out;
}

function fenOf(e) {
  const s = squaresOf(e);
  const list = a => a.map(n => (s.king.has(n) ? 'K' : '') + n).join(',');
  return `${e.data.player === 'dark' ? 'B' : 'W'}:W${list(s.light)}:B${list(s.dark)}`;
}

// Whether a king of the side to move can land on its own origin during a jump sequence.
function hasRing(e) {
  const s = squaresOf(e);
  const mine = e.data.player === 'dark' ? s.dark : s.light;
  const theirs = new Set(e.data.player === 'dark' ? s.light : s.dark);
  const occupied = new Set([...s.light, ...s.dark]);
  for (const k of mine.filter(n => s.king.has(n))) {
    const walk = (at, taken) => {
      const [x, y] = xy(at);
      for (const [dx, dy] of DIRS) {
        const over = sq(x + dx, y + dy), land = sq(x + 2 * dx, y + 2 * dy);
        if (!over || !land || !theirs.has(over) || taken.has(over)) continue;
        if (land !== k && occupied.has(land)) continue;
        if (land === k) return true;
        taken.add(over);
        const found = walk(land, taken);
        taken.delete(over);
        if (found) return true;
      }
      return false;
    };
    if (walk(k, new Set())) return true;
  }
  return false;
}

const child = (e, m) => { const c = e.clone(); c.move(m); return c; };
// Whether any node that generates moves in a divide at depth d has a ring capture.
const treeHasRing = (e, d) =>
  d > 0 && (hasRing(e) || (d > 1 && e.moves.some(m => treeHasRing(child(e, m), d - 1))));

const seen = new Set();
let tries = 0;
while (seen.size < +count && tries < 100 * +count) {
  tries++;
  let e = F.setup();
  const plies = 1 + Math.floor(rnd() * 120);
  let ok = true;
  for (let i = 0; i < plies && ok; i++) {
    const ms = e.moves;
    if (ms.length === 0) ok = false;
    else e.move(ms[Math.floor(rnd() * ms.length)]);
  }
  if (!ok || e.moves.length === 0) continue;
  const fen = fenOf(e);
  const fresh = F.setup({ ...e.data, stats: { sinceCapture: 0, sinceNonKingAdvance: 0 } });
  if (seen.has(fen) || treeHasRing(fresh, +depth)) continue;
  seen.add(fen);
  console.log(fen);
}
