/** Global options that take a value: the word after them is not the command. */
const VALUED_GLOBALS = new Set(['--api', '--site']);

/** The first argument that is neither an option nor an option's value: the command's name. */
export function firstWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (VALUED_GLOBALS.has(arg)) i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}
