import { join } from 'node:path';
import { InputError, UsageError } from '@data/core';
import { isRemote } from '@data/core';
import type { Dialect, Package, Resource } from '@data/core';
import { formatOf, noteContentFormat, resourcesOf } from '@data/core';
import { isSpreadsheet, sheetNames } from '@data/core';
import { listSheets } from '@data/core';
import { nameFromFile } from '@data/core';

/** `--sheets`: every sheet, or sheets by number (from 1) or by name, comma-separated. */
export type SheetsChoice = 'all' | (number | string)[];

export function parseSheets(value: string): SheetsChoice {
  if (value.trim().toLowerCase() === 'all') return 'all';
  const parts = value.split(',').map((part) => part.trim());
  if (parts.some((part) => part === ''))
    throw new UsageError(`--sheets "${value}" has an empty item`, {
      hint: 'give all, numbers from 1 or names, separated by commas',
      reason: 'sheets-list',
    });
  return parts.map((part) => (/^[1-9][0-9]*$/.test(part) ? Number(part) : part));
}

/**
 * The dialect the resource holds, if it holds one (not a path to one). Sheets are chosen
 * before validation, so its properties' types are checked where they are read.
 */
function ownDialect(resource: Resource): Dialect {
  const dialect: unknown = resource.dialect;
  return typeof dialect === 'object' && dialect !== null ? dialect : {};
}

/** The sheet the resource reads now: its dialect's, or the first. */
function currentSheet(resource: Resource, names: readonly string[]): string | undefined {
  const dialect = ownDialect(resource);
  if (typeof dialect.sheetName === 'string') return dialect.sheetName;
  return names[typeof dialect.sheetNumber === 'number' ? dialect.sheetNumber - 1 : 0];
}

function chosenSheets(file: string, names: readonly string[], choice: SheetsChoice): string[] {
  if (choice === 'all') return [...names];
  return choice.map((wanted) => {
    const name =
      typeof wanted === 'number' ? names[wanted - 1] : names.find((each) => each === wanted);
    if (name === undefined)
      throw new InputError(
        `${file} has no sheet ${typeof wanted === 'number' ? String(wanted) : `"${wanted}"`}; its sheets are ${listSheets(names)}`,
        { hint: 'choose among them, by number or name, or all', reason: 'no-such-sheet' },
      );
    return name;
  });
}

/** A resource name for a sheet of a workbook resource, unique in the package. */
function sheetResourceName(base: string, sheet: string, taken: Set<string>): string {
  const slug = nameFromFile(sheet) || 'sheet';
  let name = `${base}-${slug}`;
  for (let n = 2; taken.has(name); n++) name = `${base}-${slug}-${String(n)}`;
  taken.add(name);
  return name;
}

/**
 * Makes the chosen sheets of each workbook of the package tables of their own (the old
 * DataHub CLI's `--sheets`). The sheet the resource read stays that resource, with its name
 * and schema; each other sheet becomes a resource `<name>-<sheet>` whose schema is inferred
 * (one sheet alone keeps the resource's name). A sheet the workbook lacks stops it, naming those it has.
 */
export async function chooseSheets(
  descriptor: Package,
  dir: string,
  choice: SheetsChoice,
): Promise<Package> {
  const resources = resourcesOf(descriptor);
  const taken = new Set(resources.map((resource) => resource.name));
  const result: Resource[] = [];
  let workbooks = 0;
  for (const resource of resources) {
    const path = resource.path;
    // A workbook as validation tells it: by its format, else its bytes, else its name.
    if (typeof path === 'string' && !isRemote(path)) await noteContentFormat(resource, { dir });
    if (!isSpreadsheet(formatOf(resource)) || typeof path !== 'string' || isRemote(path)) {
      result.push(resource);
      continue;
    }
    workbooks++;
    const names = await sheetNames(join(dir, path));
    const sheets = chosenSheets(path, names, choice);
    const own = currentSheet(resource, names);
    const dialectOf = (sheet: string): Dialect => {
      const { sheetNumber: _number, ...rest } = ownDialect(resource);
      return { ...rest, sheetName: sheet };
    };
    for (const sheet of sheets) {
      const { schema, ...rest } = resource;
      // The sheet the resource read keeps its name (keys point at it) and its schema.
      const keepsName = sheet === own || sheets.length === 1;
      const table: Resource = {
        ...rest,
        dialect: dialectOf(sheet),
        ...(keepsName
          ? {}
          : {
              name: sheetResourceName(resource.name, sheet, taken),
              title: `${typeof resource.title === 'string' ? resource.title : resource.name}: ${sheet}`,
            }),
      };
      if (sheet === own && schema !== undefined) table.schema = schema;
      else await inferInto(table, dir);
      result.push(table);
    }
  }
  if (workbooks === 0)
    throw new UsageError('--sheets chooses sheets of workbooks, and the package has none', {
      hint: 'choose no sheets',
      reason: 'no-workbooks',
    });
  return { ...descriptor, resources: result };
}

/** A sheet read as `data init` reads it: its header below any title rows, its schema. */
async function inferInto(resource: Resource, dir: string): Promise<void> {
  const { readingOf } = await import('@data/core');
  const reading = await readingOf(resource, { dir });
  if (reading.properties.dialect) resource.dialect = reading.properties.dialect;
  if (reading.schema) resource.schema = reading.schema;
  else delete resource.schema;
}
