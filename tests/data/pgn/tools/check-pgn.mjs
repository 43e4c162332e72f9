// Replays each game of the given PGN files with chess.js 1.4.0 and prints
// plies, final FEN, and checkmate / stalemate / threefold / insufficient material.
import { Chess } from 'chess.js';
import fs from 'fs';
for (const file of process.argv.slice(2)) {
  let text = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  text = text.split('\n').filter(l => !l.startsWith('%')).join('\n');
  const games = text.split(/\n\s*\n(?=\[)/);
  games.forEach((g, i) => {
    const c = new Chess();
    try {
      c.loadPgn(g, { strict: false });
      console.log(`${file} #${i + 1}: plies ${c.history().length} mate ${c.isCheckmate()} stalemate ${c.isStalemate()} threefold ${c.isThreefoldRepetition()} insufficient ${c.isInsufficientMaterial()} fen ${c.fen()}`);
    } catch (e) {
      console.log(`${file} #${i + 1}: chess.js refuses: ${e.message}`);
    }
  });
}
