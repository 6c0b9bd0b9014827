import { describe, expect, it } from 'vitest';
import {
  flowSpecErrors,
  isAuthCheck,
  isFindability,
  isFlowSpec,
  isFlowStatus,
  isRevisionEntry,
  isSearchResult,
} from '../../packages/core/src/protocol/guards.js';

const status = {
  id: 'u1/prices/2',
  state: 'FAILED',
  pipelines: {
    'u1/prices/2/validate': { title: 'Validate', status: 'FAILED', error_log: ['bad row'] },
    'u1/prices/2/dump': { title: 'Dump', status: 'SKIPPED', stats: {}, error_log: [] },
  },
  error_log: ['validation failed'],
  stats: {},
  modified: '2026-01-01T00:00:00Z',
};

const spec = {
  meta: { version: 1, ownerid: 'u1', owner: 'ada', dataset: 'prices', findability: 'private' },
  inputs: [
    {
      kind: 'datapackage',
      url: 'https://hub.test/rawstore/objects/x.json',
      parameters: { descriptor: { resources: [] }, 'resource-mapping': {} },
    },
  ],
};

describe('the wire protocol’s guards', () => {
  it('take a status as the hub answers it, and refuse one of another shape', () => {
    expect(isFlowStatus(status)).toBe(true);
    expect(isFlowStatus({ ...status, state: 'DONE' })).toBe(false);
    expect(isFlowStatus({ ...status, pipelines: { x: { title: 'X' } } })).toBe(false);
    expect(isFlowStatus({ ...status, error_log: 'oops' })).toBe(false);
    expect(isFlowStatus({ error: 'not found' })).toBe(false);
    expect(isFlowStatus('<html>')).toBe(false);
  });

  it('check a flow spec as the hub does, saying what is wrong', () => {
    expect(flowSpecErrors(spec)).toEqual([]);
    expect(isFlowSpec(spec)).toBe(true);
    expect(flowSpecErrors([])).toEqual(['the flow spec must be a JSON object']);
    expect(
      flowSpecErrors({ ...spec, meta: { ...spec.meta, dataset: '../x', findability: 'open' } }),
    ).toEqual([
      '"meta.dataset" must be a dataset name (letters, digits, ".", "-", "_")',
      '"meta.findability" must be published, unlisted or private',
    ]);
    expect(
      flowSpecErrors({ meta: spec.meta, inputs: [{ kind: 'datapackage', url: 'u' }] }),
    ).toEqual(['"inputs[0].parameters" needs "descriptor" and "resource-mapping" objects']);
  });

  it('tell the findabilities, the sign-in check, search results and revisions', () => {
    expect(['published', 'unlisted', 'private'].every(isFindability)).toBe(true);
    expect(isFindability('public')).toBe(false);
    expect(isAuthCheck({ authenticated: true, profile: { id: 'u1' } })).toBe(true);
    expect(isAuthCheck({ authenticated: false, providers: { github: { url: 'https://x' } } })).toBe(
      true,
    );
    expect(isAuthCheck({ authenticated: 'yes' })).toBe(false);
    expect(isAuthCheck({ authenticated: false, providers: { github: {} } })).toBe(false);
    const result = {
      id: 'u1/prices',
      name: 'prices',
      title: null,
      datahub: { owner: 'ada', findability: 'published' },
      datapackage: {},
    };
    expect(isSearchResult(result)).toBe(true);
    expect(isSearchResult({ ...result, datahub: {} })).toBe(false);
    const revision = {
      revision: 2,
      state: 'SUCCEEDED',
      findability: null,
      published: true,
      created: 'c',
      modified: 'm',
      changes: null,
    };
    expect(isRevisionEntry(revision)).toBe(true);
    expect(isRevisionEntry({ ...revision, revision: '2' })).toBe(false);
  });
});
