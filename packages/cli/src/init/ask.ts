import type { Draft } from './draft.js';
import { visible } from '@data/core';
import type { Package } from '@data/core';

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

/** The questions `data init --interactive` asks, however they are put to the user. */
export interface InitQuestions {
  /** A line of text; `validate` says what is wrong with an answer, or true. */
  input: (question: {
    message: string;
    default: string;
    validate?: (value: string) => true | string;
  }) => Promise<string>;
  select: (question: {
    message: string;
    choices: { name: string; value: string }[];
  }) => Promise<string>;
  confirm: (question: { message: string; default: boolean }) => Promise<boolean>;
}

/** Asks for the package's name, title and licence, and whether to keep each resource. */
export async function askAbout(draft: Draft, ask: InitQuestions): Promise<Package> {
  const name = await ask.input({
    message: 'Name (lower case, digits, "-", "_", "."):',
    default: draft.name,
    validate: (value) =>
      /^[a-z0-9._-]+$/.test(value) || 'lower-case letters, digits, "-", "_" and "." only',
  });
  const title = await ask.input({ message: 'Title:', default: '' });
  const license = await ask.select({
    message: 'Licence:',
    choices: [
      ...LICENSES.map((item) => ({ name: `${item.name} (${item.title})`, value: item.name })),
      { name: 'none for now', value: '' },
    ],
  });
  const resources = [];
  for (const resource of draft.resources)
    if (
      await ask.confirm({
        message: `Describe ${visible(String(resource.path))} as "${visible(resource.name)}"?`,
        default: true,
      })
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
