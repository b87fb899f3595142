// Types of scripts/dev-oidc-provider.mjs for the TypeScript tests that start it (test/node/oidc-conformance.test.ts).

export interface OidcAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
}

export type OidcAttack = "tampered" | "foreign-key" | "wrong-audience" | "wrong-issuer" | "expired" | "replayed-nonce" | "unsigned";

export const ACCOUNTS: readonly OidcAccount[];
export const ATTACKS: Record<OidcAttack, unknown>;

export interface LocalOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  port: number;
  accounts: readonly OidcAccount[];
  /** The next token response carries this forged ID token. */
  attack(name: OidcAttack): void;
  stop(): Promise<void>;
}

export function startOidcProvider(options?: {
  port?: number;
  clientId?: string;
  clientSecret?: string;
  redirectUris?: string[];
  adversary?: boolean;
  log?: (line: string) => void;
}): Promise<LocalOidcProvider>;
