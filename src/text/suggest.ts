import { distance } from 'fastest-levenshtein';

/**
 * The candidate nearest to a mistyped word, when it is near enough to be what was meant:
 * at most a third of the word's length away (and at least one edit).
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
  return bestDistance <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined;
}
