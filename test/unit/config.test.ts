import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { RETRY_SCHEDULE_MS } from '../../src/domain/retry-schedule.js';

const DISTRIBUTED = {
  KAFKA_BROKERS: 'k1:9092,k2:9092',
  CLICKHOUSE_URL: 'http://clickhouse:8123',
  REDIS_URL: 'redis://redis:6379',
  DATABASE_URL: 'postgres://eas@postgres:5432/eas',
};

/** DISTRIBUTED without a ClickHouse address, for CLICKHOUSE_URLS. */
const { CLICKHOUSE_URL: _, ...WITHOUT_CLICKHOUSE } = DISTRIBUTED;

function errorOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).message;
  }
  throw new Error('expected loadConfig to throw');
}

describe('loadConfig', () => {
  it('defaults to embedded mode with the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      mode: 'embedded',
      role: 'all',
      http: { host: '0.0.0.0', port: 3000 },
      dataDir: './data',
      distributed: null,
      outbound: { allowPrivate: false },
      rateLimit: { points: 1000, durationSeconds: 1 },
      logLevel: 'info',
      bootstrap: { clientSecret: null, accountName: 'default' },
      smtp: { url: null, from: null },
    });
  });

  it('switches to distributed mode when KAFKA_BROKERS is set', () => {
    const config = loadConfig({ ...DISTRIBUTED, ROLE: 'worker' });
    expect(config.mode).toBe('distributed');
    expect(config.role).toBe('worker');
    expect(config.distributed).toMatchObject({ kafkaBrokers: ['k1:9092', 'k2:9092'], redisUrl: 'redis://redis:6379', redisKeyPrefix: '' });
  });

  it("sizes a worker's fetch: 2 MiB or 200 ms by default, up to 64 MiB and 5 s", () => {
    expect(loadConfig(DISTRIBUTED).distributed?.kafkaFetch).toEqual({ minBytes: 2 * 1024 * 1024, maxWaitMs: 200 });
    expect(loadConfig({ ...DISTRIBUTED, KAFKA_FETCH_MIN_BYTES: '67108864', KAFKA_FETCH_MAX_WAIT_MS: '5000' }).distributed?.kafkaFetch).toEqual({ minBytes: 64 * 1024 * 1024, maxWaitMs: 5000 });
    expect(errorOf({ ...DISTRIBUTED, KAFKA_FETCH_MIN_BYTES: '67108865' })).toMatch(/KAFKA_FETCH_MIN_BYTES: expected at most 67108864/);
    expect(errorOf({ ...DISTRIBUTED, KAFKA_FETCH_MAX_WAIT_MS: '5001' })).toMatch(/KAFKA_FETCH_MAX_WAIT_MS: expected at most 5000/);
    expect(errorOf({ ...DISTRIBUTED, KAFKA_FETCH_MAX_WAIT_MS: '0' })).toMatch(/KAFKA_FETCH_MAX_WAIT_MS: expected milliseconds as a positive whole number/);
    expect(errorOf({ ...DISTRIBUTED, KAFKA_FETCH_MIN_BYTES: '2MiB' })).toMatch(/KAFKA_FETCH_MIN_BYTES: expected a number of bytes as a positive whole number/);
  });

  it('takes a Redis key prefix for installations sharing one Redis, and refuses one with spaces', () => {
    expect(loadConfig({ ...DISTRIBUTED, REDIS_KEY_PREFIX: 'shop-eu:' }).distributed?.redisKeyPrefix).toBe('shop-eu:');
    expect(() => loadConfig({ ...DISTRIBUTED, REDIS_KEY_PREFIX: 'a b' })).toThrow(/REDIS_KEY_PREFIX/);
  });

  it('returns a deeply frozen object', () => {
    const config = loadConfig(DISTRIBUTED);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.distributed)).toBe(true);
    expect(Object.isFrozen(config.distributed?.kafkaBrokers)).toBe(true);
    expect(Object.isFrozen(config.http)).toBe(true);
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', KAFKA_BROKERS: '' }).mode).toBe('embedded');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT', 'from 0 to 65535'],
    [{ PORT: '-1' }, 'PORT', 'from 0 to 65535'],
    [{ PORT: '65536' }, 'PORT', 'from 0 to 65535'],
    [{ ROLE: 'both' }, 'ROLE', 'all, api or worker'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', 'fatal, error, warn'],
    [{ OUTBOUND_ALLOW_PRIVATE: 'yes' }, 'OUTBOUND_ALLOW_PRIVATE', 'true or false'],
    [{ RATE_LIMIT_POINTS: '1.5' }, 'RATE_LIMIT_POINTS', 'positive whole number'],
    [{ BOOTSTRAP_CLIENT_SECRET: 'svc_cs_short' }, 'BOOTSTRAP_CLIENT_SECRET', 'at least 32 URL-safe characters'],
    [{ BOOTSTRAP_CLIENT_SECRET: `svc_live_${'a'.repeat(40)}` }, 'BOOTSTRAP_CLIENT_SECRET', 'svc_cs_'],
    [{ KAFKA_BROKERS: 'kafka' }, 'KAFKA_BROKERS', 'host:port'],
    [{ ...DISTRIBUTED, CLICKHOUSE_URL: 'clickhouse:8123' }, 'CLICKHOUSE_URL', 'http://'],
    [{ ...DISTRIBUTED, REDIS_URL: 'http://redis' }, 'REDIS_URL', 'redis://'],
    [{ SMTP_FROM: 'not-an-address' }, 'SMTP_FROM', 'e-mail address'],
    [{ CLICKHOUSE_DATABASE: 'events; DROP' }, 'CLICKHOUSE_DATABASE', 'identifier'],
  ])('rejects %o naming %s and the expected form', (env, variable, form) => {
    const message = errorOf(env);
    expect(message).toContain(`${variable}:`);
    expect(message).toContain(form);
  });

  it('names every missing URL when distributed mode is incomplete', () => {
    const message = errorOf({ KAFKA_BROKERS: 'kafka:9092' });
    for (const name of ['CLICKHOUSE_URL', 'REDIS_URL', 'DATABASE_URL']) expect(message).toContain(`${name}: required`);
  });

  it('takes one ClickHouse URL as a list of one, on no cluster', () => {
    expect(loadConfig(DISTRIBUTED).distributed).toMatchObject({ clickhouseUrls: ['http://clickhouse:8123'], clickhouseCluster: null });
  });

  it('takes several ClickHouse nodes from CLICKHOUSE_URLS, in order, and a cluster name', () => {
    const config = loadConfig({ ...WITHOUT_CLICKHOUSE, CLICKHOUSE_URLS: 'http://u:p@ch-1:8123, https://ch-2:8443', CLICKHOUSE_CLUSTER: 'events_2x2' });
    expect(config.distributed).toMatchObject({ clickhouseUrls: ['http://u:p@ch-1:8123', 'https://ch-2:8443'], clickhouseCluster: 'events_2x2' });
    expect(Object.isFrozen(config.distributed?.clickhouseUrls)).toBe(true);
  });

  it.each(['http://ch-1:8123,ch-2:8123', 'http://ch-1:8123,', 'http://ch-1:8123,,http://ch-2:8123', 'redis://ch-1:6379'])('refuses CLICKHOUSE_URLS=%j, naming the bad item by its place only', (urls) => {
    const message = errorOf({ ...WITHOUT_CLICKHOUSE, CLICKHOUSE_URLS: urls });
    expect(message).toMatch(/CLICKHOUSE_URLS: expected a comma list of URLs starting with http:\/\/ or https:\/\/; item \d is not one/);
  });

  it('does not print a refused URL, which may carry a password', () => {
    expect(errorOf({ ...WITHOUT_CLICKHOUSE, CLICKHOUSE_URLS: 'http://u:secret@ch-1:8123,ftp://u:secret@ch-2' })).not.toContain('secret');
  });

  it('refuses CLICKHOUSE_URL and CLICKHOUSE_URLS set together: which servers is ambiguous', () => {
    expect(errorOf({ ...DISTRIBUTED, CLICKHOUSE_URLS: 'http://ch-1:8123,http://ch-2:8123' })).toContain('CLICKHOUSE_URLS: set either CLICKHOUSE_URL (one server) or CLICKHOUSE_URLS (several nodes), not both');
  });

  it('takes several nodes only as the nodes of a named cluster; one node needs no cluster', () => {
    expect(errorOf({ ...WITHOUT_CLICKHOUSE, CLICKHOUSE_URLS: 'http://ch-1:8123,http://ch-2:8123' })).toContain('CLICKHOUSE_URLS: several nodes are the nodes of a cluster: set CLICKHOUSE_CLUSTER');
    expect(loadConfig({ ...WITHOUT_CLICKHOUSE, CLICKHOUSE_URLS: 'http://ch-1:8123' }).distributed?.clickhouseUrls).toEqual(['http://ch-1:8123']);
  });

  it('needs CLICKHOUSE_URL or CLICKHOUSE_URLS in distributed mode, and names both', () => {
    const message = errorOf(WITHOUT_CLICKHOUSE);
    expect(message).toContain('CLICKHOUSE_URL: required when KAFKA_BROKERS is set');
    expect(message).toContain('CLICKHOUSE_URLS');
  });

  it.each(['events; DROP', '1st', 'a-b', 'x'.repeat(65)])('refuses CLICKHOUSE_CLUSTER=%j', (cluster) => {
    const message = errorOf({ ...DISTRIBUTED, CLICKHOUSE_CLUSTER: cluster });
    expect(message).toContain('CLICKHOUSE_CLUSTER: expected an identifier of letters, digits and _');
  });

  it('refuses the api and worker roles in embedded mode', () => {
    expect(errorOf({ ROLE: 'api' })).toContain('ROLE: expected all in embedded mode');
  });

  it('accepts a valid bootstrap secret', () => {
    const secret = `svc_cs_${'A1_-'.repeat(8)}`;
    expect(loadConfig({ BOOTSTRAP_CLIENT_SECRET: secret }).bootstrap.clientSecret).toBe(secret);
  });
});

describe('DELIVERY_RETRY_SCHEDULE', () => {
  it('defaults to the documented schedule of domain/retry-schedule.ts', () => {
    expect(loadConfig({}).deliveryRetryScheduleMs).toEqual(RETRY_SCHEDULE_MS);
  });

  it('reads durations in ms, s, m and h', () => {
    expect(loadConfig({ DELIVERY_RETRY_SCHEDULE: '0, 250ms,2s,1m,1h' }).deliveryRetryScheduleMs).toEqual([0, 250, 2000, 60_000, 3_600_000]);
  });

  it.each(['1d', '10,5', '-1', 'soon', '0,,1s'])('refuses %j', (value) => {
    expect(() => loadConfig({ DELIVERY_RETRY_SCHEDULE: value })).toThrow(/DELIVERY_RETRY_SCHEDULE/);
  });
});
