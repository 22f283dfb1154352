// The score of a guess against a code, as keypeg.feedback.score gives it: [black, white] key pegs.
// Codes are strings of one symbol per peg (a blank is a symbol like the colours).
export function score(secret, guess) {
  let black = 0;
  const left = new Map(), wanted = new Map();
  for (let k = 0; k < guess.length; k++) {
    if (secret[k] === guess[k]) black++;
    else {
      left.set(secret[k], (left.get(secret[k]) || 0) + 1);
      wanted.set(guess[k], (wanted.get(guess[k]) || 0) + 1);
    }
  }
  let white = 0;
  for (const [symbol, n] of wanted) white += Math.min(n, left.get(symbol) || 0);
  return [black, white];
}
