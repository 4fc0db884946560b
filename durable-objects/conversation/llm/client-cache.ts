/**
 * One SDK client per model configuration, shared by the calls of an isolate: clients are
 * stateless between calls, and building one on every model call was a measurable part of a loop
 * step. A call that brings its own `fetch` (tests) gets a fresh client.
 */

import type { PreparedCall } from "./provider-call.js";
import type { LlmConfig } from "./types.js";

const MAX_CACHED_CLIENTS = 16;

export class ClientCache<Client> {
  private readonly clients = new Map<string, Client>();

  get(config: LlmConfig, call: PreparedCall, make: () => Client): Client {
    if (call.fetch) return make();
    const key = JSON.stringify([
      config.baseURL,
      config.apiKey,
      config.gatewayToken,
      call.maxRetries,
      call.timeoutMs,
      call.maxRetryAfterMs,
    ]);
    let client = this.clients.get(key);
    if (!client) {
      // A deployment has one or two configurations; past the cap something is churning them.
      if (this.clients.size >= MAX_CACHED_CLIENTS) this.clients.clear();
      client = make();
      this.clients.set(key, client);
    }
    return client;
  }
}
