/**
 * A credential limited to some datasets (a `publish` token with `--dataset`, a trusted
 * publisher's) uploads only for one of them, named in the authorization, and is told no more
 * of its owner's objects than its dataset's own revisions name: `exists` was an oracle of
 * whether the owner holds bytes of a digest it knows, of any dataset, private ones included.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  authorizeUploads,
  browserLogin,
  md5Base64,
  CITIES_DIR,
  publish,
  readPackage,
  serviceToken,
  waitForState,
  withHub,
  type AuthorizeReply,
} from './helpers.js';

async function namedToken(url: string, auth: string, request: unknown): Promise<string> {
  const response = await fetch(`${url}/api/tokens`, {
    method: 'POST',
    headers: { 'Auth-Token': auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(request),
  });
  const body = (await response.json()) as { token?: string };
  if (!body.token) throw new Error(JSON.stringify(body));
  return body.token;
}

/** Random bytes of a table-like file, large enough to be offered an upload in parts. */
function bigFile(): Buffer {
  return Buffer.concat([
    Buffer.from('id,value\n'),
    randomBytes(9 * 1024 * 1024).map((byte) => 97 + (byte % 26)),
  ]);
}

interface Plan {
  length: number;
  held: number;
  parts: { start: number; end: number; url: string }[];
}

describe('a credential limited to datasets, uploading', () => {
  it('names its dataset, and is told only of the objects that dataset names', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const cities = readPackage(CITIES_DIR);
      // Ada's private dataset holds these bytes.
      const first = await publish(url, ada, CITIES_DIR, { findability: 'private' });
      expect((await waitForState(url, first.flowId, ada)).state).toBe('SUCCEEDED');

      const ci = await namedToken(url, ada, {
        name: 'ci',
        scope: 'publish',
        datasets: ['ada/towns'],
      });
      const rawstore = await serviceToken(url, ci, 'rawstore');
      const authorize = async (dataset?: string) => {
        const response = await authorizeUploads(
          url,
          rawstore,
          cities.files,
          'private',
          undefined,
          dataset,
        );
        return {
          status: response.status,
          body: (await response.json()) as AuthorizeReply & { error?: string },
        };
      };

      // No dataset named: refused, saying what to send.
      const unnamed = await authorize();
      expect(unnamed.status).toBe(403);
      expect(unnamed.body.error).toContain('name the one the files are for in "metadata.dataset"');
      // Another dataset of the owner: refused, naming the token's list.
      const other = await authorize('world-cities');
      expect(other.status).toBe(403);
      expect(other.body.error).toBe(
        'this token may publish only the datasets it was made for, and ada/world-cities is not one of them',
      );
      // Its own dataset: the forms, and nothing said of the bytes the owner holds elsewhere.
      const own = await authorize('towns');
      expect(own.status).toBe(200);
      for (const [path, target] of Object.entries(own.body.filedata))
        expect(target.exists, path).toBe(false);

      // Nor may it publish the owner's objects of another dataset by their digests, unsent,
      // nor leave a file out of the mapping (the pipeline would take the owner's last
      // upload at that path).
      const source = await serviceToken(url, ci, 'source');
      const objectUrl = (path: string) => own.body.filedata[path]?.object_url ?? '';
      const specOf = (mapping: Record<string, string>) => ({
        meta: {
          version: 1,
          ownerid: source.userid,
          owner: 'ada',
          dataset: 'towns',
          findability: 'published',
        },
        inputs: [
          {
            kind: 'datapackage',
            url: objectUrl('datapackage.json'),
            parameters: { descriptor: cities.descriptor, 'resource-mapping': mapping },
          },
        ],
      });
      const sourceUpload = async (mapping: Record<string, string>) => {
        const response = await fetch(`${url}/source/upload`, {
          method: 'POST',
          headers: { 'Auth-Token': source.token, 'Content-Type': 'application/json' },
          body: JSON.stringify(specOf(mapping)),
        });
        return { status: response.status, body: (await response.json()) as { errors: string[] } };
      };
      const paths = [...cities.files.keys()].filter((path) => path !== 'datapackage.json');
      const unsent = await sourceUpload(Object.fromEntries(paths.map((p) => [p, objectUrl(p)])));
      expect(unsent.status).toBe(403);
      expect(unsent.body.errors[0]).toMatch(
        /^"[^"]+" was not sent by a token for ada\/towns: upload it for this dataset first$/,
      );
      const unmapped = await sourceUpload({});
      expect(unmapped.status).toBe(403);
      expect(unmapped.body.errors[0]).toContain('has no object in the resource mapping');
      expect(
        (await fetch(`${url}/ada/towns/datapackage.json`, { headers: { 'Auth-Token': ada } }))
          .status,
      ).toBe(404);

      // Published once through the token, its dataset's own objects are said to exist.
      const towns = await publish(url, ci, CITIES_DIR, { dataset: 'towns' });
      expect(towns.uploads).toBe(cities.files.size);
      expect((await waitForState(url, towns.flowId, ada)).state).toBe('SUCCEEDED');
      const again = await authorize('towns');
      expect(again.status).toBe(200);
      const told = Object.entries(again.body.filedata).filter(([, target]) => target.exists);
      // The resources: the revision names its files (the descriptor is sent again, small).
      expect(told.map(([path]) => path).sort()).toEqual(
        [...cities.files.keys()].filter((path) => path !== 'datapackage.json').sort(),
      );

      // An unlimited credential is unchanged: no dataset needed, told of all it holds.
      const whole = await authorizeUploads(
        url,
        await serviceToken(url, ada, 'rawstore'),
        cities.files,
      );
      expect(whole.status).toBe(200);
      const wholeBody = (await whole.json()) as AuthorizeReply;
      for (const [path, target] of Object.entries(wholeBody.filedata))
        expect(target.exists, path).toBe(true);
    });
  });

  it('is told nothing, in an upload in parts, of what the owner sent of the same bytes', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const ci = await namedToken(url, ada, {
        name: 'ci',
        scope: 'publish',
        datasets: ['ada/towns'],
      });
      const bytes = bigFile();
      const files = new Map([['big.csv', bytes]]);
      const session = async (token: string, dataset: string) => {
        const rawstore = await serviceToken(url, token, 'rawstore');
        const authorized = await authorizeUploads(
          url,
          rawstore,
          files,
          'private',
          ['PARTS'],
          dataset,
        );
        const reply = (await authorized.json()) as AuthorizeReply;
        const entry = reply.filedata['big.csv'];
        expect(entry?.upload_method).toBe('PARTS');
        return entry?.upload_url ?? '';
      };
      const planOf = async (address: string) => (await (await fetch(address)).json()) as Plan;

      // The owner sends the first part of the file, and stops there.
      const owners = await session(ada, 'world-cities');
      const [first] = (await planOf(owners)).parts;
      const end = Math.min(first?.end ?? 0, (first?.start ?? 0) + 5 * 1024 * 1024);
      const sent = await fetch(first?.url ?? '', {
        method: 'PUT',
        body: bytes.subarray(first?.start ?? 0, end),
      });
      expect(sent.ok).toBe(true);
      expect((await planOf(owners)).held).toBeGreaterThan(0);

      // The token's session of the same bytes holds nothing of the owner's: all to send.
      const limited = await session(ci, 'towns');
      const plan = await planOf(limited);
      expect(plan.held).toBe(0);
      expect(plan.parts.reduce((sum, part) => sum + part.end - part.start, 0)).toBe(bytes.length);
      // Nor is it completed with them.
      const completed = await fetch(limited, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ md5: md5Base64(bytes) }),
      });
      expect(completed.status).toBe(409);
      await completed.arrayBuffer();
    });
  });
});
