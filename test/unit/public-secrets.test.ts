import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PUBLIC_CLIENT_SECRETS, loadConfig } from '../../src/config.js';
import { generateClientSecret } from '../../src/domain/credentials.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DISTRIBUTED = { KAFKA_BROKERS: 'kafka:9092', CLICKHOUSE_URL: 'http://clickhouse:8123', REDIS_URL: 'redis://redis:6379', DATABASE_URL: 'postgres://db/eas' };
/** What the config accepts as a client secret, anywhere in a file. */
const SECRET_SHAPED = /svc_cs_[A-Za-z0-9_-]{32,}/g;

/** Every client-secret-shaped value in the files git tracks (and the ones about to be committed). */
function secretsInProjectFiles(): Map<string, string[]> {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
  const found = new Map<string, string[]>();
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(`${ROOT}/${file}`, 'utf8');
    } catch {
      continue; // deleted in the working tree
    }
    for (const [value] of text.matchAll(SECRET_SHAPED)) found.set(value, [...(found.get(value) ?? []), file]);
  }
  return found;
}

describe('client secrets published in the project', () => {
  it('are every one listed as public, so that none can become a running service secret', () => {
    const found = secretsInProjectFiles();
    // The list itself is in src/config.ts: the scan finds each of its values there at least.
    expect(found.size).toBeGreaterThanOrEqual(PUBLIC_CLIENT_SECRETS.size);
    const unlisted = [...found].filter(([value]) => !PUBLIC_CLIENT_SECRETS.has(value)).map(([value, files]) => `${value} in ${files.join(', ')}`);
    expect(unlisted).toEqual([]);
  });

  it('are refused as BOOTSTRAP_CLIENT_SECRET in distributed mode, naming the variable', () => {
    for (const secret of PUBLIC_CLIENT_SECRETS) {
      expect(() => loadConfig({ ...DISTRIBUTED, BOOTSTRAP_CLIENT_SECRET: secret })).toThrow(/BOOTSTRAP_CLIENT_SECRET: this value is published in the project's own files/);
    }
    expect(loadConfig({ ...DISTRIBUTED, BOOTSTRAP_CLIENT_SECRET: generateClientSecret() }).mode).toBe('distributed');
  });

  it('are still taken in embedded mode, which serves a developer on their own machine', () => {
    const [example] = PUBLIC_CLIENT_SECRETS;
    expect(loadConfig({ BOOTSTRAP_CLIENT_SECRET: example }).bootstrap.clientSecret).toBe(example);
  });
});
