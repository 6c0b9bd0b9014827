/**
 * A small seeded generator of whole numbers below a bound, so that a failing case is the
 * same on every run. It answers from the state's high bits: the low bits of such a
 * generator repeat with a short period (the lowest one alternates), so that taking the
 * state modulo a small bound made some choices far more often than others.
 */
export function seeded(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return Math.floor((state / 2 ** 32) * below);
  };
}
