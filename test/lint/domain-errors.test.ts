import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The domain's errors say what happened; the CLI alone picks exit codes and says which flag
 * or command helps (packages/cli/src/exit-codes.ts, output/hints.ts). Core, the CLI's use
 * cases (client/, transfers/) and the hub name neither: the hub's errors name the setting, and
 * `data serve` its flag.
 */
const ROOT = join(import.meta.dirname, '../..');
const CORE = 'packages/core/src';
const USE_CASES = ['packages/cli/src/client', 'packages/cli/src/transfers'];

/** A flag (`--force`), or a command of the CLI (`data login`). */
const CLI_WORDS = /(^|[\s'"`(:])--[a-z]|`data [a-z]/;

function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => join(folder, file));
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest);
}

function walk(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

/** The texts of the string and template literals under a node. */
function texts(node: ts.Node): string[] {
  const found: string[] = [];
  walk(node, (each) => {
    if (ts.isStringLiteral(each) || ts.isNoSubstitutionTemplateLiteral(each)) found.push(each.text);
    else if (ts.isTemplateExpression(each))
      found.push(each.head.text, ...each.templateSpans.map((span) => span.literal.text));
  });
  return found;
}

/** The texts under `nodes` with a flag or command in them, as `file: text`. */
function offences(file: ts.SourceFile, nodes: ts.Node[]): string[] {
  const found = nodes.flatMap((node) =>
    texts(node)
      .filter((text) => CLI_WORDS.test(text))
      .map((text) => `${file.fileName}: ${text}`),
  );
  return [...new Set(found)].sort();
}

/**
 * Texts of core with a flag in them that are no error: V8's flags, the argv it reads, and the
 * line under a page of diff rows (the CLI's words, still in core's renderer of text diffs).
 */
const NOT_ERRORS = [
  'packages/core/src/diff/text.ts: --limit N shows more',
  ...[
    '--enable-experimental-regexp-engine-on-excessive-backtracks',
    '--regexp-backtracks-before-fallback=',
    '--enable-experimental-regexp-engine',
    '--no-enable-experimental-regexp-engine',
    '--no-enable-experimental-regexp-engine-on-excessive-backtracks',
    '--regexp-backtracks-before-fallback=50000',
  ].map((flag) => `packages/core/src/regexp-flags.ts: ${flag}`),
  'packages/core/src/version.ts: --version',
];

const isErrorClass = (node: ts.NewExpression): boolean =>
  ts.isIdentifier(node.expression) && /(Error|Failure|Refused)$/.test(node.expression.text);

/** The initializers of the file's consts, by name (every one of a name declared twice). */
function constants(file: ts.SourceFile): Map<string, ts.Expression[]> {
  const found = new Map<string, ts.Expression[]>();
  walk(file, (node) => {
    if (!ts.isVariableDeclarationList(node) || !(node.flags & ts.NodeFlags.Const)) return;
    for (const declaration of node.declarations)
      if (ts.isIdentifier(declaration.name) && declaration.initializer)
        found.set(declaration.name.text, [
          ...(found.get(declaration.name.text) ?? []),
          declaration.initializer,
        ]);
  });
  return found;
}

/**
 * The hints the code writes: `hint:` properties, and a hint given after the message; a hint
 * held in a const of the same file is read where the const is written.
 */
function hints(file: ts.SourceFile): ts.Node[] {
  const consts = constants(file);
  const found: ts.Node[] = [];
  const hint = (node: ts.Node): void => {
    found.push(...(ts.isIdentifier(node) ? (consts.get(node.text) ?? [node]) : [node]));
  };
  walk(file, (node) => {
    if (ts.isPropertyAssignment(node) && node.name.getText(file) === 'hint') hint(node.initializer);
    if (ts.isShorthandPropertyAssignment(node) && node.name.text === 'hint') hint(node.name);
    if (ts.isNewExpression(node) && isErrorClass(node))
      (node.arguments ?? []).slice(1).forEach(hint);
  });
  return found;
}

describe('the domain errors', () => {
  it('of core name no flag and no command: no text of core does, but these', () => {
    const found = sources(CORE).flatMap((path) => {
      const file = parse(path);
      return offences(file, [file]);
    });
    expect(found.sort()).toEqual(NOT_ERRORS.sort());
  });

  it('of the use cases and the hub give no hint that names a flag or a command', () => {
    const found = [...USE_CASES, 'packages/hub/src'].flatMap(sources).flatMap((path) => {
      const file = parse(path);
      return offences(file, hints(file));
    });
    expect(found).toEqual([]);
  });

  it('carry no exit code: only the CLI reads exit-codes.ts', () => {
    const found = [CORE, ...USE_CASES, 'packages/hub/src']
      .flatMap(sources)
      .filter((path) =>
        /exit-codes|\bEXIT\b|exitCode:/.test(readFileSync(join(ROOT, path), 'utf8')),
      );
    expect(found).toEqual([]);
  });

  it('would be caught naming a flag', () => {
    const file = ts.createSourceFile(
      'x.ts',
      "throw new UsageError(`${path} exists`, { hint: 'pass --force to replace it' });",
      ts.ScriptTarget.Latest,
    );
    expect(offences(file, hints(file))).toEqual(['x.ts: pass --force to replace it']);
  });

  it('would be caught naming a flag in a const given as the hint', () => {
    const file = ts.createSourceFile(
      'x.ts',
      [
        "const DATABASE_HINT = 'start it with --database';",
        'const hint = `or --force`;',
        'throw new HubRefused(message, DATABASE_HINT, 503);',
        'throw new UsageError(message, { hint });',
      ].join('\n'),
      ts.ScriptTarget.Latest,
    );
    expect(offences(file, hints(file))).toEqual([
      'x.ts: or --force',
      'x.ts: start it with --database',
    ]);
  });
});
