// Public surface of the webhook core: signing, secrets at rest, retries, classification, SSRF rules
// and delivery. No I/O of its own.
export * from "./sign";
export * from "./retry";
export * from "./classify";
export * from "./target";
export { parseIPv4, parseIPv6, embeddedIPv4 } from "./ip";
export * from "./deliver";
