import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { once } from 'node:events';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { explainListenError } from '../common/listen-error';
import { pathOf } from '../common/answer-record';
import { ErrorResponses } from '../common/error-responses';
import { loggedError } from '../common/error-text';
import { Environment } from '../config/environment';
import { MetricsService } from './metrics.service';

/** How scrapes are labelled in http_requests_total (its own 404s are `unmatched`). */
const METRICS_ROUTE = { path: '/metrics', methods: { get: true, head: true } };

/**
 * `GET /metrics` on METRICS_HOST:METRICS_PORT, never the public port: the exposition is large
 * (~27 KB) and says much about the process, so a client of the API can neither read nor flood it.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  /** Not private: installEdge puts it behind the edge, as it does the public server. */
  readonly server: Server;
  private readonly logger = new Logger('Metrics');

  constructor(
    private readonly metrics: MetricsService,
    private readonly config: ConfigService<Environment, true>,
    private readonly errors: ErrorResponses,
  ) {
    // The edge answers a request without Host itself (Node's own answer is a bare 400).
    this.server = createServer({ requireHostHeader: false }, (request, response) => {
      this.answer(request, response).catch((error: unknown) => {
        this.logger.error(loggedError(error));
        if (!response.headersSent) this.errors.send(response, 500);
        else response.end();
      });
    });
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async onApplicationBootstrap(): Promise<void> {
    const host = this.config.get('METRICS_HOST', { infer: true });
    const port = this.config.get('METRICS_PORT', { infer: true });
    this.server.listen(port, host);
    await once(this.server, 'listening').catch((error: unknown) => {
      throw explainListenError(error, { host, port, prefix: 'METRICS_' });
    });
    this.logger.log(`Metrics on http://${host}:${this.port}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.server.listening) return;
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = pathOf(request.url ?? '');
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      this.errors.send(response, 404);
      return;
    }
    (request as IncomingMessage & { route?: unknown }).route = METRICS_ROUTE;
    const text = await this.metrics.registry.metrics();
    response.writeHead(200, { 'Content-Type': this.metrics.registry.contentType });
    response.end(text);
  }
}
