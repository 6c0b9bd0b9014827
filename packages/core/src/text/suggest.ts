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

/**
 * The refusal of the first key of `value` that is not one of `known`, or undefined when there
 * is none: the key, the known one it may have meant (didYouMean) and the keys taken, as in
 * `limits has no setting "maxRow" (did you mean "maxRows"?): it takes …`. One rule for what
 * reads an object of set keys (the hub's configuration, the JSON bodies of its API), where a
 * misspelt key would otherwise leave its default in force unseen.
 */
export function unknownKeyProblem(
  value: object,
  known: readonly string[],
  where: string,
  noun: string,
): string | undefined {
  const key = Object.keys(value).find((name) => !known.includes(name));
  if (key === undefined) return undefined;
  const guess = didYouMean(key, known);
  const meant = guess === undefined ? '' : ` (did you mean ${JSON.stringify(guess)}?)`;
  return `${where} has no ${noun} ${JSON.stringify(key)}${meant}: it takes ${known.join(', ')}`;
}
