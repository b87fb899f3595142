// Public API of ARC validation (RFC 8617). No I/O here.
export { validateArc, MAX_ARC_SETS, type ArcDeps, type ArcReport, type ArcSetReport, type ArcSignatureResult } from "./validate";
export { parseSeal, sealedData, type ArcSeal, type ChainStatus } from "./seal";
export { collectArcSets, readAar, type ArcSetFields } from "./collect";
