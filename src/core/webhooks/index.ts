// Public surface of the webhook core: signing, secrets at rest, retries, classification and delivery
// (the SSRF address rules are in core/net/target.ts, shared with MTA-STS). No I/O of its own.
export * from "./sign";
export * from "./retry";
export * from "./classify";
export * from "./deliver";
