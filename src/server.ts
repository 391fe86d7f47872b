import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpApp } from './http/app.js';
import type { Container } from './container.js';
import { v1Routes } from './http/routes/v1.js';

export interface RunningServer {
  readonly url: string;
  /** Stops accepting, lets in-flight requests finish (bounded by `graceMs`), then stops the container. */
  shutdown(graceMs: number): Promise<void>;
}

/** Starts the HTTP edge of a built container: used by main.ts and by tests that need a real socket. */
export async function startServer(container: Container): Promise<RunningServer> {
  const servesApi = container.config.role !== 'worker';
  const app = createHttpApp({
    logger: container.logger,
    metrics: container.metrics,
    checks: container.checks,
    ...(servesApi ? { api: { routes: v1Routes(container), authenticator: container.authenticator } } : {}),
  });
  const { host, port } = container.config.http;
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(port, host, () => resolve(s));
    s.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${shownHost === '0.0.0.0' ? '127.0.0.1' : shownHost}:${address.port}`;

  return {
    url,
    async shutdown(graceMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive sockets with no request in flight would hold close() open until they time out.
      server.closeIdleConnections();
      const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(deadline);
      await container.stop();
    },
  };
}
