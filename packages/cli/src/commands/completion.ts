import type { Command } from 'commander';
import type { ContextFor, SetExitCode } from './types.js';
import type { CommandTree } from '../output/completion.js';

export function registerCompletion(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  program
    .command('completion')
    .summary('print a shell completion script, made from the commands and options of this data')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText(
      'after',
      '\nExamples:\n  data completion bash > ~/.local/share/bash-completion/completions/data\n  data completion zsh > "${fpath[1]}/_data"\n  data completion fish > ~/.config/fish/completions/data.fish',
    )
    .action(async (shell: string, _options: unknown, command: Command) => {
      const ctx = contextFor(command);
      const { completionScript } = await import('../output/completion.js');
      const { UsageError } = await import('@data/core');
      if (shell !== 'bash' && shell !== 'zsh' && shell !== 'fish')
        throw new UsageError(`no completion for the shell "${shell}"`, 'choose bash, zsh or fish');
      ctx.io.stdout.write(completionScript(shell, describeTree(program)));
      setExitCode(0);
    });
}

/** The commands with their options, read off the program itself so that it stays true. */
function describeTree(program: Command): CommandTree {
  const flags = (command: Command) =>
    command.options
      .filter((option) => option.long && !option.hidden)
      .map((option) => ({
        flag: option.long ?? '',
        description: option.description,
        choices: option.argChoices ?? [],
        takesValue: option.required || option.optional,
      }));
  return {
    globals: flags(program),
    commands: program.commands.map((command) => ({
      name: command.name(),
      description: command.summary() || command.description(),
      options: flags(command),
      subcommands: command.commands.map((sub) => sub.name()),
    })),
  };
}
