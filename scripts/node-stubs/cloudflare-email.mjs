// A stand-in for the runtime's `cloudflare:email` module when Node loads the app to build its OpenAPI
// documents (scripts/export-openapi.ts, test/node). No mail is sent in Node: only the class shape is needed.
export class EmailMessage {
  constructor(from, to, raw) {
    this.from = from;
    this.to = to;
    this.raw = raw;
  }
}
