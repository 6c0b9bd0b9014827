import { describe, expect, it } from 'vitest';
import { isFlowStatus } from '../../packages/core/src/protocol/guards.js';
import { initialPipelines, statusOf } from '../../packages/hub/src/services/pipeline/steps.js';

describe('the hub’s status document', () => {
  it('is the protocol’s FlowStatus, as the client’s guard reads it', () => {
    const status = statusOf({
      ownerid: 'u1',
      dataset: 'prices',
      revision: 2,
      state: 'QUEUED',
      spec: '{}',
      pipelines: JSON.stringify(initialPipelines()),
      error_log: '[]',
      descriptor: null,
      report: null,
      created: '2026-01-01T00:00:00Z',
      modified: '2026-01-01T00:00:00Z',
      findability: null,
      files: null,
      changes: null,
      request_id: null,
      stats: null,
    });
    expect(status.id).toBe('u1/prices/2');
    expect(Object.keys(status.pipelines)[0]).toBe('u1/prices/2/load');
    expect(isFlowStatus(status)).toBe(true);
  });
});
