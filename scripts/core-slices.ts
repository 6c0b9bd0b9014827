/**
 * An esbuild plugin for the CLI's bundles: each import of `@data/core` is linked to the modules
 * that define the names it takes, not to core's index.
 *
 * Why: a bundle evaluates a module that is imported lazily (`await import(...)`) only when it is
 * first imported, and evaluating core's index evaluates every module it re-exports. Through the
 * index, the first import of an error class loaded undici, the table readers and the validator
 * before `data --version` could answer, and Node.js older than 22.19 got a stack trace instead of
 * the message saying which Node.js data needs. The sources still import core by its name only
 * (lint enforces it); only the bundles see the modules behind it. Importing a name core's index
 * does not export fails the build, as it would fail the type check.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Plugin } from 'esbuild';
import ts from 'typescript';

const PACKAGE = '@data/core';
const SLICE = `${PACKAGE}?slice=`;

/** Each value core's index exports, with the absolute path of the module that defines it. */
function coreExports(index: string): Map<string, string> {
  const source = ts.createSourceFile(index, readFileSync(index, 'utf8'), ts.ScriptTarget.Latest);
  const names = new Map<string, string>();
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) && statement.isTypeOnly) continue;
    if (
      !ts.isExportDeclaration(statement) ||
      !statement.moduleSpecifier ||
      !ts.isStringLiteral(statement.moduleSpecifier) ||
      !statement.exportClause ||
      !ts.isNamedExports(statement.exportClause)
    )
      throw new Error(`${index}: only \`export { … } from './module.js'\` is expected here`);
    const module = join(dirname(index), statement.moduleSpecifier.text.replace(/\.js$/, '.ts'));
    for (const element of statement.exportClause.elements)
      if (!element.isTypeOnly) names.set(element.name.text, module);
  }
  return names;
}

/** The names a value import or a destructured dynamic import takes from core. */
function namesTaken(node: ts.Node): string[] | undefined {
  if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
    const bindings = ts.isImportDeclaration(node)
      ? node.importClause?.namedBindings
      : node.exportClause;
    if (!bindings || !(ts.isNamedImports(bindings) || ts.isNamedExports(bindings)))
      return undefined;
    return bindings.elements
      .filter((element) => !element.isTypeOnly)
      .map((element) => (element.propertyName ?? element.name).getText());
  }
  let parent = node.parent;
  if (ts.isAwaitExpression(parent)) parent = parent.parent;
  if (ts.isVariableDeclaration(parent) && ts.isObjectBindingPattern(parent.name))
    return parent.name.elements.map((element) => (element.propertyName ?? element.name).getText());
  if (ts.isParenthesizedExpression(parent) && ts.isPropertyAccessExpression(parent.parent))
    return [parent.parent.name.text];
  return undefined;
}

/** The source with each import of core pointed at a slice of the names it takes. */
function sliced(file: string, text: string): string {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edits: [number, number, string][] = [];
  const visit = (node: ts.Node): void => {
    const specifier =
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      !(ts.isImportDeclaration(node)
        ? node.importClause?.phaseModifier === ts.SyntaxKind.TypeKeyword
        : node.isTypeOnly)
        ? node.moduleSpecifier
        : ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword
          ? node.arguments[0]
          : undefined;
    if (specifier && ts.isStringLiteral(specifier) && specifier.text === PACKAGE) {
      const names = namesTaken(node);
      if (names === undefined)
        throw new Error(`${file}: name what is taken from ${PACKAGE}: ${node.getText()}`);
      edits.push([specifier.getStart() + 1, specifier.getEnd() - 1, `${SLICE}${names.join(',')}`]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  let out = text;
  for (const [start, end, replacement] of edits.sort((a, b) => b[0] - a[0]))
    out = out.slice(0, start) + replacement + out.slice(end);
  return out;
}

export function coreSlices(root: string): Plugin {
  const exported = coreExports(join(root, 'packages', 'core', 'src', 'index.ts'));
  return {
    name: 'core-slices',
    setup(plugin) {
      plugin.onLoad({ filter: /[\\/]packages[\\/]\w+[\\/]src[\\/].*\.ts$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        return { contents: text.includes(PACKAGE) ? sliced(args.path, text) : text, loader: 'ts' };
      });
      plugin.onResolve({ filter: /^@data\/core\?slice=/ }, (args) => ({
        path: args.path,
        namespace: 'core-slice',
      }));
      plugin.onLoad({ filter: /.*/, namespace: 'core-slice' }, (args) => {
        const names = args.path.slice(SLICE.length).split(',').filter(Boolean);
        const lines = names.map((name) => {
          const module = exported.get(name);
          if (module === undefined) throw new Error(`${PACKAGE} exports no value ${name}`);
          return `export { ${name} } from ${JSON.stringify(module)};`;
        });
        return { contents: lines.join('\n'), loader: 'ts', resolveDir: root };
      });
    },
  };
}
