// get_bimi_hosting over MCP with the official SDK client: read-only (a read-only token may call it), the
// same state and report as REST (a real VMC validated against its own logo), the certificate's texts
// named as untrusted, another team's domain not found.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { call, makeTeam } from "../support/api";
import { insertDomain } from "../support/webhooks";
import { clearHosted, paypalPem, paypalSvg, pinClock } from "../routes/bimi-hosting/support";
import { callTool, connect, dataOf, errorOf } from "./support";

let client: Client | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
  await clearHosted();
});

describe("get_bimi_hosting", () => {
  it("is read-only and gives the hosted state, the certificate report and the Gmail answer", async () => {
    pinClock();
    const team = await makeTeam();
    const d = await insertDomain(team.id, { name: "paypal.com" });
    const put = (path: string, rawBody: string, type: string) =>
      call(`/api/v1/domains/${d.id}/bimi-hosting/${path}`, { method: "PUT", token: team.full, rawBody, headers: { "content-type": type } });
    expect((await put("logo", paypalSvg, "image/svg+xml")).status).toBe(200);
    expect((await put("certificate", paypalPem, "application/pem-certificate-chain")).status).toBe(200);

    client = await connect(team.readOnly);
    const { tools } = await client.listTools();
    const t = tools.find((x) => x.name === "get_bimi_hosting");
    expect(t?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(t?.description).toMatch(/untrusted/);

    const result = await callTool(client, "get_bimi_hosting", { domain_id: d.id });
    const data = dataOf<{
      hosted: boolean;
      certificate: { kind: string };
      validation: { certificate: { valid: boolean; logo_matches: boolean } };
      gmail: { requirements: { id: string; state: string }[] };
    }>(result);
    expect(data.hosted).toBe(true);
    expect(data.certificate.kind).toBe("VMC");
    expect(data.validation.certificate).toMatchObject({ valid: true, logo_matches: true });
    expect(data.gmail.requirements.find((r) => r.id === "logo_matches_certificate")?.state).toBe("met");
    const text = result.content[0];
    expect(text?.type === "text" ? text.text : "").toMatch(/validation\.certificate\.subject.*untrusted/);
    // The check messages and the Gmail rows quote the certificate's fields (its mark type, organization, issuer).
    expect(text?.type === "text" ? text.text : "").toMatch(/validation\.certificate\.checks.*gmail\.requirements.*gmail\.summary.*untrusted/);
  });

  it("another team's domain is not found, and nothing hosted is hosted=false", async () => {
    const team = await makeTeam();
    const other = await makeTeam();
    const mine = await insertDomain(team.id);
    const theirs = await insertDomain(other.id);
    client = await connect(team.full);
    expect(dataOf<{ hosted: boolean; logo: unknown }>(await callTool(client, "get_bimi_hosting", { domain_id: mine.id }))).toMatchObject({
      hosted: false,
      logo: null,
    });
    expect(errorOf(await callTool(client, "get_bimi_hosting", { domain_id: theirs.id })).code).toBe("not_found");
  });
});
