import { describe, expect, it } from 'vitest';
import { CLIENT_TYPES_FILE, committedDashboardTypes, renderClientTypes, renderDashboardTypes, v1OpenApiDocument } from '../helpers/dashboard-types.js';

describe('the dashboard types (src/dashboard/api/openapi.gen.ts)', () => {
  it('are what the current route declarations generate: run `npm run dashboard:types` after changing the API', async () => {
    expect(committedDashboardTypes()).toBe(await renderDashboardTypes());
  });

  it("are, for the ingest operation, the client library's too (clients/js/src/api-types.ts)", async () => {
    expect(committedDashboardTypes(CLIENT_TYPES_FILE)).toBe(await renderClientTypes());
  });

  it('come from the document the service serves, with the components the dashboard names', async () => {
    const document = await v1OpenApiDocument();
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.components?.schemas ?? {})).toEqual(
      expect.arrayContaining(['App', 'AppWithApiKey', 'EventSchema', 'SchemaFieldInput', 'Destination', 'CreatedDestination', 'NotificationRule', 'ConditionInput', 'RuleActionInput', 'Event', 'DefaultMetadata', 'IngestResponse', 'Delivery', 'ClientSecret']),
    );
  });
});
