import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { generateClientSecret } from '../../src/domain/credentials.js';
import { FuzzClient, describeAnswer, type Answer } from './fuzz-http.js';
import { startHttpReceiver, startSmtpReceiver, type ReceivedRequest } from './receivers.js';
import { startService, type ServiceProcess } from './service-process.js';

/**
 * The service the input-fuzz suite attacks: a real process in embedded mode with its own data
 * directory, a client secret given at start, loopback destinations allowed (alerts go to a receiver
 * started here), and a rate limit no fuzz run reaches (a 429 would hide what a case was about).
 */
export interface FuzzService {
  readonly client: FuzzClient;
  readonly auth: { readonly authorization: string };
  readonly receiver: { readonly baseUrl: string; readonly requests: ReceivedRequest[] };
  /** The service's last warnings and errors: the server's side of a failing case. */
  serverErrors(): string;
  /** A JSON call with the account's secret that must answer `status`; returns the parsed body. */
  call(method: string, path: string, body: unknown, status: number): Promise<any>;
  newApp(name: string): Promise<{ id: string; slug: string; apiKey: string }>;
  newDestination(appId: string, type: 'webhook' | 'slack' | 'discord'): Promise<{ id: string; type: string }>;
  stop(): Promise<void>;
}

export async function startFuzzService(): Promise<FuzzService> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'eas-fuzz-'));
  const secret = generateClientSecret();
  const receiver = await startHttpReceiver();
  // E-mail destinations are refused while no mail server is configured.
  const smtp = await startSmtpReceiver();
  let service: ServiceProcess;
  try {
    service = await startService({
      DATA_DIR: dataDir,
      BOOTSTRAP_CLIENT_SECRET: secret,
      OUTBOUND_ALLOW_PRIVATE: 'true',
      RATE_LIMIT_POINTS: '10000000',
      // One attempt per alert: the receiver always answers 200, and retries would only add noise.
      DELIVERY_RETRY_SCHEDULE: '0',
      SMTP_URL: smtp.url,
      SMTP_FROM: 'alerts@example.org',
    });
  } catch (error) {
    await receiver.close();
    await smtp.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const client = new FuzzClient(service.url);
  const auth = { authorization: `Bearer ${secret}` };

  const call = async (method: string, urlPath: string, body: unknown, status: number): Promise<any> => {
    const answer: Answer = await client.send({
      method,
      path: urlPath,
      headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(answer.status, `${method} ${urlPath} → ${describeAnswer(answer)}`).toBe(status);
    return answer.json;
  };

  return {
    client,
    auth,
    receiver,
    serverErrors: () =>
      service
        .output()
        .split('\n')
        .filter((line) => /"level":(40|50|60)/.test(line))
        .slice(-8)
        .map((line) => line.slice(0, 800))
        .join('\n'),
    call,
    async newApp(name) {
      const created = await call('POST', '/v1/apps', { name: `${name} ${Math.random().toString(36).slice(2, 8)}` }, 201);
      return { id: created.app.id, slug: created.app.slug, apiKey: created.apiKey };
    },
    async newDestination(appId, type) {
      const created = await call('POST', `/v1/apps/${appId}/destinations`, { type, label: `${type} receiver`, url: `${receiver.baseUrl}/${type}` }, 201);
      return { id: created.id, type };
    },
    async stop() {
      client.close();
      try {
        expect(await service.stop('SIGTERM'), `the service did not exit cleanly:\n${service.output().slice(-2_000)}`).toBe(0);
      } finally {
        await receiver.close();
        await smtp.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
