// Mark certificates (VMC/CMC) for BIMI: the validation contract. Pure logic; WebCrypto for signatures and hashes.
export { BIMI_ROOTS, type TrustedRoot } from "./roots";
export type { MarkCheck, MarkOptions, MarkReport } from "./types";
export { INFORMATIONAL as INFORMATIONAL_CHECKS, validateMarkCertificate } from "./validate";
