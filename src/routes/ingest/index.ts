// POST /api/webhooks/dmarc (site root, no bearer token): DMARC aggregate report ingestion authenticated
// by X-Signature. A plain route, outside the /api/v1 OpenAPI document, whose operations all take a bearer token.
import { createRouter } from "../../app-router";
import { ingestReport } from "../../services/dmarc/ingest";
import { presentedSignature, readCapped, unpackBody, verifySignature } from "./body";

export const ingestRoutes = () => {
  const r = createRouter();
  r.post("/dmarc", async (c) => {
    const svc = c.get("services");
    const secret = svc.config.dmarcIngestSecret;
    const presented = presentedSignature(c.req.header("x-signature"), secret);
    const body = await readCapped(c.req.raw);
    await verifySignature(body, presented, secret ?? "");
    const { bytes, recipient } = unpackBody(body, c.req.header("content-type"));
    const out = await ingestReport(svc, { body: bytes, recipient });
    return c.json({ data: out }, out.duplicate ? 200 : 202);
  });
  return r;
};
