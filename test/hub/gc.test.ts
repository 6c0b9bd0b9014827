import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { collectGarbage } from '../../packages/hub/src/services/gc.js';
import { objectPath, type Storage } from '../../packages/hub/src/engines/storage/types.js';
import {
  browserLogin,
  CITIES_DIR,
  publish,
  readStored,
  storedObjects,
  waitForState,
  withHub,
} from './helpers.js';
import type { RunningHub } from '../../packages/hub/src/server.js';

async function published(url: string, jwt: string, dataset?: string): Promise<void> {
  const queued = await publish(url, jwt, CITIES_DIR, dataset ? { dataset } : {});
  expect((await waitForState(url, queued.flowId, jwt)).state).toBe('SUCCEEDED');
}

async function remove(running: RunningHub, jwt: string, dataset: string): Promise<void> {
  const ownerid = (await running.hub.store.userByName('ada'))?.userid ?? '';
  const response = await fetch(`${running.url}/source/${ownerid}/${dataset}`, {
    method: 'DELETE',
    headers: { 'Auth-Token': jwt },
  });
  expect(response.status).toBe(200);
}

describe('garbage collection', () => {
  it('frees the files and the quota of a deleted dataset, and keeps what another uses', async () => {
    await withHub({}, async (running) => {
      const { url, hub } = running;
      const ada = await browserLogin(url);
      const bob = await browserLogin(url, 'bob');
      await published(url, ada);
      await published(url, ada, 'copy');
      const adaId = (await hub.store.userByName('ada'))?.userid ?? '';
      const objects = await storedObjects(hub);
      const bytes = (
        await Promise.all(objects.map((key) => readStored(hub, objectPath(key))))
      ).reduce((sum, each) => sum + each.length, 0);

      // Used by a published revision: nothing goes, whatever the grace.
      const idle = await collectGarbage(hub, { graceMinutes: 0, dryRun: false });
      expect(idle.objects.count + idle.holdings.count).toBe(0);
      await remove(running, ada, 'world-cities');
      // The other dataset names the same files: still nothing.
      expect((await collectGarbage(hub, { graceMinutes: 0, dryRun: false })).objects.count).toBe(0);
      await remove(running, ada, 'copy');
      await published(url, bob);
      const dry = await collectGarbage(hub, { graceMinutes: 0, dryRun: true });
      expect(dry.holdings).toEqual({ count: objects.length, bytes });
      // Bob holds the same bytes: they stay, and only ada's quota goes down.
      expect(dry.objects.count).toBe(0);
      expect(await storedObjects(hub)).toEqual(objects);
      const done = await collectGarbage(hub, { graceMinutes: 0, dryRun: false });
      expect(done.holdings).toEqual(dry.holdings);
      expect(await hub.store.storageUsed(adaId)).toBe(0);
      expect(await storedObjects(hub)).toEqual(objects);
      const bobsCopy = await fetch(`${url}/bob/world-cities/r/cities.csv`);
      expect(bobsCopy.status).toBe(200);
      await bobsCopy.arrayBuffer();
      // Once bob's is gone too, the bytes go: the command says what it would free, then frees it.
      await fetch(
        `${url}/source/${(await hub.store.userByName('bob'))?.userid ?? ''}/world-cities`,
        {
          method: 'DELETE',
          headers: { 'Auth-Token': bob },
        },
      );
      const gc = (...args: string[]) =>
        runCli(['--json', 'serve', 'gc', '--data-dir', hub.options.dataDir, ...args], {
          env: { NO_COLOR: '1' },
        }).then(({ code, out }) => ({
          code,
          report: JSON.parse(out || '{}') as { objects: object },
        }));
      if (process.env.DATA_TEST_DATABASE) {
        // The command reads the engines from its options: the in-process collection stands in.
        expect((await collectGarbage(hub, { graceMinutes: 0, dryRun: true })).objects).toEqual({
          count: objects.length,
          bytes,
        });
        await collectGarbage(hub, { graceMinutes: 0, dryRun: false });
      } else {
        const dryRun = await gc('--dry-run', '--grace-minutes', '0');
        expect(dryRun.code).toBe(0);
        expect(dryRun.report.objects).toEqual({ count: objects.length, bytes });
        expect(await storedObjects(hub)).toEqual(objects);
        const collected = await gc('--grace-minutes', '0');
        expect(collected.report.objects).toEqual({ count: objects.length, bytes });
      }
      expect(await storedObjects(hub)).toEqual([]);
      expect((await hub.store.objectUsage()).objects).toBe(0);
    });
  });

  it('keeps what was made or used within its grace: a publication running meanwhile loses nothing', async () => {
    await withHub({}, async (running) => {
      const { url, hub } = running;
      const ada = await browserLogin(url);
      await published(url, ada);
      await remove(running, ada, 'world-cities');
      const publishing = published(url, ada, 'again');
      const collections = [];
      for (let round = 0; round < 5; round++)
        collections.push(await collectGarbage(hub, { graceMinutes: 1, dryRun: false }));
      await publishing;
      for (const report of collections) expect(report.objects.count).toBe(0);
      const read = await fetch(`${url}/ada/again/r/cities.csv`);
      expect(read.status).toBe(200);
      await read.arrayBuffer();
    });
  });

  it('puts the bytes of an object back when it is taken in again while they are collected', async () => {
    await withHub({}, async (running) => {
      const { url, hub } = running;
      const ada = await browserLogin(url);
      await published(url, ada);
      const [key] = await storedObjects(hub);
      if (!key) throw new Error('nothing stored');
      const bytes = await readStored(hub, objectPath(key));
      await remove(running, ada, 'world-cities');
      const adaId = (await hub.store.userByName('ada'))?.userid ?? '';
      await collectGarbage(hub, { graceMinutes: 0, dryRun: true });
      // Every holding goes first; then, just as the collector removes the bytes, an upload
      // of the same bytes takes the object in again (its bytes were there, so it wrote none).
      const racing: Storage = new Proxy(hub.storage, {
        get(target, property, receiver) {
          if (property !== 'delete') return Reflect.get(target, property, receiver) as unknown;
          return async (deleted: string) => {
            if (deleted === objectPath(key))
              await hub.store.addHolding(key, adaId, bytes.length, false, 10 * 1024 ** 3);
            await target.delete(deleted);
          };
        },
      });
      const report = await collectGarbage(
        { store: hub.store, storage: racing, log: hub.log },
        { graceMinutes: 0, dryRun: false },
      );
      expect(report.holdings.count).toBeGreaterThan(0);
      expect(await hub.store.holds(adaId, key)).toBe(true);
      expect((await readStored(hub, objectPath(key))).equals(bytes)).toBe(true);
      expect(await storedObjects(hub)).toContain(key);
    });
  });
});
