/**
 * The hub's Prometheus metrics, every name prefixed `data_hub_`, on a registry of each hub's
 * own (several hubs may run in one process). Requests are labelled by route template, never
 * by their path: no owner or dataset name reaches a label. What the database knows (the
 * queue, the bytes stored) is read when Prometheus scrapes.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Metadata } from './engines/metadata/types.js';

const PREFIX = 'data_hub_';

export type SignInOutcome = 'success' | 'failure';

/** A read shared by every caller while it runs: the gauges of one scrape are collected together. */
function oncePerScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  return () =>
    (running ??= read().finally(() => {
      running = undefined;
    }));
}

export class HubMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: `${PREFIX}http_requests_total`,
    help: 'HTTP requests answered, by route template, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'Time to answer an HTTP request, by route template and method',
    labelNames: ['route', 'method'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly received = new Counter({
    name: `${PREFIX}http_received_bytes_total`,
    help: 'Bytes of request bodies received',
    registers: [this.registry],
  });
  private readonly sent = new Counter({
    name: `${PREFIX}http_sent_bytes_total`,
    help: 'Bytes of responses sent',
    registers: [this.registry],
  });
  private readonly revisions = new Counter({
    name: `${PREFIX}revisions_total`,
    help: 'Revisions this process finished, by final state',
    labelNames: ['state'] as const,
    registers: [this.registry],
  });
  private readonly steps = new Histogram({
    name: `${PREFIX}pipeline_step_duration_seconds`,
    help: 'Time each pipeline step took, by step and outcome',
    labelNames: ['step', 'outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  private readonly takenOver = new Counter({
    name: `${PREFIX}leases_taken_over_total`,
    help: 'Revisions this process took over from a process that stopped or died',
    registers: [this.registry],
  });
  private readonly signIns = new Counter({
    name: `${PREFIX}sign_ins_total`,
    help: 'Sign-ins, by provider and outcome',
    labelNames: ['provider', 'outcome'] as const,
    registers: [this.registry],
  });

  constructor(store: Metadata) {
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
    const registers = [this.registry];
    // Two gauges read each of these: one query each per scrape, not one per gauge.
    const queue = oncePerScrape(() => store.queue());
    const usage = oncePerScrape(() => Promise.all([store.objectUsage(), store.cacheUsage()]));
    new Gauge({
      name: `${PREFIX}queue_depth`,
      help: 'Revisions waiting to be processed or in progress, on every process',
      registers,
      async collect() {
        this.set((await queue()).depth);
      },
    });
    new Gauge({
      name: `${PREFIX}queue_oldest_age_seconds`,
      help: 'Age of the oldest revision waiting or in progress (0 when none)',
      registers,
      async collect() {
        const { oldest } = await queue();
        this.set(oldest === undefined ? 0 : Math.max(0, (Date.now() - oldest) / 1000));
      },
    });
    new Gauge({
      name: `${PREFIX}stored_bytes`,
      help: 'Bytes stored, by kind: originals (uploaded files) and cache (derived copies kept)',
      labelNames: ['kind'] as const,
      registers,
      async collect() {
        const [objects, cache] = await usage();
        this.set({ kind: 'originals' }, objects.bytes);
        this.set({ kind: 'cache' }, cache.bytes);
      },
    });
    new Gauge({
      name: `${PREFIX}stored_objects`,
      help: 'Objects stored, by kind: originals (uploaded files) and cache (derived copies kept)',
      labelNames: ['kind'] as const,
      registers,
      async collect() {
        const [objects, cache] = await usage();
        this.set({ kind: 'originals' }, objects.objects);
        this.set({ kind: 'cache' }, cache.copies);
      },
    });
  }

  request(route: string, method: string, status: number, seconds: number): void {
    this.requests.inc({ route, method, status: String(status) });
    this.latency.observe({ route, method }, seconds);
  }

  bytes(received: number, sent: number): void {
    if (received > 0) this.received.inc(received);
    if (sent > 0) this.sent.inc(sent);
  }

  revision(state: 'SUCCEEDED' | 'FAILED'): void {
    this.revisions.inc({ state });
  }

  step(step: string, outcome: 'SUCCEEDED' | 'FAILED', seconds: number): void {
    this.steps.observe({ step, outcome }, seconds);
  }

  leaseTakenOver(): void {
    this.takenOver.inc();
  }

  signIn(provider: string, outcome: SignInOutcome): void {
    this.signIns.inc({ provider, outcome });
  }
}
