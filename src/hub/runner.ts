import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Hub } from './context.js';
import { STEP_RUNNERS, StepFailure, type Work } from './pipeline.js';
import type { FlowSpec } from './pipeline-store.js';
import { STEPS, initialPipelines, type StepId } from './steps.js';
import type { PipelineStatus, Revision } from './metadata/types.js';

export interface RunnerHooks {
  /** Called after each step; returning 'halt' stops the runner there, as a crash would. */
  afterStep?: (step: StepId, revision: number) => 'halt' | undefined;
}

class Halted extends Error {}

type Outcome = Partial<Pick<Revision, 'state' | 'error_log'>>;

/**
 * Processes revisions in the hub's process: one at a time per dataset, in order.
 * A revision left unfinished by a stopped hub is processed again from its first step.
 */
export class Runner {
  private readonly chains = new Map<string, Promise<void>>();
  private halted = false;

  constructor(
    private readonly hub: Hub,
    private readonly hooks: RunnerHooks = {},
  ) {}

  enqueue(ownerid: string, dataset: string, revision: number): void {
    const key = `${ownerid}/${dataset}`;
    const previous = this.chains.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => this.process(ownerid, dataset, revision))
      .catch(() => undefined);
    this.chains.set(key, next);
  }

  async resumeUnfinished(): Promise<void> {
    for (const revision of await this.hub.store.unfinished())
      this.enqueue(revision.ownerid, revision.dataset, revision.revision);
  }

  async idle(): Promise<void> {
    while (this.chains.size > 0) {
      const pending = [...this.chains.entries()];
      await Promise.all(pending.map(([, chain]) => chain));
      for (const [key, chain] of pending)
        if (this.chains.get(key) === chain) this.chains.delete(key);
    }
  }

  stop(): void {
    this.halted = true;
  }

  private async process(ownerid: string, dataset: string, number: number): Promise<void> {
    if (this.halted) return;
    const store = this.hub.store;
    const revision = await store.revision(ownerid, dataset, String(number));
    if (!revision || revision.state === 'SUCCEEDED' || revision.state === 'FAILED') return;
    const pipelines = initialPipelines();
    const save = async (
      changes: Partial<Pick<Revision, 'state' | 'error_log'>> = {},
    ): Promise<void> =>
      await store.updateRevision(revision, { ...changes, pipelines: JSON.stringify(pipelines) });
    await save({ state: 'INPROGRESS' });
    const work: Work = {
      hub: this.hub,
      ownerid,
      dataset,
      revision: number,
      spec: JSON.parse(revision.spec) as FlowSpec,
      workDir: join(this.hub.tmpDir, 'work', randomBytes(12).toString('hex')),
      descriptor: {},
      files: {},
    };
    let outcome: Outcome | undefined;
    try {
      outcome = await this.runSteps(work, pipelines, save);
    } finally {
      await rm(work.workDir, { recursive: true, force: true });
      await rm(`${work.workDir}.out`, { recursive: true, force: true });
    }
    // Said to be finished only once its work folder is gone.
    if (outcome) await save(outcome);
  }

  /** What a failed step tells the user: its own words, or a plain reason with no internals. */
  private failureLog(step: string, error: unknown): string[] {
    if (error instanceof StepFailure) return error.log;
    if ((error as NodeJS.ErrnoException).code === 'ENOSPC')
      return ['the hub has run out of storage space; try again later'];
    this.hub.log(
      `pipeline step "${step}" failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    return ['an internal error of the hub stopped this step; its operator can see the details'];
  }

  /** Runs the steps; the final state to save, or undefined when the runner stopped. */
  private async runSteps(
    work: Work,
    pipelines: Record<StepId, PipelineStatus>,
    save: (changes?: Partial<Pick<Revision, 'state' | 'error_log'>>) => Promise<void>,
  ): Promise<Outcome | undefined> {
    const store = this.hub.store;
    const revision = work;
    const number = work.revision;
    for (const step of STEPS) {
      const status: PipelineStatus = pipelines[step.id];
      status.status = 'INPROGRESS';
      await save();
      try {
        status.stats = await STEP_RUNNERS[step.id](work);
        status.status = 'SUCCEEDED';
      } catch (error) {
        status.status = 'FAILED';
        status.error_log = this.failureLog(step.id, error);
        for (const later of STEPS.slice(STEPS.indexOf(step) + 1))
          pipelines[later.id].status = 'SKIPPED';
        await store.updateRevision(revision, {
          report: work.report ? JSON.stringify(work.report) : null,
        });
        return {
          state: 'FAILED',
          error_log: JSON.stringify([`${step.title} failed`, ...status.error_log]),
        };
      }
      if (step.id === 'validate' && work.report)
        await store.updateRevision(revision, { report: JSON.stringify(work.report) });
      await save();
      if (this.hooks.afterStep?.(step.id, number) === 'halt') {
        this.halted = true;
        throw new Halted();
      }
      if (this.halted) return undefined;
    }
    return { state: 'SUCCEEDED' };
  }
}
