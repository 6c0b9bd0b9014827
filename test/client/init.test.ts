import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  draftDescriptor,
  refreshSizes,
  writeDescriptor,
  type InitEvent,
} from '../../packages/cli/src/client/init.js';
import { askAbout } from '../../packages/cli/src/init/ask.js';
import { UsageError } from '../../packages/core/src/errors.js';
import type { HttpFetch } from '../../packages/core/src/http/http.js';
import { refuse } from '../helpers/fake-fetch.js';

function folder(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), 'data-init-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

/** The deps of a draft with no network, and the events it told, in order. */
function deps(): {
  fetch: HttpFetch;
  signal: AbortSignal;
  onEvent: (e: InitEvent) => void;
  events: InitEvent[];
} {
  const events: InitEvent[] = [];
  return {
    fetch: refuse,
    signal: new AbortController().signal,
    onEvent: (event) => {
      events.push(event);
    },
    events,
  };
}

describe('draftDescriptor, the use case of data init', () => {
  it('reads each file, tells what it found, then validates, loosening what the data contradicts', async () => {
    const late = `n\n${Array.from({ length: 150 }, (_, index) => String(index)).join('\n')}\noops\n`;
    const dir = folder({
      'broken.csv': Buffer.from([0x00, 0x01, 0x02, 0x03, 0x00]),
      'late.csv': late,
      'people.csv': 'name,age,name\nAda,36,Lovelace\n',
    });
    const given = deps();
    const { draft, report, notes } = await draftDescriptor(dir, 'mine', given);
    expect(draft.name).toBe('mine');
    expect(draft.resources.map((resource) => resource.name)).toEqual(['late', 'people']);
    expect(draft.resources[0]?.schema).toEqual({ fields: [{ name: 'n', type: 'string' }] });
    expect(report.valid).toBe(true);
    expect(notes.leftOut.map((note) => note.path)).toEqual(['broken.csv']);
    expect(notes.renamed).toEqual([
      { path: 'people.csv', resource: 'people', label: 'name', field: 'name_2' },
    ]);
    const kinds = given.events.map((event) => event.type);
    expect(kinds.slice(0, 4)).toEqual(['reading', 'reading', 'reading', 'drafted']);
    expect(kinds.slice(4).every((kind) => kind === 'validate')).toBe(true);
    expect(kinds.length).toBeGreaterThan(4);
    expect(given.events[0]).toEqual({ type: 'reading', path: 'broken.csv', index: 0, total: 3 });
    expect(given.events[3]).toEqual({ type: 'drafted', notes });
  });

  it('refuses a folder with no data file, once it has told what it left out', async () => {
    const dir = folder({ 'empty.csv': '' });
    const given = deps();
    const error: unknown = await draftDescriptor(dir, 'mine', given).catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(`${dir} holds no data file to describe`);
    expect(given.events.at(-1)).toEqual({
      type: 'drafted',
      notes: {
        leftOut: [{ path: 'empty.csv', reason: expect.any(String) as string }],
        renamed: [],
      },
    });
  });
});

describe('writeDescriptor', () => {
  const descriptor = { name: 'p', resources: [{ name: 't', path: 't.csv' }] };

  it('writes JSON, or YAML, that reads back as the descriptor', async () => {
    const dir = folder({});
    const signal = new AbortController().signal;
    await writeDescriptor(join(dir, 'datapackage.json'), descriptor, false, signal);
    await writeDescriptor(join(dir, 'datapackage.yaml'), descriptor, true, signal);
    const json = readFileSync(join(dir, 'datapackage.json'), 'utf8');
    expect(json).toBe(`${JSON.stringify(descriptor, null, 2)}\n`);
    expect(parse(readFileSync(join(dir, 'datapackage.yaml'), 'utf8'))).toEqual(descriptor);
  });

  it('writes nothing once interrupted', async () => {
    const dir = folder({});
    const controller = new AbortController();
    controller.abort(new Error('interrupted'));
    await expect(
      writeDescriptor(join(dir, 'datapackage.json'), descriptor, false, controller.signal),
    ).rejects.toThrow();
    expect(existsSync(join(dir, 'datapackage.json'))).toBe(false);
  });
});

describe('refreshSizes', () => {
  it('brings a descriptor’s bytes up to date with its file, and says what changed', async () => {
    const dir = folder({
      't.csv': 'a\n1\n',
      'datapackage.json':
        '{"name": "p", "resources": [{"name": "t", "path": "t.csv", "bytes": 1}]}\n',
    });
    const changes = await refreshSizes(join(dir, 'datapackage.json'));
    expect(changes).toEqual([{ resource: 't', property: 'bytes', from: 1, to: 4 }]);
    expect(readFileSync(join(dir, 'datapackage.json'), 'utf8')).toBe(
      '{"name": "p", "resources": [{"name": "t", "path": "t.csv", "bytes": 4}]}\n',
    );
  });

  it('says a descriptor it cannot read is a usage error naming it', async () => {
    const dir = folder({ 'datapackage.json': '{ not json' });
    const error: unknown = await refreshSizes(join(dir, 'datapackage.json')).catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain(`cannot read ${join(dir, 'datapackage.json')}`);
  });
});

describe('askAbout, the questions of data init --interactive', () => {
  const draft = {
    name: 'drafted',
    resources: [
      { name: 'kept', path: 'kept.csv' },
      { name: 'dropped', path: 'dropped.csv' },
    ],
  };

  it('takes the answers given: name, title, licence, and the resources kept', async () => {
    const asked: string[] = [];
    const descriptor = await askAbout(draft, {
      input: (question) => {
        asked.push(question.message);
        expect(question.validate?.('Not Valid')).toBe(
          question.message === 'Title:'
            ? undefined
            : 'lower-case letters, digits, "-", "_" and "." only',
        );
        return Promise.resolve(question.message === 'Title:' ? 'Prices' : `${question.default}-2`);
      },
      select: (question) => {
        asked.push(question.message);
        expect(question.choices.at(-1)).toEqual({ name: 'none for now', value: '' });
        return Promise.resolve('CC0-1.0');
      },
      confirm: (question) => {
        asked.push(question.message);
        return Promise.resolve(question.message.includes('"kept"'));
      },
    });
    expect(asked).toEqual([
      'Name (lower case, digits, "-", "_", "."):',
      'Title:',
      'Licence:',
      'Describe kept.csv as "kept"?',
      'Describe dropped.csv as "dropped"?',
    ]);
    expect(descriptor).toEqual({
      name: 'drafted-2',
      title: 'Prices',
      licenses: [
        {
          name: 'CC0-1.0',
          title: 'CC0 1.0',
          path: 'https://creativecommons.org/publicdomain/zero/1.0/',
        },
      ],
      resources: [{ name: 'kept', path: 'kept.csv' }],
    });
  });

  it('leaves out an empty title and "none for now" as a licence', async () => {
    const descriptor = await askAbout(draft, {
      input: (question) => Promise.resolve(question.default),
      select: () => Promise.resolve(''),
      confirm: () => Promise.resolve(true),
    });
    expect(descriptor).toEqual({ name: 'drafted', resources: draft.resources });
  });
});
