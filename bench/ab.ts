import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { positiveWhole } from './cli-options.js';
import { CpuSampler } from './cpu.js';
import { SHAPES, type RequestShape } from './events.js';
import { runLoad } from './load.js';
import { stackUp } from './stack.js';
import type { ServiceEntry } from '../test/helpers/service-process.js';
import { startDistributed, startEmbedded, type ServiceSettings, type Target } from './targets.js';

/**
 * `npm run bench:ab -- --against REF`: this checkout's service (its working tree, edits included)
 * against the service of commit REF, both built and running at once, driven in short bursts taken
 * turn about, in two sessions that start the two in either order. On a shared two-core machine whose speed moves by half between runs minutes apart
 * (bench/NOTES.md), two whole benchmark runs cannot show a difference of a few per cent; bursts
 * alternating between two services that are up together meet the same machine within seconds of each
 * other, so their pairs can. What it reports per round and as medians: requests/s, and the CPU time
 * the edge process (the api, or the embedded process) spent per request, read from /proc.
 *
 * REF is checked out into a temporary git worktree that uses this checkout's node_modules (so a
 * commit whose dependencies differ is measured with these) and removed at the end. Prints its
 * figures; writes them as JSON with --json. Options (after `npm run bench:ab --`):
 *   --against REF       the commit to compare with (HEAD)
 *   --mode M            distributed (api + worker, on the local stack) or embedded (distributed)
 *   --shape S           single or batch (single)
 *   --connections N     requests in flight (64)
 *   --rounds N          bursts for each service in each of the two sessions (10)
 *   --seconds S         length of each burst (2)
 *   --base-entry E      built, or source: the base runs src/main.ts through tsx, as the benchmark ran
 *                       the service before it measured the build (built)
 *   --json PATH         also write the figures there
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

const { values: options } = parseArgs({
  options: {
    against: { type: 'string', default: 'HEAD' },
    mode: { type: 'string', default: 'distributed' },
    shape: { type: 'string', default: 'single' },
    connections: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '2' },
    'base-entry': { type: 'string', default: 'built' },
    json: { type: 'string' },
  },
  strict: true,
});

if (options.mode !== 'distributed' && options.mode !== 'embedded') throw new Error(`--mode: expected distributed or embedded, got ${JSON.stringify(options.mode)}`);
if (!(SHAPES as readonly string[]).includes(options.shape)) throw new Error(`--shape: expected ${SHAPES.join(' or ')}, got ${JSON.stringify(options.shape)}`);
const MODE = options.mode;
const SHAPE = options.shape as RequestShape;
const CONNECTIONS = positiveWhole('connections', options.connections);
const ROUNDS = positiveWhole('rounds', options.rounds);
const SECONDS = positiveWhole('seconds', options.seconds);
if (options['base-entry'] !== 'built' && options['base-entry'] !== 'source') throw new Error(`--base-entry: expected built or source, got ${JSON.stringify(options['base-entry'])}`);
const BASE_ENTRY: ServiceEntry = options['base-entry'];
const WARMUP_SECONDS = 3;

interface Burst {
  readonly requestsPerSecond: number;
  /** CPU time of the edge process per request, in microseconds. */
  readonly cpuMicrosPerRequest: number;
}

const SIDES = ['base', 'change'] as const;
type Side = (typeof SIDES)[number];

function log(message: string): void {
  process.stdout.write(`[ab] ${message}\n`);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function mediansOf(bursts: readonly Burst[]): Burst {
  return {
    requestsPerSecond: Math.round(median(bursts.map((b) => b.requestsPerSecond))),
    cpuMicrosPerRequest: Math.round(median(bursts.map((b) => b.cpuMicrosPerRequest))),
  };
}

/** The process whose CPU a request costs: the api of the split layout, or the one embedded process. */
function edgePid(target: Target): number {
  const pid = target.pids.api ?? target.pids.service;
  if (pid === undefined) throw new Error(`no edge process among ${Object.keys(target.pids).join(', ')}`);
  return pid;
}

async function burst(target: Target, seconds: number): Promise<Burst> {
  const pid = edgePid(target);
  const sampler = new CpuSampler({ edge: () => [pid] });
  sampler.start();
  const outcome = await runLoad({ url: target.url, apiKey: target.apiKey, shape: SHAPE, connections: CONNECTIONS, durationSeconds: seconds });
  const cpu = sampler.stop();
  if (outcome.non202Total > 0) throw new Error(`${outcome.non202Total} answers other than 202: ${JSON.stringify(outcome.non202)}`);
  return { requestsPerSecond: outcome.requestsPerSecond, cpuMicrosPerRequest: ((cpu.cores.edge ?? 0) * 1e6) / outcome.requestsPerSecond };
}

async function main(): Promise<void> {
  const commit = (await run('git', ['rev-parse', '--short=12', options.against], { cwd: ROOT })).stdout.trim();
  const tree = mkdtempSync(path.join(tmpdir(), 'eas-ab-'));
  let checkedOut = false;
  try {
    log(`checking out ${commit} into ${tree}`);
    await run('git', ['worktree', 'add', '--detach', tree, commit], { cwd: ROOT });
    checkedOut = true;
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules'));
    const stack = MODE === 'distributed' ? await stackUp() : null;
    const roots: Record<Side, string> = { base: tree, change: ROOT };
    const bursts: Record<Side, Burst[]> = { base: [], change: [] };
    // Two sessions, the second starting the services in the other order: the process started second
    // measured 15-20 % less CPU per request than the first with the same code on both sides (an A/A
    // run, bench/NOTES.md), so each side is started first once and the pairs of both are pooled.
    for (const startOrder of [SIDES, [...SIDES].reverse()]) {
      const targets = {} as Record<Side, Target>;
      const stops: Array<() => Promise<void>> = [];
      try {
        for (const side of startOrder) {
          log(`building and starting the ${side} (${side === 'base' ? commit : 'this working tree'})`);
          const settings: ServiceSettings = { root: roots[side], entry: side === 'base' ? BASE_ENTRY : 'built' };
          const target = stack ? await startDistributed(stack, 'split', settings) : await startEmbedded(settings);
          targets[side] = target;
          stops.push(() => target.stop());
        }
        for (const side of SIDES) await burst(targets[side], WARMUP_SECONDS);
        for (let round = 0; round < ROUNDS; round++) {
          const order = round % 2 === 0 ? SIDES : [...SIDES].reverse();
          for (const side of order) bursts[side].push(await burst(targets[side], SECONDS));
          const [b, c] = [bursts.base.at(-1)!, bursts.change.at(-1)!];
          log(`round ${round + 1}: base ${Math.round(b.requestsPerSecond)} req/s ${Math.round(b.cpuMicrosPerRequest)} µs · change ${Math.round(c.requestsPerSecond)} req/s ${Math.round(c.cpuMicrosPerRequest)} µs`);
        }
      } finally {
        for (const stop of stops.reverse()) await stop();
      }
    }

    const cheaperRounds = bursts.change.filter((c, i) => c.cpuMicrosPerRequest < bursts.base[i]!.cpuMicrosPerRequest).length;
    const ratios = bursts.change.map((c, i) => c.cpuMicrosPerRequest / bursts.base[i]!.cpuMicrosPerRequest);
    const summary = {
      against: commit,
      baseEntry: BASE_ENTRY,
      mode: MODE,
      shape: SHAPE,
      connections: CONNECTIONS,
      rounds: bursts.change.length,
      seconds: SECONDS,
      medians: { base: mediansOf(bursts.base), change: mediansOf(bursts.change) },
      changeCheaperInRounds: cheaperRounds,
      medianCpuRatio: Number(median(ratios).toFixed(3)),
      bursts,
    };
    log(
      `medians: base ${summary.medians.base.requestsPerSecond} req/s ${summary.medians.base.cpuMicrosPerRequest} µs per request; ` +
        `change ${summary.medians.change.requestsPerSecond} req/s ${summary.medians.change.cpuMicrosPerRequest} µs per request`,
    );
    log(`the change spent less CPU per request in ${cheaperRounds} of ${bursts.change.length} rounds; median ratio of the pairs ${summary.medianCpuRatio}`);
    if (options.json) writeFileSync(options.json, `${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    if (checkedOut) await run('git', ['worktree', 'remove', '--force', tree], { cwd: ROOT }).catch((err: unknown) => log(`removing the worktree failed: ${String(err)}`));
    rmSync(tree, { recursive: true, force: true });
  }
}

await main();
