import { gzipSync } from 'node:zlib';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { OTLPLogExporter as OtlpJsonExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, SimpleLogRecordProcessor, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/api-assertions.js';
import { MODES, apiWithReceiver } from '../helpers/api-harness.js';
import { waitFor } from '../helpers/service-process.js';
import { uniqueName } from '../helpers/stack-env.js';

/**
 * OpenTelemetry logs into the service, with the OpenTelemetry JS SDK and its OTLP/HTTP exporters
 * (protobuf and JSON) as the client, pointed at the service the way an operator configures them:
 * the `/v1/otlp` base and the app's key in `x-api-key`. Records arrive as events with the mapped
 * fields, rules fire on them, compressed bodies work, what is not a logs request is refused, and a
 * request whose records are partly invalid stores the rest and says how many were not.
 */
describe.each(MODES)('OTLP/HTTP logs (%s)', (mode) => {
  const s = apiWithReceiver(mode);

  const endpoint = () => `${s.api.url}/v1/otlp/v1/logs`;

  /** Emits the records through an SDK logger provider with this exporter, and flushes. */
  async function emit(exporter: LogRecordExporter, records: Parameters<ReturnType<LoggerProvider['getLogger']>['emit']>[0][]): Promise<void> {
    const provider = new LoggerProvider({
      resource: resourceFromAttributes({ 'service.name': 'checkout', 'service.version': '2.4.1', 'host.cpu.count': 8, 'feature.beta': true }),
      processors: [new SimpleLogRecordProcessor({ exporter })],
    });
    const logger = provider.getLogger('otlp-test');
    for (const record of records) logger.emit(record);
    await provider.forceFlush();
    await provider.shutdown();
  }

  async function eventsOf(appId: string, count: number): Promise<any[]> {
    let items: any[] = [];
    await waitFor(
      async () => {
        items = (await s.api.request('GET', `/v1/apps/${appId}/events?limit=100`, { headers: s.account.auth })).body.items ?? [];
        return items.length >= count;
      },
      30_000,
      `${count} events readable`,
    );
    return items;
  }

  it('stores the records of the protobuf exporter, gzip-compressed, with the mapped fields', async () => {
    const { app, apiKey } = await createTestApp(s.api, s.account, { name: uniqueName('otlp-proto') });
    const at = new Date(Date.now() - 60_000);
    await emit(new OtlpProtobufExporter({ url: endpoint(), headers: { 'x-api-key': apiKey }, compression: 'gzip' as never }), [
      { eventName: 'payment.failed', severityNumber: SeverityNumber.ERROR, body: 'card declined', attributes: { 'enduser.id': 'cus_42', amount: 42.5, attempts: 3 }, timestamp: at },
      { severityNumber: SeverityNumber.WARN, body: { reason: 'slow', ms: 1200 }, attributes: { 'event.name': 'checkout.slow', 'customer.id': 'cus_7' } },
      { body: 'plain line', attributes: { tags: ['a', 'b'] } },
    ]);
    const events = await eventsOf(app.id, 3);
    const byName = new Map(events.map((e) => [e.event, e]));
    expect([...byName.keys()].sort()).toEqual(['checkout.slow', 'log', 'payment.failed']);
    const metadata = { 'service.name': 'checkout', 'service.version': '2.4.1', 'host.cpu.count': 8, 'feature.beta': true };
    expect(byName.get('payment.failed')).toEqual(
      expect.objectContaining({ level: 'error', customer_id: 'cus_42', timestamp: at.toISOString(), data: { 'enduser.id': 'cus_42', amount: 42.5, attempts: 3, body: 'card declined' }, metadata }),
    );
    expect(byName.get('checkout.slow')).toEqual(
      expect.objectContaining({ level: 'warning', customer_id: 'cus_7', data: { 'event.name': 'checkout.slow', 'customer.id': 'cus_7', body: { reason: 'slow', ms: 1200 } } }),
    );
    expect(byName.get('log')).toEqual(expect.objectContaining({ level: 'info', data: { tags: ['a', 'b'], body: 'plain line' } }));
    expect(byName.get('log')).not.toHaveProperty('customer_id');
  });

  it('stores the records of the JSON exporter, and fires the rules that match them', async () => {
    const { app, apiKey } = await createTestApp(s.api, s.account, { name: uniqueName('otlp-json') });
    const destination = await s.api.request('POST', `/v1/apps/${app.id}/destinations`, { headers: s.account.auth, body: { type: 'webhook', label: 'receiver', url: `${s.receiver.baseUrl}/otlp` } });
    expect(destination.status, JSON.stringify(destination.body)).toBe(201);
    const rule = await s.api.request('POST', `/v1/apps/${app.id}/notification-rules`, {
      headers: s.account.auth,
      body: { name: 'Disk full', eventName: 'disk.full', conditions: [{ field: 'free_mb', operator: 'less_than', value: 100 }], actions: [{ destinationId: destination.body.id }] },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);

    await emit(new OtlpJsonExporter({ url: endpoint(), headers: { 'x-api-key': apiKey } }), [
      { eventName: 'disk.full', severityNumber: SeverityNumber.FATAL, attributes: { free_mb: 12, volume: '/var' } },
      { eventName: 'disk.full', severityNumber: SeverityNumber.INFO, attributes: { free_mb: 5000, volume: '/home' } },
    ]);
    const events = await eventsOf(app.id, 2);
    expect(events.map((e) => [e.level, e.data.volume]).sort()).toEqual([
      ['error', '/var'],
      ['info', '/home'],
    ]);
    await waitFor(() => Promise.resolve(s.receiver.requests.some((r) => r.path === '/otlp')), 30_000, 'the alert delivered');
    const alerts = s.receiver.requests.filter((r) => r.path === '/otlp');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.body).toContain('/var');
  });

  it('accepts the valid records of a request and reports the others as a partial success, in JSON and in protobuf', async () => {
    const { app, apiKey } = await createTestApp(s.api, s.account, { name: uniqueName('otlp-partial') });
    const schema = await s.api.request('POST', `/v1/apps/${app.id}/schemas`, { headers: s.account.auth, body: { eventName: 'order.paid', fields: [{ name: 'amount', type: 'number', required: true }] } });
    expect(schema.status, JSON.stringify(schema.body)).toBe(201);
    const record = (eventName: string, attributes: Array<{ key: string; value: Record<string, unknown> }>) => ({ eventName, attributes });
    const body = {
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'shop' } }] },
          scopeLogs: [
            {
              logRecords: [
                record('order.paid', [{ key: 'amount', value: { doubleValue: 10 } }]),
                record('not a valid name!', []),
                record('order.paid', [{ key: 'amount', value: { stringValue: 'ten' } }]),
                record('order.shipped', [{ key: 'carrier', value: { stringValue: 'dhl' } }]),
              ],
            },
          ],
        },
      ],
    };
    const res = await fetch(endpoint(), { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const answer = (await res.json()) as { partialSuccess: { rejectedLogRecords: string; errorMessage: string } };
    expect(answer.partialSuccess.rejectedLogRecords).toBe('2');
    expect(answer.partialSuccess.errorMessage).toContain('2 of 4 log records were not accepted; the first: event: must be 1 to 200 characters');
    const events = await eventsOf(app.id, 2);
    expect(events.map((e) => e.event).sort()).toEqual(['order.paid', 'order.shipped']);
    expect(events.find((e) => e.event === 'order.paid').data).toEqual({ amount: 10 });

    // The same through the SDK's protobuf encoding, answered in protobuf: an empty answer means all accepted.
    const allGood = await fetch(endpoint(), { method: 'POST', headers: { 'content-type': 'application/x-protobuf', 'x-api-key': apiKey }, body: new Uint8Array() });
    expect(allGood.status).toBe(200);
    expect(allGood.headers.get('content-type')).toBe('application/x-protobuf');
    expect((await allGood.arrayBuffer()).byteLength).toBe(0);
  });

  it('refuses what is not an OTLP logs request, and a wrong key', async () => {
    const { apiKey } = await createTestApp(s.api, s.account, { name: uniqueName('otlp-bad') });
    const post = (body: string | Uint8Array, headers: Record<string, string>) => fetch(endpoint(), { method: 'POST', headers: { 'x-api-key': apiKey, ...headers }, body });
    const garbage = await post(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), { 'content-type': 'application/x-protobuf' });
    expect(garbage.status).toBe(400);
    expect(((await garbage.json()) as { message: string }).message).toContain('not an OTLP ExportLogsServiceRequest');
    const notLogs = await post(JSON.stringify({ resourceLogs: 'nope' }), { 'content-type': 'application/json' });
    expect(notLogs.status).toBe(400);
    const gzipped = await post(gzipSync(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ severityNumber: 99 }] }] }] })), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(gzipped.status).toBe(400);
    const text = await post('hello', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    const wrongKey = await fetch(endpoint(), { method: 'POST', headers: { 'x-api-key': 'svc_live_wrong', 'content-type': 'application/json' }, body: '{}' });
    expect(wrongKey.status).toBe(401);
  });
});
