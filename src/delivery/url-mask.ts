/**
 * Webhook URLs are credentials: whoever knows a Slack or Discord webhook URL can post to the channel,
 * and generic receivers often put a token in the path or query. Responses and logs show a masked URL.
 *
 * The rule:
 *  - scheme, host and port are kept (they tell which service it is); user:password is dropped;
 *  - for the well-known providers, the fixed part of their path is kept, everything after it masked:
 *      hooks.slack.com             keeps the first segment   (/services/…, /triggers/…, /workflows/…)
 *      discord.com, discordapp.com keeps up to `webhooks`     (/api/webhooks/…, /api/v10/webhooks/…)
 *  - for any other host the whole path, query and fragment are masked, since no part of them is known
 *    to be public;
 *  - whatever is masked becomes a single `…`; nothing is appended when nothing was hidden.
 * A string that does not parse as a URL is masked whole.
 */

export const MASK = '…';
const UNPARSEABLE = `[invalid url ${MASK}]`;

/** How many leading path segments of a well-known provider's webhook URL are not secret. */
type PublicPrefix = (segments: readonly string[]) => number;

const slackPrefix: PublicPrefix = (segments) => Math.min(segments.length, 1);

const discordPrefix: PublicPrefix = (segments) => {
  const at = segments.indexOf('webhooks');
  // `/api/webhooks/{id}/{token}` or `/api/v{n}/webhooks/...`; anything else is treated as secret.
  return segments[0] === 'api' && at > 0 && at <= 2 ? at + 1 : 0;
};

const PROVIDERS: ReadonlyMap<string, PublicPrefix> = new Map([
  ['hooks.slack.com', slackPrefix],
  ['discord.com', discordPrefix],
  ['discordapp.com', discordPrefix],
  ['ptb.discord.com', discordPrefix],
  ['canary.discord.com', discordPrefix],
]);

export function maskWebhookUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return UNPARSEABLE;
  }
  const origin = `${parsed.protocol}//${parsed.host}`;
  const segments = parsed.pathname.split('/').filter((segment) => segment !== '');
  const publicPrefix = PROVIDERS.get(parsed.hostname.toLowerCase());
  const kept = publicPrefix ? segments.slice(0, publicPrefix(segments)) : [];
  const hidden = segments.length > kept.length || parsed.search !== '' || parsed.hash !== '';
  const path = kept.length > 0 ? `/${kept.join('/')}/` : '/';
  return `${origin}${path}${hidden ? MASK : ''}`;
}
