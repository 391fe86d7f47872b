import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { codeVersion } from './code-version.js';
import type { PidSource } from './cpu.js';
import { measureReads, readSpecs } from './reads-cases.js';
import { EVENT_NAMES, MID_EVENT, SEED_APPS, SEED_DAYS, midCustomer, seedEvents, type SeedApp } from './reads-data.js';
import type { MachineInfo, ReadCase, ReadsResult, ReadsTarget } from './results.js';
import type { StackAddresses } from './stack.js';
import { createApp, startDistributed, startEmbedded, type ServiceSettings, type Target } from './targets.js';

/**
 * Reads at scale (`npm run bench -- --only reads`): the event read API over 19 million stored events,
 * 10 million of them in one app, in distributed mode (api + worker, ClickHouse 18.16 server) and in
 * embedded mode (chDB). For each mode:
 *
 * 1. start the service and make the apps through the management API (the read API answers 404 for
 *    an app it does not know);
 * 2. write the events straight into its events table and compact the past days with the store's own
 *    upkeep (bench/reads-data.ts). Embedded mode's chDB allows one data directory per process and the
 *    service holds it, so there the service is stopped first and started again on the same directory;
 * 3. time each read request on its own, over HTTP (bench/reads-cases.ts);
 * 4. stop the service and remove its databases (distributed) or its data directory (embedded).
 *
 * Each mode takes about four minutes on the 2-core machine, most of it seeding and compacting.
 */

export interface ReadsBenchOptions {
  readonly stack: StackAddresses;
  readonly settings: ServiceSettings;
  readonly machine: MachineInfo;
  /** The command line of the run, for the report. */
  readonly command: string;
  readonly log: (message: string) => void;
  /** Runs `body` with `resource`, stopping it afterwards and on Ctrl-C (bench/run.ts). */
  readonly withCleanup: <T extends { stop(): Promise<void> }, R>(resource: T, body: (r: T) => Promise<R>) => Promise<R>;
  /** Resolves once every stack service answers (another test run may have one stopped). */
  readonly waitForStack: () => Promise<void>;
  /** The process groups whose CPU time a target's measurements account (bench/run.ts). */
  readonly cpuGroups: (target: Target) => Record<string, PidSource>;
  /**
   * Notes the stack's servers now; the function it returns adds a problem if Kafka or ClickHouse
   * was restarted since (another test run's outage test), which makes the figures between untrustworthy.
   */
  readonly watchRestarts: (label: string, problems: string[]) => () => void;
}

/**
 * The retention a deployment runs with (the default, 90 days): every read adds its bound, as in
 * production. The suites' service helper otherwise keeps everything.
 */
const RETENTION_ENV = { EVENT_RETENTION_DAYS: '90' };

const DISTRIBUTED = 'distributed (api + worker)';
const EMBEDDED = 'embedded';

export async function benchReads(o: ReadsBenchOptions): Promise<ReadsResult> {
  const startedAt = new Date();
  const loadStart = os.loadavg();
  const codeStart = await codeVersion();
  const problems: string[] = [];
  const settings: ServiceSettings = { ...o.settings, extraEnv: { ...o.settings.extraEnv, ...RETENTION_ENV } };
  const log = (message: string): void => o.log(`reads: ${message}`);
  const targets: ReadsTarget[] = [];
  // One mode failing (a stack service gone, a start-up error) leaves the other's figures standing.
  const attempt = async (label: string, measure: () => Promise<ReadsTarget>): Promise<void> => {
    try {
      targets.push(await measure());
    } catch (err) {
      problems.push(`reads, ${label}: not measured: ${err instanceof Error ? err.message : String(err)}`);
      log(problems.at(-1)!);
    }
  };

  await attempt(DISTRIBUTED, async () => {
    await o.waitForStack();
    log(`${DISTRIBUTED}: starting the service`);
    return o.withCleanup(await startDistributed(o.stack, 'split', settings), async (target) => {
      const apps = await createApps(target);
      const seeding = await seedEvents(storeOf(target), apps, log);
      return { label: DISTRIBUTED, kind: 'distributed', engine: `ClickHouse ${o.machine.versions.clickhouse ?? 'unknown'}`, seeding, cases: await measure(target, apps, o, problems) };
    });
  });

  await attempt(EMBEDDED, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'eas-bench-reads-'));
    const directory = { stop: () => Promise.resolve(rmSync(dataDir, { recursive: true, force: true })) };
    return o.withCleanup(directory, async () => {
      const onDir: ServiceSettings = { ...settings, dataDir };
      log(`${EMBEDDED}: starting the service to make the apps`);
      const { apps, store } = await o.withCleanup(await startEmbedded(onDir), async (target) => ({ apps: await createApps(target), store: storeOf(target) }));
      const seeding = await seedEvents(store, apps, log);
      log(`${EMBEDDED}: starting the service again on the seeded directory`);
      const cases = await o.withCleanup(await startEmbedded(onDir), (target) => measure(target, apps, o, problems));
      return { label: EMBEDDED, kind: 'embedded', engine: `chDB ${o.machine.versions.chdb ?? 'unknown'}`, seeding, cases };
    });
  });

  return {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    command: o.command,
    code: { start: codeStart, end: await codeVersion() },
    machine: o.machine,
    loadAverage: { start: loadStart, end: os.loadavg() },
    dataset: { apps: SEED_APPS, days: SEED_DAYS, eventNames: EVENT_NAMES.length, type: MID_EVENT, customer: midCustomer(SEED_APPS[0]!) },
    targets,
    problems,
  };
}

function storeOf(target: Target): NonNullable<Target['eventStore']> {
  if (!target.eventStore) throw new Error('the target has no event store to seed');
  return target.eventStore;
}

function secretOf(target: Target): string {
  if (!target.reader) throw new Error('the reads benchmark needs a target with a read API');
  return target.reader.clientSecret;
}

/** The apps of SEED_APPS, made through the management API as a user would. */
async function createApps(target: Target): Promise<SeedApp[]> {
  const apps: SeedApp[] = [];
  for (const [i, size] of SEED_APPS.entries()) {
    const { appId } = await createApp(target.url, secretOf(target), `Reads ${i + 1}: ${size.events / 1_000_000} M events`);
    apps.push({ id: appId, ...size });
  }
  return apps;
}

async function measure(target: Target, apps: readonly SeedApp[], o: ReadsBenchOptions, problems: string[]): Promise<ReadCase[]> {
  const label = target.clickhouseUrl ? DISTRIBUTED : EMBEDDED;
  const restarted = o.watchRestarts(`reads (${label})`, problems);
  const now = Date.now();
  const run = {
    url: target.url,
    clientSecret: secretOf(target),
    appIds: { large: apps[0]!.id, small: apps[1]!.id },
    clickhouseUrl: target.clickhouseUrl,
    cpuGroups: o.cpuGroups(target),
    log: (message: string) => o.log(`reads, ${label}: ${message}`),
  };
  const cases = await measureReads(run, readSpecs(now, apps[0]!), now);
  restarted();
  return cases;
}
