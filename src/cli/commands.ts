import { parseArgs } from 'node:util';
import { z } from 'zod';
import type { OperatorContext } from '../container.js';
import { DomainError } from '../domain/errors.js';
import { clientSecretLabel, clientSecretScopes } from '../services/client-secrets.service.js';

/**
 * The operator commands of the `event-alerting` CLI, for operators without the dashboard. Each declares
 * its options, validates them with the same zod schemas as the HTTP API, and returns its result twice:
 * lines for a person, and an object that `--json` prints for a script. A full secret or key is
 * written exactly once, to stdout, and never to a log.
 */

/** A command line that cannot be run as given: exit code 2, with the command's usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface CommandContext {
  readonly ops: OperatorContext;
  readonly mode: 'embedded' | 'distributed';
}

/** What a command did: `lines` for a person, `json` for `--json`. */
export interface CommandResult {
  readonly lines: readonly string[];
  readonly json: unknown;
}

interface OptionSpec {
  readonly required: boolean;
  /** Shown in the usage line, e.g. `<name>`. */
  readonly value: string;
  readonly description: string;
}

export interface Command {
  readonly summary: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Only `migrate` opens the event store: in embedded mode a running service holds its directory. */
  readonly needsEventStore: boolean;
  run(options: Readonly<Record<string, string | undefined>>, ctx: CommandContext): Promise<CommandResult>;
}

const required = (value: string, description: string): OptionSpec => ({ required: true, value, description });
const optional = (value: string, description: string): OptionSpec => ({ required: false, value, description });

/** Options every command takes besides its own. */
export const COMMON_OPTIONS: Readonly<Record<'json' | 'help', string>> = {
  json: 'print the result as one JSON document (errors too, on stderr)',
  help: "print this command's usage and exit",
};

const accountName = z.string().trim().min(1, 'must be a non-empty string').max(200, 'must be at most 200 characters');
const SCOPES_OPTION = optional('read,write', 'the scopes of the secret, comma-separated (default: both)');

/** Validates one option's value; a failure names the option, as a user typed it. */
function valid<T extends z.ZodType>(schema: T, value: unknown, option: string): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new UsageError(`--${option}: ${result.error.issues[0]?.message ?? 'invalid value'}`);
  return result.data;
}

/** `--scopes read,write` → the scope list; absent → both scopes. */
function scopesOption(value: string | undefined): ('read' | 'write')[] {
  if (value === undefined) return ['read', 'write'];
  return valid(clientSecretScopes, value.split(',').map((s) => s.trim()), 'scopes');
}

function secretLines(clientSecret: string): string[] {
  return ['', 'Client secret (shown only now; store it somewhere safe):', clientSecret];
}

/** Rows as aligned columns under a header; `empty` when there are none. */
function table(header: readonly string[], rows: readonly (readonly string[])[], empty: string): string[] {
  if (rows.length === 0) return [empty];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)];
}

/** Every page of a list, in pages of LIST_PAGE: an operator's list is read whole. */
async function everyPage<T>(read: (page: { limit: number; offset: number }) => Promise<T[]>): Promise<T[]> {
  const all: T[] = [];
  for (let offset = 0; ; offset += LIST_PAGE) {
    const page = await read({ limit: LIST_PAGE, offset });
    all.push(...page);
    if (page.length < LIST_PAGE) return all;
  }
}
const LIST_PAGE = 200;

export const COMMANDS: Readonly<Record<string, Command>> = {
  'create-account': {
    summary: 'Create an account with its first client secret',
    options: {
      name: required('<name>', "the account's name (names need not be unique)"),
      label: optional('<label>', 'the first secret\'s label (default: initial)'),
      scopes: SCOPES_OPTION,
    },
    needsEventStore: false,
    async run(options, { ops }) {
      const name = valid(accountName, options.name, 'name');
      const label = valid(clientSecretLabel, options.label ?? 'initial', 'label');
      const scopes = scopesOption(options.scopes);
      const created = await ops.services.accounts.createWithSecret({ name, label, scopes });
      return {
        lines: [
          `Created account ${JSON.stringify(name)}`,
          `  account id  ${created.accountId}`,
          `  secret id   ${created.secretId}`,
          `  label       ${label}`,
          `  scopes      ${scopes.join(', ')}`,
          ...secretLines(created.clientSecret),
        ],
        json: { account: { id: created.accountId, name }, secret: { id: created.secretId, label, scopes }, clientSecret: created.clientSecret },
      };
    },
  },

  'list-accounts': {
    summary: 'List every account, oldest first, with its number of active client secrets',
    options: {},
    needsEventStore: false,
    async run(_options, { ops }) {
      const accounts = await everyPage((page) => ops.services.accounts.list(page));
      return {
        lines: table(
          ['ACCOUNT ID', 'CREATED', 'SECRETS', 'NAME'],
          accounts.map((a) => [a.id, a.createdAt, String(a.activeSecrets), a.name]),
          'No accounts yet: create one with create-account.',
        ),
        json: { accounts },
      };
    },
  },

  'create-secret': {
    summary: 'Create another client secret for an account',
    options: { account: required('<account id>', 'the account'), label: required('<label>', 'what the secret is for'), scopes: SCOPES_OPTION },
    needsEventStore: false,
    async run(options, { ops }) {
      const label = valid(clientSecretLabel, options.label, 'label');
      const scopes = scopesOption(options.scopes);
      const created = await ops.services.clientSecrets.create({ accountId: options.account!, label, scopes });
      return {
        lines: [
          `Created client secret for account ${options.account!}`,
          `  secret id   ${created.secret.id}`,
          `  label       ${created.secret.label}`,
          `  scopes      ${created.secret.scopes.join(', ')}`,
          ...secretLines(created.clientSecret),
        ],
        json: { accountId: options.account!, secret: created.secret, clientSecret: created.clientSecret },
      };
    },
  },

  'list-secrets': {
    summary: "List an account's client secrets, revoked ones included (never their values)",
    options: { account: required('<account id>', 'the account') },
    needsEventStore: false,
    async run(options, { ops }) {
      const accountId = options.account!;
      const secrets = await everyPage((page) => ops.services.clientSecrets.listOfAccount(accountId, page));
      return {
        lines: table(
          ['SECRET ID', 'HINT', 'SCOPES', 'CREATED', 'LAST USED', 'REVOKED', 'LABEL'],
          secrets.map((s) => [s.id, s.hint, s.scopes.join(','), s.createdAt, s.lastUsedAt ?? '-', s.revokedAt ?? '-', s.label]),
          'The account has no client secrets.',
        ),
        json: { accountId, secrets },
      };
    },
  },

  'revoke-secret': {
    summary: 'Revoke a client secret (it fails with 401 from then on)',
    options: { id: required('<secret id>', 'the secret, as list-secrets shows it') },
    needsEventStore: false,
    async run(options, { ops }) {
      const { accountId, outcome } = await ops.services.clientSecrets.revokeById(options.id!);
      return {
        lines: [outcome === 'revoked' ? `Revoked client secret ${options.id!} of account ${accountId}` : `Client secret ${options.id!} of account ${accountId} was already revoked`],
        json: { secretId: options.id!, accountId, outcome },
      };
    },
  },

  'rotate-key': {
    summary: "Replace an app's API key (the old key fails with 401 from then on)",
    options: { app: required('<app id>', 'the app, by its id (not its slug: an operator acts across accounts)') },
    needsEventStore: false,
    async run(options, { ops }) {
      // No account: an operator acts across accounts, so the app is named by its UUID.
      const { app, apiKey } = await ops.services.appKeys.rotate(null, options.app!);
      return {
        lines: [
          `Rotated the API key of app ${JSON.stringify(app.name)}`,
          `  app id      ${app.id}`,
          `  account id  ${app.accountId}`,
          `  slug        ${app.slug}`,
          '',
          'API key (shown only now; the previous key no longer works):',
          apiKey,
        ],
        json: { app: { id: app.id, accountId: app.accountId, name: app.name, slug: app.slug }, apiKey },
      };
    },
  },

  migrate: {
    summary: 'Apply pending metadata and event store migrations, then exit',
    options: {},
    needsEventStore: true,
    async run(_options, { ops, mode }) {
      // The metadata store was migrated when the operator context was opened; the event store is
      // migrated here. Both are idempotent and safe while other processes start.
      try {
        await ops.events!.migrate();
      } catch (err) {
        // chDB locks its directory for one process: the usual cause is a running embedded service,
        // which applies the same migrations itself when it starts.
        const hint = mode === 'embedded' ? ' In embedded mode, stop the service first (it also migrates when it starts).' : '';
        throw new DomainError('unavailable', `could not migrate the event store: ${err instanceof Error ? err.message : String(err)}.${hint}`, { cause: err });
      }
      return { lines: ['Metadata and event store migrations are up to date.'], json: { migrated: true, mode } };
    },
  },
};

/** A command's options as given, and whether `--json` and `--help` were. */
export interface ParsedCommandLine {
  readonly options: Record<string, string | undefined>;
  readonly json: boolean;
  readonly help: boolean;
}

/**
 * Parses a command's arguments: only its own options and the common ones, each once. The required
 * ones must be present unless `--help` is asked for.
 */
export function parseCommandOptions(command: Command, args: readonly string[]): ParsedCommandLine {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        ...Object.fromEntries(Object.keys(command.options).map((name) => [name, { type: 'string' as const }])),
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    // node:util reports unknown options, missing values and stray arguments as ERR_PARSE_ARGS_*.
    if (err instanceof Error && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) throw new UsageError(err.message);
    throw err;
  }
  const { json, help, ...options } = values;
  if (help !== true) {
    for (const [name, spec] of Object.entries(command.options)) {
      if (spec.required && options[name] === undefined) throw new UsageError(`--${name} is required`);
    }
  }
  return { options: options as Record<string, string | undefined>, json: json === true, help: help === true };
}

/** How the CLI is started: the command in the image and on an installed package, and from a checkout. */
export const INVOCATIONS = ['event-alerting', 'npm run cli --'] as const;

export function usageLine(name: string, command: Command): string {
  const options = Object.entries(command.options).map(([option, spec]) => (spec.required ? `--${option} ${spec.value}` : `[--${option} ${spec.value}]`));
  return [name, ...options, '[--json]'].join(' ');
}

/** `Usage: event-alerting <command> <its options>`, as a wrong command line and `--help` say it. */
export function commandUsage(name: string, command: Command): string {
  return `Usage: ${INVOCATIONS[0]} ${usageLine(name, command)}`;
}

/** `<command> --help`: its usage, what it does, and each option. */
export function commandHelp(name: string, command: Command): string {
  const options = [
    ...Object.entries(command.options).map(([option, spec]) => [`--${option} ${spec.value}`, `${spec.description}${spec.required ? '' : ' (optional)'}`] as const),
    ...Object.entries(COMMON_OPTIONS).map(([option, description]) => [`--${option}`, description] as const),
  ];
  const width = Math.max(...options.map(([flag]) => flag.length));
  return [commandUsage(name, command), '', command.summary, '', 'Options:', ...options.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`)].join('\n');
}

export function usage(): string {
  const lines = [`Usage: ${INVOCATIONS[0]} <command> [options]`, `  (from a checkout: ${INVOCATIONS[1]} <command> [options]; in the image also node dist/cli.js)`, '', 'Commands:'];
  for (const [name, command] of Object.entries(COMMANDS)) lines.push(`  ${usageLine(name, command)}`, `      ${command.summary}`);
  lines.push(
    '',
    `${INVOCATIONS[0]} <command> --help describes a command; ${INVOCATIONS[0]} --version prints the version.`,
    'Configuration comes from the same environment variables as the service (see .env.example).',
    'Exit codes: 0 done, 1 failed (configuration, a store, a refused operation), 2 the command line is wrong.',
  );
  return lines.join('\n');
}
