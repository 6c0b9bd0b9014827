import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { HubParts } from '../../parts.js';
import { STEP_RUNNERS, StepFailure, type Work } from './pipeline.js';
import type { FlowSpec } from '@data/core';
import { STEPS, flowId, initialPipelines, type StepId } from './steps.js';
import type { PipelineStatus, Revision } from '../../engines/metadata/types.js';
import type { LogFields } from '../../logger.js';
import type { TableViewer } from '../viewer/engine.js';

export interface RunnerHooks {
  /** Awaited before each step (the step then runs unless the runner stopped meanwhile). */
  beforeStep?: (step: StepId, revision: number) => Promise<void> | void;
  /** Called after each step; returning 'halt' stops the runner there, as a crash would. */
  afterStep?: (step: StepId, revision: number) => 'halt' | undefined;
}

class Halted extends Error {}

/** What a revision's log lines carry: which revision, and the request that queued it. */
function revisionFields(revision: Revision): LogFields {
  return {
    revision: flowId(revision),
    ...(revision.request_id ? { requestId: revision.request_id } : {}),
  };
}

/** Whether a claimed revision had begun under another lease: it is being taken over. */
function wasStarted(revision: Revision): boolean {
  const steps = JSON.parse(revision.pipelines) as Record<string, { status?: string }>;
  return Object.values(steps).some((step) => step.status !== 'QUEUED');
}

/** Why a revision's work was stopped: it ran past limits.processingSeconds. */
class TimeLimit extends Error {
  constructor(readonly seconds: number) {
    super(`processing took longer than the ${String(seconds)} s this hub allows`);
  }
}

type Outcome = Partial<Pick<Revision, 'state' | 'error_log'>>;

export interface RunnerOptions {
  /** How long a claimed revision stays this worker's without a renewal. */
  leaseMs?: number;
  /** How often an idle worker looks for revisions queued through other processes. */
  pollMs?: number;
  /** Revisions processed at once. */
  slots?: number;
}

/**
 * Processes revisions queued in the metadata database, by any hub process sharing it. Each
 * revision is claimed under a lease that is renewed while it is processed; a revision whose
 * worker stopped or died is taken over, from its first step, when the lease runs out.
 */
export class Runner {
  private readonly worker = `${hostname()}:${String(process.pid)}:${randomBytes(4).toString('hex')}`;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly slots: number;
  private halted = false;
  private stopping = false;
  private active = 0;
  /** The work in progress, stopped when the runner stops. */
  private readonly running = new Set<AbortController>();
  private loops: Promise<void>[] = [];
  /** Change summaries being made, after their revision was published. */
  private readonly summaries = new Set<Promise<void>>();
  private wake: (() => void)[] = [];

  constructor(
    private readonly hub: Pick<
      HubParts,
      'log' | 'metrics' | 'options' | 'storage' | 'store' | 'tmpDir'
    > & {
      /** The table viewer, whose column statistics a published revision gets. */
      readonly viewer?: TableViewer;
    },
    private readonly hooks: RunnerHooks = {},
    options: RunnerOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 30_000;
    this.pollMs = options.pollMs ?? 1000;
    this.slots = options.slots ?? 2;
  }

  /** A revision was queued here: an idle worker looks at once. */
  enqueue(): void {
    for (const wake of this.wake.splice(0)) wake();
  }

  /** Starts the workers; revisions left unfinished are among what they find. */
  start(): void {
    this.loops = Array.from({ length: this.slots }, () => this.loop());
  }

  /** Resolves once this runner has nothing in progress and nothing it could take. */
  async idle(): Promise<void> {
    for (;;) {
      if (
        this.halted ||
        (this.active === 0 && this.summaries.size === 0 && !(await this.hub.store.hasWaiting()))
      )
        return;
      this.enqueue();
      await delay(20);
    }
  }

  /**
   * Takes no more revisions and stops those in progress (a validation's worker is ended):
   * they stay in progress, their leases handed back, so that another process takes them
   * over at once, from their first step.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const controller of this.running) controller.abort(new Halted());
    this.enqueue();
    await Promise.all([...this.loops, ...this.summaries]);
  }

  private async loop(): Promise<void> {
    while (!this.halted && !this.stopping) {
      const revision = await this.hub.store
        .claimRevision(this.worker, Date.now() + this.leaseMs)
        .catch((error: unknown) => {
          this.hub.log(`the pipeline could not take a revision: ${String(error)}`);
          return undefined;
        });
      if (!revision) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.pollMs);
          this.wake.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
        continue;
      }
      this.active++;
      if (wasStarted(revision)) this.hub.metrics.leaseTakenOver();
      try {
        await this.process(revision);
      } catch {
        // Halted, or the store failed: the lease runs out and the revision is taken again.
      } finally {
        this.active--;
      }
    }
  }

  private async process(revision: Revision): Promise<void> {
    const store = this.hub.store;
    const lease = { lost: false };
    let renewing: Promise<unknown> = Promise.resolve();
    const renewal = setInterval(() => {
      renewing = store
        .renewLease(revision, this.worker, Date.now() + this.leaseMs)
        .then((held) => {
          if (!held) lease.lost = true;
        })
        .catch(() => undefined);
    }, this.leaseMs / 3);
    const pipelines = initialPipelines();
    const controller = new AbortController();
    const seconds = this.hub.options.limits.processingSeconds;
    const limit = setTimeout(() => controller.abort(new TimeLimit(seconds)), seconds * 1000);
    this.running.add(controller);
    const save = async (
      changes: Partial<Pick<Revision, 'state' | 'error_log'>> = {},
    ): Promise<void> => {
      if (lease.lost) throw new Halted();
      await store.updateRevision(revision, { ...changes, pipelines: JSON.stringify(pipelines) });
    };
    const work: Work = {
      hub: this.hub,
      ownerid: revision.ownerid,
      dataset: revision.dataset,
      revision: revision.revision,
      spec: JSON.parse(revision.spec) as FlowSpec,
      workDir: join(this.hub.tmpDir, 'work', randomBytes(12).toString('hex')),
      descriptor: { resources: [] },
      files: {},
      signal: controller.signal,
      logFields: revisionFields(revision),
    };
    let outcome: Outcome | undefined;
    try {
      await save({ state: 'INPROGRESS' });
      outcome = await this.runSteps(work, pipelines, save);
    } catch (error) {
      // Stopped (not halted as a crash would): the lease goes back at once.
      if (this.stopping && !this.halted) {
        clearInterval(renewal);
        await renewing;
        await store.renewLease(revision, this.worker, 0).catch(() => false);
      }
      throw error;
    } finally {
      clearInterval(renewal);
      clearTimeout(limit);
      this.running.delete(controller);
      await rm(work.workDir, { recursive: true, force: true });
      await rm(`${work.workDir}.derived`, { recursive: true, force: true });
    }
    // Said to be finished only once its work folder is gone.
    if (outcome) await save(outcome);
    const state = outcome?.state;
    if (state !== 'SUCCEEDED' && state !== 'FAILED') return;
    this.hub.metrics.revision(state);
    this.hub.log(`revision ${state.toLowerCase()}`, { level: 'info', ...work.logFields });
    if (state === 'SUCCEEDED') {
      // Off the path of the publication, which the publisher waits for: what the revision
      // changed since the one published before, and the column statistics of each table
      // (the table viewer's).
      this.afterPublication(
        revision,
        'the changes of the revision could not be summed up',
        (signal) =>
          import('./change-summaries.js').then((module) =>
            module.summarizeRevision(this.hub, revision, signal),
          ),
      );
      const viewer = this.hub.viewer;
      if (viewer)
        this.afterPublication(
          revision,
          'the column statistics of the revision could not be computed',
          (signal) =>
            import('../viewer/stats.js').then((module) =>
              module.keepStats({ ...this.hub, viewer }, revision, signal),
            ),
        );
    }
  }

  /** Work on a published revision in the background, stopped with the runner; its failure logged. */
  private afterPublication(
    revision: Revision,
    failure: string,
    work: (signal: AbortSignal) => Promise<void>,
  ): void {
    const controller = new AbortController();
    this.running.add(controller);
    const task = work(controller.signal)
      .catch((error: unknown) => {
        if (!controller.signal.aborted)
          this.hub.log(
            `${failure}: ${error instanceof Error ? error.message : String(error)}`,
            revisionFields(revision),
          );
      })
      .finally(() => {
        this.running.delete(controller);
        this.summaries.delete(task);
      });
    this.summaries.add(task);
  }

  /** What a failed step tells the user: its own words, or a plain reason with no internals. */
  private failureLog(
    step: string,
    error: unknown,
    signal: AbortSignal,
    fields: LogFields,
  ): string[] {
    if (signal.reason instanceof TimeLimit)
      return [
        `${signal.reason.message}; publish it in smaller packages, or ask the hub's operator`,
      ];
    if (error instanceof StepFailure) return error.log;
    if ((error as NodeJS.ErrnoException).code === 'ENOSPC')
      return ['the hub has run out of storage space; try again later'];
    this.hub.log(
      `pipeline step "${step}" failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      fields,
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
      const started = performance.now();
      const took = () => (performance.now() - started) / 1000;
      try {
        await this.hooks.beforeStep?.(step.id, number);
        work.signal.throwIfAborted();
        status.stats = await STEP_RUNNERS[step.id](work);
        work.signal.throwIfAborted();
        status.status = 'SUCCEEDED';
        this.hub.metrics.step(step.id, 'SUCCEEDED', took());
        this.hub.log(`step ${step.id} succeeded`, { level: 'info', ...work.logFields });
      } catch (error) {
        if (work.signal.reason instanceof Halted) throw work.signal.reason;
        this.hub.metrics.step(step.id, 'FAILED', took());
        status.status = 'FAILED';
        status.error_log = this.failureLog(step.id, error, work.signal, work.logFields);
        this.hub.log(`step ${step.id} failed`, { level: 'info', ...work.logFields });
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
