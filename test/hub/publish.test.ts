import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  browserLogin,
  CITIES_PUBLISHED,
  EXAMPLES,
  publish,
  tempDir,
  waitForState,
  withHub,
} from './helpers.js';

describe('publishing through the protocol', () => {
  it('logs in by SSO, uploads through signed forms, publishes and reads every resource back byte-identical', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      expect(jwt.split('.')).toHaveLength(3);
      const { flowId } = await publish(url, jwt, join(EXAMPLES, 'cities'));
      const status = await waitForState(url, flowId);
      expect(status.state).toBe('SUCCEEDED');
      expect(Object.values(status.pipelines).map((step) => step.status)).toEqual(
        Array(6).fill('SUCCEEDED'),
      );
      const descriptor = (await (
        await fetch(`${url}/ada/world-cities/datapackage.json`)
      ).json()) as { resources: { name: string; path: string }[] };
      expect(descriptor.resources.map((resource) => resource.name)).toEqual(CITIES_PUBLISHED);
      for (const [index, resource] of descriptor.resources.slice(0, 2).entries()) {
        const original = readFileSync(join(EXAMPLES, 'cities', resource.path));
        const byName = Buffer.from(
          await (await fetch(`${url}/ada/world-cities/r/${resource.name}.csv`)).arrayBuffer(),
        );
        const byIndex = Buffer.from(
          await (await fetch(`${url}/ada/world-cities/r/${String(index)}.csv`)).arrayBuffer(),
        );
        const byFile = Buffer.from(
          await (
            await fetch(`${url}/ada/world-cities/r/${resource.path.split('/').pop() ?? ''}`)
          ).arrayBuffer(),
        );
        expect(byName.equals(original)).toBe(true);
        expect(byIndex.equals(original)).toBe(true);
        expect(byFile.equals(original)).toBe(true);
      }
    });
  });

  it('fails an invalid package and keeps its report readable', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const { flowId } = await publish(url, jwt, join(EXAMPLES, 'invalid-data'));
      const status = await waitForState(url, flowId);
      expect(status.state).toBe('FAILED');
      const steps = Object.entries(status.pipelines).map(([id, step]) => [
        id.split('/').pop(),
        step.status,
      ]);
      expect(steps).toEqual([
        ['load', 'SUCCEEDED'],
        ['encoding', 'SUCCEEDED'],
        ['csv-kind', 'SUCCEEDED'],
        ['validate', 'FAILED'],
        ['dump', 'SKIPPED'],
        ['register', 'SKIPPED'],
      ]);
      expect(status.error_log[0]).toBe('Validate the data failed');
      expect(status.error_log.join('\n')).toContain('Type error in the cell "yes"');
      expect((await fetch(`${url}/ada/staff-directory/datapackage.json`)).status).toBe(404);
      // A dataset that never succeeded stays private: its owner sees the failure.
      expect((await fetch(`${url}/ada/staff-directory`)).status).toBe(404);
      const page = await (
        await fetch(`${url}/ada/staff-directory`, { headers: { 'Auth-Token': jwt } })
      ).text();
      expect(page).toContain('Type error in the cell &quot;yes&quot;');
    });
  });

  it('validates the sheets of a workbook before it publishes them, and fails one that breaks its schema', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const good = await publish(url, jwt, join(EXAMPLES, 'weather-stations'));
      expect((await waitForState(url, good.flowId)).state).toBe('SUCCEEDED');
      const workbook = Buffer.from(
        await (await fetch(`${url}/ada/weather-stations/r/2.xlsx`)).arrayBuffer(),
      );
      expect(
        workbook.equals(readFileSync(join(EXAMPLES, 'weather-stations/data/stations.xlsx'))),
      ).toBe(true);

      const dir = tempDir();
      cpSync(join(EXAMPLES, 'weather-stations'), dir, { recursive: true });
      const descriptor = JSON.parse(readFileSync(join(dir, 'datapackage.json'), 'utf8')) as {
        name: string;
        resources: { schema: { fields: { name: string; constraints?: object }[] } }[];
      };
      descriptor.name = 'cold-stations';
      const temperature = descriptor.resources[2]?.schema.fields[2];
      if (temperature) temperature.constraints = { maximum: 10 };
      writeFileSync(join(dir, 'datapackage.json'), JSON.stringify(descriptor));
      const bad = await publish(url, jwt, dir);
      const status = await waitForState(url, bad.flowId);
      expect(status.state).toBe('FAILED');
      expect(status.error_log.join('\n')).toContain(
        'readings: The cell "15.9" in row "6" and field "temperature_c" at position "3" does not conform to a constraint: constraint "maximum" is "10"',
      );
    });
  });
});
