import type { Command } from 'commander';
import { firstWord } from './first-word.js';
import type { ContextFor, SetExitCode } from './types.js';

type Register = (program: Command, contextFor: ContextFor, setExitCode: SetExitCode) => void;

/** Each command's module, loaded only when the command may run (in the order help lists them). */
const COMMANDS: Record<string, () => Promise<Register>> = {
  init: async () => (await import('./init.js')).registerInit,
  validate: async () => (await import('./validate.js')).registerValidate,
  login: async () => (await import('./login.js')).registerLogin,
  logout: async () => (await import('./logout.js')).registerLogout,
  whoami: async () => (await import('./whoami.js')).registerWhoami,
  publish: async () => (await import('./publish.js')).registerPublish,
  get: async () => (await import('./get.js')).registerGet,
  info: async () => (await import('./info.js')).registerInfo,
  cat: async () => (await import('./cat.js')).registerCat,
  diff: async () => (await import('./diff.js')).registerDiff,
  search: async () => (await import('./search.js')).registerSearch,
  list: async () => (await import('./list.js')).registerList,
  history: async () => (await import('./history.js')).registerHistory,
  delete: async () => (await import('./delete.js')).registerDelete,
  token: async () => (await import('./token.js')).registerToken,
  org: async () => (await import('./org.js')).registerOrg,
  publisher: async () => (await import('./publisher.js')).registerPublisher,
  config: async () => (await import('./config.js')).registerConfig,
  completion: async () => (await import('./completion.js')).registerCompletion,
  serve: async () => (await import('./serve.js')).registerServe,
};

const ALIASES: Record<string, string> = { push: 'publish' };

/**
 * The command the arguments name, when only it needs loading: not `help` or `completion`
 * (they list every command), nor a word that names no command (the error suggests one).
 */
export function commandNamed(argv: readonly string[]): string | undefined {
  const word = firstWord(argv);
  if (word === undefined) return undefined;
  const name = ALIASES[word] ?? word;
  return name in COMMANDS && name !== 'completion' ? name : undefined;
}

/**
 * Registers the command `only`, or every command and `help`. Loading one command's code
 * rather than all sixteen takes about 10 ms off `data validate` of a small package.
 */
export async function registerCommands(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
  only?: string,
): Promise<void> {
  const names = only === undefined ? Object.keys(COMMANDS) : [only];
  const registers = await Promise.all(
    names.map((name) => (COMMANDS[name] as () => Promise<Register>)()),
  );
  for (const register of registers) register(program, contextFor, setExitCode);
  if (only === undefined) (await import('./help.js')).registerHelp(program, setExitCode);
}
