import type { Command } from 'commander';
import { EXIT_CODE_TABLE } from '../exit-codes.js';
import type { SetExitCode } from './types.js';
import { UsageError } from '@data/core';

const TOPICS = ['exit-codes'];

export function exitCodesText(): string {
  const rows = EXIT_CODE_TABLE.map(
    ([code, meaning]) => `  ${String(code).padStart(3)}  ${meaning}`,
  );
  return `Exit codes of data:\n\n${rows.join('\n')}\n`;
}

export function registerHelp(program: Command, setExitCode: SetExitCode): void {
  program.helpCommand(false);
  program
    .command('help [topic]')
    .summary('show help for a command, or a topic: exit-codes')
    .action((topic: string | undefined) => {
      const out = (text: string): void => program.configureOutput().writeOut?.(text);
      if (topic === undefined) return out(program.helpInformation());
      if (topic === 'exit-codes') return out(exitCodesText());
      const command = program.commands.find(
        (candidate) => candidate.name() === topic || candidate.aliases().includes(topic),
      );
      if (!command)
        throw new UsageError(
          `unknown help topic "${topic}"`,
          `topics: ${[...TOPICS, ...program.commands.map((c) => c.name())].join(', ')}`,
        );
      out(command.helpInformation());
      setExitCode(0);
    });
}
