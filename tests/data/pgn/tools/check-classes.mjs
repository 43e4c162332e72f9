// Independent check with chess.js 1.4.0: count checkmates of black in the classes
// white K+X vs black K+Y (black to move), for the one-sided 6.10 theorems.
import { Chess } from 'chess.js';
const files = 'abcdefgh';
const sq = (i) => files[i & 7] + ((i >> 3) + 1);
function fenOf(b) {
  let rows = [];
  for (let r = 7; r >= 0; r--) { let s = '', e = 0;
    for (let f = 0; f < 8; f++) { const c = b[r * 8 + f]; if (!c) { e++; continue; } if (e) { s += e; e = 0; } s += c; }
    if (e) s += e; rows.push(s); }
  return rows.join('/') + ' b - - 0 1';
}
const [X, Y] = process.argv.slice(2);
let legal = 0, mates = 0, example = null;
const ch = new Chess();
for (let bk = 0; bk < 64; bk++) for (let wx = 0; wx < 64; wx++) {
  if (wx === bk) continue;
  // quick geometric filter: X must attack bk (knight jump or bishop diagonal)
  const df = Math.abs((wx & 7) - (bk & 7)), dr = Math.abs((wx >> 3) - (bk >> 3));
  if (X === 'N' && !((df === 1 && dr === 2) || (df === 2 && dr === 1))) continue;
  if (X === 'B' && df !== dr) continue;
  for (let wk = 0; wk < 64; wk++) for (let by = 0; by < 64; by++) {
    if (new Set([bk, wx, wk, by]).size < 4) continue;
    const kf = Math.abs((wk & 7) - (bk & 7)), kr = Math.abs((wk >> 3) - (bk >> 3));
    if (kf <= 1 && kr <= 1) continue;
    const b = new Array(64).fill(null); b[wk] = 'K'; b[wx] = X; b[bk] = 'k'; b[by] = Y.toLowerCase();
    const fen = fenOf(b);
    try { ch.load(fen); } catch (e) { continue; }
    if (ch.isAttacked(sq(wk), 'b')) continue; // white, not to move, may not be in check
    legal++;
    if (ch.isCheckmate()) { mates++; if (!example) example = fen; }
  }
}
console.log(`chess.js: K+${X} v K+${Y}, black checked by the ${X}: ${legal} legal positions, ${mates} checkmates${example ? ', e.g. ' + example : ''}`);
