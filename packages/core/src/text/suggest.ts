import { distance } from 'fastest-levenshtein';

/**
 * The candidate nearest to a mistyped word, when it is near enough to be what was meant:
 * about two edits in five (one at least, three at most; a swap of two letters is two).
 */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const away = distance(word.toLowerCase(), candidate.toLowerCase());
    if (away < bestDistance) {
      best = candidate;
      bestDistance = away;
    }
  }
  const near = Math.min(3, Math.max(1, Math.round(word.length * 0.4)));
  return bestDistance <= near ? best : undefined;
}
