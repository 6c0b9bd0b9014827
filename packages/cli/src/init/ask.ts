import type { Context } from '../context.js';
import type { Draft } from './draft.js';
import { visible } from '@data/core';
import { promptContext } from '../output/prompt.js';

const LICENSES = [
  {
    name: 'CC-BY-4.0',
    title: 'Creative Commons Attribution 4.0',
    path: 'https://creativecommons.org/licenses/by/4.0/',
  },
  { name: 'CC0-1.0', title: 'CC0 1.0', path: 'https://creativecommons.org/publicdomain/zero/1.0/' },
  {
    name: 'ODC-PDDL-1.0',
    title: 'Open Data Commons Public Domain Dedication and License',
    path: 'https://opendatacommons.org/licenses/pddl/',
  },
  {
    name: 'ODbL-1.0',
    title: 'Open Data Commons Open Database License 1.0',
    path: 'https://opendatacommons.org/licenses/odbl/',
  },
] as const;

/** Asks for the package's name, title and licence, and whether to keep each resource. */
export async function askAbout(draft: Draft, ctx: Context): Promise<Record<string, unknown>> {
  const { default: input } = await import('@inquirer/input');
  const { default: select } = await import('@inquirer/select');
  const { default: confirm } = await import('@inquirer/confirm');
  const context = promptContext(ctx);
  const name = await input(
    {
      message: 'Name (lower case, digits, "-", "_", "."):',
      default: draft.name,
      validate: (value) =>
        /^[a-z0-9._-]+$/.test(value) || 'lower-case letters, digits, "-", "_" and "." only',
    },
    context,
  );
  const title = await input({ message: 'Title:', default: '' }, context);
  const license = await select(
    {
      message: 'Licence:',
      choices: [
        ...LICENSES.map((item) => ({ name: `${item.name} (${item.title})`, value: item.name })),
        { name: 'none for now', value: '' },
      ],
    },
    context,
  );
  const resources = [];
  for (const resource of draft.resources)
    if (
      await confirm(
        {
          message: `Describe ${visible(String(resource.path))} as "${visible(resource.name)}"?`,
          default: true,
        },
        context,
      )
    )
      resources.push(resource);
  const chosen = LICENSES.find((item) => item.name === license);
  return {
    name,
    ...(title ? { title } : {}),
    ...(chosen ? { licenses: [chosen] } : {}),
    resources,
  };
}
