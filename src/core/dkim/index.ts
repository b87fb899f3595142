// Public API of the DKIM engine (verification, key analysis, generation, selector scanning). No I/O here.
export { verifyMessage, type VerifyDeps, type VerifyReport, type SignatureReport, type DkimResult } from "./verify";
export { analyzeKey, ageBucket, STALE_KEY_DAYS, type KeyAnalysis, type AgeBucket } from "./key";
export { parseKeyRecord, type KeyRecord } from "./key-record";
export { parseSignature, type DkimSignature, type SigAlgorithm, type Canon } from "./signature";
export { parseMessage, extractFromDomain, toWire, type HeaderField, type ParsedMessage, type WireMessage } from "./message";
export { DkimKeyCache } from "./key-cache";
export { canonBody, canonHeaderRelaxed, canonHeaderSimple, selectHeaders, signedHeaderData } from "./canonicalize";
export { generateKeyPair, zoneRecord, txtStrings, type GeneratedKey, type KeyAlgorithm } from "./generate";
export { signMessage, type SignOptions } from "./sign";
export { PROVIDERS, GENERIC_SELECTORS, attributeProvider, inferProviders, candidateSelectors, isValidSelector, matchesSuffix } from "./selectors";
export { lookupSelectors, checkSelector, SCAN_CONCURRENCY, type SelectorScan, type SelectorEntry, type SelectorStatus } from "./lookup";
