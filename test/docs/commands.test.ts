/**
 * Every `data` command the README and docs/ show in a shell or YAML block names a command
 * that exists, with options it has and the arguments it takes: each is parsed by the real
 * command line, which is stopped just before the command would run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../packages/cli/src/cli.js';
import { memoryIO } from '../../packages/cli/src/output/io.js';

const ROOT = join(import.meta.dirname, '../..');
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`)];

/** A line's words as a shell splits them (quotes kept out), up to a comment or redirection. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/'([^']*)'|"((?:\\.|[^"\\])*)"|(\S+)/g)) {
    const bare = match[3];
    if (bare?.startsWith('#') || bare?.startsWith('>')) break;
    words.push(match[1] ?? match[2] ?? bare ?? '');
  }
  return words;
}

/** The commands of a line: split at `;`, `&&`, `||`, pipes and brackets, list markers gone. */
function commandsOf(line: string): string[][] {
  return line
    .replace(/\s#\s.*$/, '')
    .split(/;|&&|\|\||\||\(|\)/)
    .map((part) => part.replace(/^\s*(?:\$\s|-\s+(?:run:\s)?|run:\s|entry:\s)?/, ''))
    .map((part) => shellWords(part).filter((word, index, all) => !isAssignment(all, index)))
    .filter((words) => words[0] === 'data')
    .map((words) => words.slice(1).filter((word) => word !== '&'));
}

/** `NAME=value` words in front of a command are its environment, not its arguments. */
function isAssignment(words: string[], index: number): boolean {
  return words.slice(0, index + 1).every((word) => /^[A-Z_][A-Z0-9_]*=/.test(word));
}

interface Shown {
  line: string;
  argv: string[];
  /** Named in a sentence (`data get`), perhaps without the arguments it needs. */
  inline: boolean;
}

function shownCommands(page: string): Shown[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const blocks = [...text.matchAll(/```(?:sh|yaml)\n([^]*?)```/g)].map((match) => match[1] ?? '');
  const inBlocks = blocks.flatMap((block) =>
    block
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .flatMap((line) =>
        commandsOf(line).map((argv) => ({ line: line.trim(), argv, inline: false })),
      ),
  );
  // Spans with placeholders (`data validate <path>`, `[--strict]`, `…`) are templates.
  const spans = [...text.replace(/```[^]*?```/g, '').matchAll(/`(data [^`<[…]*)`/g)];
  const inline = spans.flatMap((span) =>
    commandsOf(span[1] ?? '').map((argv) => ({ line: span[0], argv, inline: true })),
  );
  return [...inBlocks, ...inline];
}

class Parsed extends Error {}

/** What the command line makes of argv: a usage error's text, or undefined once it parses. */
async function usageErrorOf(argv: string[]): Promise<string | undefined> {
  const io = memoryIO();
  let reached = false;
  const code = await run(argv, io, {
    beforeCommand: () => {
      reached = true;
      throw new Parsed();
    },
  });
  // `--version` and `--help` answer without reaching a command.
  return reached || code === 0 ? undefined : `exit ${String(code)}: ${io.err()}`;
}

describe('the commands the documentation shows', () => {
  it.each(PAGES.filter((page) => shownCommands(page).length > 0))(
    '%s shows only commands that parse',
    async (page) => {
      const failures: string[] = [];
      for (const { line, argv, inline } of shownCommands(page)) {
        const error = await usageErrorOf(argv);
        if (error === undefined || (inline && error.includes('missing required argument')))
          continue;
        failures.push(`${line}\n  ${error}`);
      }
      expect(failures).toEqual([]);
    },
  );

  it("finds the README's commands, after a `;` and inside quotes too", () => {
    const shown = shownCommands('README.md').map(({ argv }) => argv.join(' '));
    expect(shown).toContain('serve --data-dir ~/hub');
    expect(shown).toContain('history ada/prices');
    expect(shown).toContain('delete ada/old --yes');
    expect(shown).toContain(
      'serve --database postgres://hub@db/hub --storage s3://hub-data?region=eu-west-1',
    );
    expect(shown).toContain('help exit-codes');
    expect(shown.length).toBeGreaterThan(25);
  });
});
