export interface Palette {
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) =>
  `\u001b[${String(open)}m${text}\u001b[${String(close)}m`;
const plain = (text: string): string => text;

export const COLORS: Palette = {
  red: wrap(31, 39),
  green: wrap(32, 39),
  yellow: wrap(33, 39),
  cyan: wrap(36, 39),
  dim: wrap(2, 22),
  bold: wrap(1, 22),
};

export const NO_COLORS: Palette = {
  red: plain,
  green: plain,
  yellow: plain,
  cyan: plain,
  dim: plain,
  bold: plain,
};

/** Colour only on a terminal, and never under NO_COLOR or --no-color; FORCE_COLOR wins. */
export function colorEnabled(
  isTTY: boolean,
  env: Readonly<Record<string, string | undefined>>,
  flag: boolean,
): boolean {
  if (!flag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return isTTY && env.TERM !== 'dumb';
}
