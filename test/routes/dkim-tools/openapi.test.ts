import { describe, expect, it } from "vitest";
import { call, json } from "../../support/api";

interface Doc {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, { example?: unknown; properties?: Record<string, unknown> }> };
}

describe("DKIM tools in the OpenAPI document", () => {
  it("documents the three operations and the DkimVerification, DkimKeyPair, DkimLookup schemas with examples", async () => {
    const doc = await json<Doc>(await call("/api/v1/openapi.json"));
    expect(doc.paths["/api/v1/dkim/verify"]?.post?.operationId).toBe("verifyDkim");
    expect(Object.keys(doc.paths["/api/v1/dkim/verify"]?.post?.responses ?? {})).toEqual(expect.arrayContaining(["200", "401", "413", "422", "429"]));
    expect(doc.paths["/api/v1/dkim/generate"]?.post?.operationId).toBe("generateDkimKey");
    expect(Object.keys(doc.paths["/api/v1/dkim/lookup"]?.get?.responses ?? {})).toEqual(expect.arrayContaining(["200", "401", "422", "429", "503"]));
    for (const name of ["DkimVerification", "DkimKeyPair", "DkimLookup"]) {
      expect(doc.components.schemas[name]?.example, name).toBeTruthy();
    }
    expect(Object.keys(doc.components.schemas.DkimVerification?.properties ?? {}).sort()).toEqual([
      "aligned",
      "from_domain",
      "result",
      "signatures",
      "warnings",
    ]);
    expect(Object.keys(doc.components.schemas.DkimLookup?.properties ?? {}).sort()).toEqual([
      "domain",
      "issues",
      "missing",
      "scanned",
      "score",
      "selectors",
      "status",
      "summary",
      "wildcard",
    ]);
    expect(Object.keys(doc.components.schemas.DkimKeyPair?.properties ?? {}).sort()).toEqual([
      "algorithm",
      "dns",
      "domain",
      "fingerprint",
      "key_bits",
      "private_key_pem",
      "selector",
      "zone_file",
    ]);
  });
});
