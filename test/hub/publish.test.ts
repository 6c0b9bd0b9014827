import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserLogin, EXAMPLES, publish, waitForState, withHub } from './helpers.js';

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
      expect(descriptor.resources.map((resource) => resource.name)).toEqual([
        'countries',
        'cities',
      ]);
      for (const [index, resource] of descriptor.resources.entries()) {
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
});
