#!/usr/bin/env node
// Reads a PDN file as the PDN 3.0 standard writes it and replays its moves on
// npm rapid-draughts (English draughts, an engine tabula does not share), for
// tests/scripts/records.py.
// usage: node pdn_read.mjs FILE      -> JSON {tags, moves, final} or exit 1 with the reason
//
// No PDN reader for English draughts exists in npm or Debian (the npm package
// "draughts" reads 10x10 PDN only; kcheckers reads PDN in a GUI only), so the
// file is checked against the grammar itself: the PDN 3.0 grammar and its
// restrictions (W. Wesselink, "PDN 3.0 Draft Standard", 2012, section "PDN
// Grammars"), the FEN grammar of the same document, the Result values of
// GameType 21 ("Default": 1-0, 0-1, 1/2-1/2, 0-0, *), and restriction 8: a
// capture is written from-x-to unless another legal capture shares both ends.
// Then every move must be legal in the engine, in turn, from [FEN] or the start.
import { readFileSync } from 'node:fs';
import { EnglishDraughtsEngineFactory as F } from 'rapid-draughts/english';

const R = [11,5,31,25,10,4,30,24,3,29,23,17,2,28,22,16,27,21,15,9,26,20,14,8,19,13,7,1,18,12,6,0].map(i => (2 ** i) >>> 0);
const sqOf = new Map(R.map((b, i) => [b, i + 1]));
const fail = (why) => { console.error('PDN: ' + why); process.exit(1); };

// ---- the PDN 3.0 tokens (writing grammar) ----
const TOKENS = [
  ['WS', /^(?:[ \t\n\r]|%[^\n\r]*)+/],
  ['STRING', /^"(?:[^"\\]|\\["\\])*"/],
  ['COMMENT', /^\{[^}]*\}/],
  ['SETUP', /^\/[^/]*\//],
  ['NAG', /^\$[0-9]+/],
  ['MOVENUMBER', /^[0-9]+\.(?:\.\.)?/],
  ['MOVE', /^[1-9][0-9]?(?:-[1-9][0-9]?|(?:x[1-9][0-9]?)+)(?:[!?]+|\([!?]+\))?/],
  ['LBRACKET', /^\[/], ['RBRACKET', /^\]/], ['LPAREN', /^\(/], ['RPAREN', /^\)/],
  ['ASTERISK', /^\*/],
  ['IDENTIFIER', /^[A-Z][a-zA-Z0-9_]*/],
];
function tokens(text) {
  const out = [];
  for (let i = 0; i < text.length;) {
    const rest = text.slice(i);
    const hit = TOKENS.map(([k, rx]) => [k, rest.match(rx)]).find(([, m]) => m);
    if (!hit) fail(`no PDN 3.0 token at offset ${i}: ${JSON.stringify(rest.slice(0, 20))}`);
    if (hit[0] !== 'WS') out.push([hit[0], hit[1][0]]);
    i += hit[1][0].length;
  }
  return out;
}

// PdnFile: Game (ASTERISK Game)* ASTERISK?; Game: PdnTag+ GameBody? | GameBody
function parse(toks) {
  const tags = {}, body = [];
  let i = 0;
  while (toks[i] && toks[i][0] === 'LBRACKET') {
    const [a, b, c] = [toks[i + 1], toks[i + 2], toks[i + 3]];
    if (!a || a[0] !== 'IDENTIFIER' || !b || b[0] !== 'STRING' || !c || c[0] !== 'RBRACKET')
      fail(`malformed tag pair near token ${i}`);
    tags[a[1]] = b[1].slice(1, -1).replace(/\\(["\\])/g, '$1');
    i += 4;
  }
  let depth = 0;
  for (; i < toks.length && !(toks[i][0] === 'ASTERISK' && depth === 0); i++) {
    const [k, v] = toks[i];
    if (k === 'LPAREN') depth++;
    else if (k === 'RPAREN') { if (--depth < 0) fail('unbalanced ")"'); }
    else if (k === 'MOVENUMBER' || k === 'COMMENT' || k === 'NAG' || k === 'SETUP') { if (depth === 0 && k === 'MOVENUMBER') body.push([k, v]); }
    else if (k === 'MOVE') { if (depth === 0) body.push([k, v]); }
    else fail(`unexpected ${k} ${v} in the game body`);
  }
  if (depth) fail('unclosed variation');
  if (i < toks.length) i++; // the game separator "*" (restriction 4)
  if (i !== toks.length) fail('more than one game, or text after the separator');
  if (!Object.keys(tags).length && !body.length) fail('an empty game');
  return { tags, body };
}

// FEN grammar (same document): COLOR (":" COLOR NumericSquareSequence)+ "."?
function setup(fen) {
  if (!/^[WB?](?::[WB](?:K?[0-9]+(?:-[0-9]+)?)(?:,K?[0-9]+(?:-[0-9]+)?)*)+\.?$/.test(fen))
    fail(`FEN "${fen}" does not follow the FEN grammar`);
  const parts = fen.replace(/\.$/, '').split(':');
  let light = 0, dark = 0, king = 0;
  for (const p of parts.slice(1)) {
    for (let tok of p.slice(1).split(',')) {
      const k = tok[0] === 'K'; if (k) tok = tok.slice(1);
      const [a, b] = tok.split('-').map(Number);
      for (let s = a; s <= (b || a); s++) {
        if (s < 1 || s > 32) fail(`square ${s} in the FEN`);
        if (p[0] === 'W') light |= R[s - 1]; else dark |= R[s - 1];
        if (k) king |= R[s - 1];
      }
    }
  }
  return F.setup({ player: parts[0] === 'W' ? 'light' : 'dark',
    board: { light: light >>> 0, dark: dark >>> 0, king: king >>> 0 },
    stats: { sinceCapture: 0, sinceNonKingAdvance: 0 } });
}

// The square between two squares a jump apart (rows of four, 1-4 first).
function middle(a, b) {
  const xy = (s) => { const r = Math.floor((s - 1) / 4); return [2 * ((s - 1) % 4) + (r % 2 ? 0 : 1), r]; };
  const [xa, ya] = xy(a), [xb, yb] = xy(b);
  if (Math.abs(ya - yb) !== 2 || Math.abs(xa - xb) !== 2) fail(`${a}x${b} is no jump`);
  const x = (xa + xb) / 2, y = (ya + yb) / 2;
  return y * 4 + (x - (y % 2 ? 0 : 1)) / 2 + 1;
}

function fenOf(e) {
  const d = e.data ?? e;
  const board = d.board, list = (bits) => R.map((b, i) => ((bits & b) >>> 0) ? ((board.king & b) >>> 0 ? 'K' : '') + (i + 1) : null).filter(Boolean).join(',');
  return `${d.player === 'light' ? 'W' : 'B'}:W${list(board.light)}:B${list(board.dark)}`;
}

const text = readFileSync(process.argv[2], 'utf8');
const { tags, body } = parse(tokens(text));
for (const t of ['Event', 'Site', 'Date', 'Black', 'White', 'Result'])
  if (!(t in tags)) fail(`no ${t} tag`);
if (!/^([0-9]{4}|[?]{4})\.([0-9]{2}|[?]{2})\.([0-9]{2}|[?]{2})$/.test(tags.Date)) fail('Date ' + tags.Date);
if (!/^21(,B,8,8,N1,0)?$/.test(tags.GameType ?? '')) fail('GameType is not 21');
if (!['1-0', '0-1', '1/2-1/2', '0-0', '*'].includes(tags.Result)) fail('Result ' + tags.Result);
if ('TimeControl' in tags && !/^(\?|-|([0-9]+\/[0-9]+|[0-9]+\+[0-9]+|[0-9]+|\*[0-9]+)(:([0-9]+\/[0-9]+|[0-9]+\+[0-9]+|[0-9]+|\*[0-9]+))*)$/.test(tags.TimeControl))
  fail('TimeControl ' + tags.TimeControl);
const e = setup(tags.FEN ?? 'B:W21-32:B1-12');
let n = 0, expectNumber = null;
for (const [k, v] of body) {
  if (k === 'MOVENUMBER') continue;
  const sq = v.replace(/[!?()]+$/, '').split(/[-x]/).map(Number);
  const capture = v.includes('x');
  const cands = e.moves.filter(m => sqOf.get(m.origin) === sq[0] && sqOf.get(m.destination) === sq[sq.length - 1] && !!m.captures === capture);
  if (!cands.length) fail(`move ${n + 1} (${v}) is not legal in ${fenOf(e)}`);
  let chosen = cands[0];
  if (capture && sq.length > 2) { // the whole path: the captured men are between the hops
    let taken = 0;
    for (let h = 0; h + 1 < sq.length; h++) taken |= R[middle(sq[h], sq[h + 1]) - 1];
    chosen = cands.find(m => (m.captures >>> 0) === (taken >>> 0));
    if (!chosen) fail(`move ${n + 1} (${v}): no legal capture takes those men`);
  }
  // restriction 8: the short form only when the ends name one capture
  const distinct = new Set(cands.map(m => m.captures >>> 0));
  if (capture && sq.length === 2 && distinct.size > 1) fail(`move ${n + 1} (${v}) is ambiguous, PDN 3.0 wants the whole path`);
  e.move(chosen);
  n++;
}
console.log(JSON.stringify({ tags, moves: n, final: fenOf(e) }));
