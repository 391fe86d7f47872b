import type { MetadataStore } from '../ports/metadata.js';
import { digestCredential, generateApiKey, shownPrefix } from '../domain/credentials.js';
import { notFound, requireApp } from './app-lookup.js';
import { toAppView, type AppWithKey } from './apps.service.js';
import type { Authenticator } from './authenticator.js';

/** The API key of an app: exactly one per app, of which the service keeps only the digest. */
export class AppKeysService {
  constructor(private readonly deps: { metadata: MetadataStore; authenticator: Authenticator }) {}

  /**
   * Replaces the app's API key: the new key is returned once, the old one fails with 401 from the
   * moment this resolves, on every API process (`authenticator.changed()` completes before the caller
   * answers). Also used by the CLI, which acts outside any account: `accountId` null then takes the
   * app's UUID only (see app-lookup.ts).
   */
  async rotate(accountId: string | null, appIdOrSlug: string): Promise<AppWithKey> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    const apiKey = generateApiKey();
    // Overwriting the digest is the revocation: exactly one key per app, and the old one matches nothing.
    const rotated = await this.deps.metadata.apps.update(app.id, { apiKeyDigest: digestCredential(apiKey), apiKeyPrefix: shownPrefix(apiKey) });
    if (!rotated) throw notFound();
    await this.deps.authenticator.changed();
    return { app: toAppView(rotated), apiKey };
  }
}
