/**
 * What bin/data runs: the CLI bundle, or the bundle of the command when it has one of its own,
 * under a code cache per command (code-cache.ts), written after the command's first run.
 */
import { fileURLToPath } from 'node:url';
import { firstWord } from './commands/first-word.js';
import { OWN_BUNDLE } from './own-bundles.js';
import { asksVersion, loadBundle, nodeTooOld, version, type LoadedBundle } from '@data/core';

type Env = Readonly<Record<string, string | undefined>>;

type Main = (options?: { onCommand?: (name: string) => void }) => Promise<void>;

/** Arguments with no command in them: --version, --help or a mistake. */
const NO_COMMAND = 'none';

/**
 * The key of the cache of what the arguments ask for: the command they seem to name, `none`
 * when they name none, or no key for a word that cannot be a command's name.
 */
export function guessCommand(argv: readonly string[]): string | undefined {
  const word = firstWord(argv);
  if (word === undefined) return NO_COMMAND;
  return /^[a-z]{1,20}$/.test(word) ? word : undefined;
}

/** Writes the cache once a command ran, and tells what became of it. */
function settleCache(cli: LoadedBundle, command: string | undefined, commandRan: boolean): string {
  if (cli.fate === 'used') return 'used';
  if (!commandRan && command !== NO_COMMAND)
    return `${String(cli.fate)}, not written: no command ran`;
  const reason = cli.save();
  return `${String(cli.fate)}, ${reason ? `not written: ${reason}` : 'written'}`;
}

export async function start(argv: readonly string[], env: Env): Promise<void> {
  // An older Node.js is told by main(), which sets the exit code.
  if (asksVersion(argv) && !nodeTooOld()) {
    process.stdout.write(`${version()}\n`);
    return;
  }
  const command = guessCommand(argv);
  const bundle = command && OWN_BUNDLE.includes(command) ? `cli-${command}` : 'cli';
  const cli = loadBundle(
    fileURLToPath(new URL(`bundle/${bundle}.cjs`, import.meta.url)),
    command,
    env,
  );
  let commandRan = false;
  process.once('exit', () => {
    if (cli.file === undefined) return;
    const said = settleCache(cli, command, commandRan);
    if (argv.includes('--debug')) process.stderr.write(`debug: code cache ${cli.file}: ${said}\n`);
  });
  await (cli.exports.main as Main)({ onCommand: () => (commandRan = true) });
}
