import type { FlowStatus } from '@data/core';
import type { PipelineStatus, Revision } from '../../engines/metadata/types.js';

/** The identity pipeline: each step is one entry of a revision's status. */
export const STEPS = [
  { id: 'load', title: 'Load from the raw store' },
  { id: 'encoding', title: 'Check the encoding' },
  { id: 'csv-kind', title: 'Check the CSV kind' },
  { id: 'validate', title: 'Validate the data' },
  { id: 'dump', title: 'Dump to package storage' },
  { id: 'register', title: 'Register in the package store' },
] as const;

export type StepId = (typeof STEPS)[number]['id'];

export function initialPipelines(): Record<StepId, PipelineStatus> {
  const entries = STEPS.map((step): [StepId, PipelineStatus] => [
    step.id,
    { title: step.title, status: 'QUEUED', stats: {}, error_log: [] },
  ]);
  return Object.fromEntries(entries) as Record<StepId, PipelineStatus>;
}

export function flowId(revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>): string {
  return `${revision.ownerid}/${revision.dataset}/${String(revision.revision)}`;
}

/** The status document of the protocol (core's FlowStatus) for one revision, with its number. */
export function statusOf(revision: Revision): FlowStatus & { revision: number } {
  const id = flowId(revision);
  const pipelines = JSON.parse(revision.pipelines) as Record<string, PipelineStatus>;
  return {
    id,
    state: revision.state,
    pipelines: Object.fromEntries(
      Object.entries(pipelines).map(([step, value]) => [`${id}/${step}`, value]),
    ),
    error_log: JSON.parse(revision.error_log) as string[],
    stats: revision.report
      ? { validation: (JSON.parse(revision.report) as { stats: unknown }).stats }
      : {},
    modified: revision.modified,
    revision: revision.revision,
  };
}
