// Reference SAN lists from chess.js 1.4.0 (an independent implementation):
// for each position, every legal move as chess.js writes it, sorted.
// Positions: the standard positions of perftsuite.epd, and positions every
// 7 plies along 12 pseudo-random games (fixed seed) played by chess.js itself.
import { Chess } from 'chess.js';
import fs from 'fs';
const out = [];
const lines = fs.readFileSync(process.argv[2], 'utf8').split(/\r?\n/);
const seen = new Set();
function add(fen) {
  const c = new Chess(fen);
  const sans = c.moves().slice().sort();
  const key = c.fen();
  if (seen.has(key)) return;
  seen.add(key);
  out.push(key + '\t' + sans.join(' '));
}
for (const l of lines) {
  const fen = l.split(';')[0].trim();
  if (!fen) continue;
  try { add(fen); } catch (e) { /* chess.js refuses it: skip */ }
}
let seed = 12345;
const rnd = (n) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
for (let g = 0; g < 12; g++) {
  const c = new Chess();
  for (let ply = 0; ply < 200 && !c.isGameOver(); ply++) {
    const ms = c.moves();
    c.move(ms[rnd(ms.length)]);
    if (ply % 7 === 6) add(c.fen());
  }
}
process.stdout.write(out.join('\n') + '\n');
