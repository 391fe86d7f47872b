#!/usr/bin/env node
import { COMMANDS, parseCommandOptions, usage, usageLine, UsageError } from './cli/commands.js';
import { ConfigError, loadConfigFromProcess } from './config.js';
import { createOperatorContext } from './container.js';
import { DomainError } from './domain/errors.js';
import { createLogger } from './observability/logger.js';

/**
 * Operator CLI: `npm run cli -- <command> [options]` from a checkout, `node dist/cli.js <command>` in
 * the container image. Exit codes: 0 done, 1 failed (configuration, database, a refused operation),
 * 2 the command line itself is wrong.
 */
async function run(argv: readonly string[]): Promise<number> {
  const out = (line = ''): void => void process.stdout.write(`${line}\n`);
  const fail = (message: string): void => void process.stderr.write(`${message}\n`);

  const [name, ...args] = argv;
  if (name === 'help' || name === '--help' || name === '-h') {
    out(usage());
    return 0;
  }
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) {
    fail(`${name === undefined ? 'No command given' : `Unknown command ${JSON.stringify(name)}`}\n\n${usage()}`);
    return 2;
  }

  let options: Record<string, string | undefined>;
  try {
    options = parseCommandOptions(command, args);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    fail(`${err.message}\nUsage: npm run cli -- ${usageLine(name!, command)}`);
    return 2;
  }

  let config;
  try {
    // No role argument here: the command line belongs to the CLI.
    config = loadConfigFromProcess([]);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    fail(`${err.message}\nSee .env.example for every setting and its form.`);
    return 1;
  }
  // Logs go to stderr so that stdout carries only the command's own output.
  const logger = createLogger({ level: config.logLevel, destination: process.stderr });

  let ops;
  try {
    ops = await createOperatorContext(config, logger, { events: command.needsEventStore });
  } catch (err) {
    fail(`Error: could not open the ${config.mode} mode stores: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
  try {
    await command.run(options, { ops, mode: config.mode, out });
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      fail(`${err.message}\nUsage: npm run cli -- ${usageLine(name!, command)}`);
      return 2;
    }
    if (err instanceof DomainError) {
      fail(`Error: ${err.message}`);
      // A value the service refuses to accept (an app slug where only an id will do) is a usage error.
      return err.code === 'validation_failed' ? 2 : 1;
    }
    throw err;
  } finally {
    await ops.close();
  }
}

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // Everything was closed; should some handle still hold the event loop, do not hang an operator's
    // shell. Unreferenced, so a clean exit does not wait for it.
    setTimeout(() => process.exit(code), 5_000).unref();
  },
  (err: unknown) => {
    process.stderr.write(`Error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
    setTimeout(() => process.exit(1), 5_000).unref();
  },
);
