// A stand-in for the runtime's `cloudflare:workers` module when Node loads the app to build its
// OpenAPI documents (scripts/export-openapi.ts, test/node). Only class shapes are needed there: no
// Worker runs in Node, so nothing here is ever called.
export class WorkerEntrypoint {
  constructor(ctx, env) {
    this.ctx = ctx;
    this.env = env;
  }
}
export class DurableObject {
  constructor(ctx, env) {
    this.ctx = ctx;
    this.env = env;
  }
}
export const env = {};
