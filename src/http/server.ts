import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Cronql } from '../app.js';
import type { Config } from '../config.js';
import { mountHealth } from './health.js';

export interface HttpServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/**
 * The HTTP side of a cronql process: health endpoints always; the GraphQL API, its WebSocket
 * and GraphiQL unless the role is `scheduler`.
 */
export async function startHttpServer(cronql: Cronql, config: Pick<Config, 'host' | 'port' | 'role'>): Promise<HttpServer> {
  const app = express();
  app.disable('x-powered-by');
  mountHealth(app, cronql);
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  return {
    server,
    url: `http://${host}:${port}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
