// The hosted MTA-STS page through the Worker's real fetch export: signed out goes to sign-in; the owner
// turns hosting on from the live MX hosts, reads the two CNAMEs with their live state, the certificate
// state and the policy; the enforce button is disabled until a TLS report without failure arrives, then
// one click enforces; a pattern that misses an MX host is a 422 page; a form without CSRF is refused;
// turning off says when the records may go (RFC 8461 §8.3).
import { describe, expect, it } from "vitest";
import { Browser, signedInOwner } from "../support/browser";
import { installCloudflare } from "../support/cloudflare-api";
import { insertDomain } from "../support/factories";
import { enc, googleShape, intake } from "../routes/tls/fixtures";

async function ownerWithDomain() {
  const { b, teamId } = await signedInOwner("sts");
  const d = await insertDomain(teamId);
  installCloudflare({
    [d.name]: {
      MX: [
        { preference: 10, exchange: `mx1.${d.name}` },
        { preference: 20, exchange: `mx2.${d.name}` },
      ],
    },
  });
  return { b, d, page: `/domains/${d.id}/hosting` };
}

describe("the hosted MTA-STS page", () => {
  it("sends a signed-out visitor to sign-in", async () => {
    const res = await new Browser().fetch("/domains/1/hosting");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toMatch(/^\/sign-in\?next=/);
  });

  it("is linked from the domain page", async () => {
    const { b, d, page } = await ownerWithDomain();
    expect(await (await b.fetch(`/domains/${d.id}`)).text()).toContain(`<a href="${page}">MTA-STS and BIMI hosting</a>`);
  });

  it("turns hosting on, lists the two CNAMEs and the policy, and enforces with one click once TLS reports allow it", async () => {
    const { b, d, page } = await ownerWithDomain();
    const off = await (await b.fetch(page)).text();
    expect(off).toContain('<strong id="hosting-state">off</strong>');
    expect(off).toContain(`mx1.${d.name}\nmx2.${d.name}</textarea>`);
    expect(off).toContain(`href="/domains/${d.id}/hosting/bimi"`);

    const on = await b.post(page, { mx: `mx1.${d.name}\nmx2.${d.name}`, max_age: "604800", id_delivery: "cname" }, page);
    expect(on.status).toBe(303);
    expect(on.headers.get("location")).toBe(`${page}?saved=on`);
    const html = await (await b.fetch(`${page}?saved=on`)).text();
    expect(html).toContain("MTA-STS hosting is on, in testing mode.");
    expect(html).toContain(`<tr data-record="mta-sts.${d.name}" data-state="missing">`);
    expect(html).toContain(`<tr data-record="_mta-sts.${d.name}" data-state="missing">`);
    expect(html).toContain(`data-copy="${d.name}.sts-id.test"`);
    expect(html).toContain('data-copy="hosting.test"');
    expect(html).toContain("certificate pending validation");
    expect(html).toMatch(/<pre id="policy-text" class="break">version: STSv1\r\nmode: testing\r\nmx: mx1\./);
    // No TLS report yet: the button is there but disabled, with the reason.
    expect(html).toMatch(/<button type="submit" disabled="">\s*Enforce\s*<\/button>/);
    expect(html).toContain("No TLS report arrived in the last 14 days");

    expect((await intake(d.reportToken, enc(JSON.stringify(googleShape(d.name))))).status).toBe(202);
    const ready = await (await b.fetch(page)).text();
    expect(ready).toMatch(/<button type="submit">\s*Enforce\s*<\/button>/);
    const enforced = await b.post(`${page}/enforce`, { days: "14" }, page);
    expect(enforced.status).toBe(303);
    const after = await (await b.fetch(`${page}?saved=enforce`)).text();
    expect(after).toContain("The policy is now enforced, under a new id.");
    expect(after).toContain("\r\nmode: enforce\r\n");
    expect(after).not.toContain('id="enforce"');

    const offNow = await b.post(`${page}/off`, {}, page);
    expect(offNow.status).toBe(303);
    const retiring = await (await b.fetch(`${page}?saved=off`)).text();
    expect(retiring).toContain('<strong id="hosting-state">turning off</strong>');
    expect(retiring).toMatch(/Delete both records after \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  });

  it("re-renders a pattern that misses an MX host as a 422 page naming the host, and refuses a form without its CSRF token", async () => {
    const { b, d, page } = await ownerWithDomain();
    const bad = await b.post(page, { mx: `mx1.${d.name}`, max_age: "604800", id_delivery: "txt" }, page);
    expect(bad.status).toBe(422);
    const html = await bad.text();
    expect(html).toContain('id="hosting-errors"');
    expect(html).toContain(`No pattern matches mx2.${d.name}`);
    const forged = await b.fetch(page, { method: "POST", form: { mx: `*.${d.name}`, max_age: "604800" } });
    expect(forged.status).toBe(403);
  });
});
