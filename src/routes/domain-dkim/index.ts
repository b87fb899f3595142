// DKIM selector inventory of a monitored domain: overview, add, one selector with history, delete.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../app-router";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import { jsonBody } from "../../middleware/json-body";
import { addDkimSelector } from "../../services/dkim-inventory/add-selector";
import { deleteDkimSelector } from "../../services/dkim-inventory/delete-selector";
import { getDkimOverview, getDkimSelector } from "../../services/dkim-inventory/overview";
import { DaysQuery, DkimOverviewSchema, DkimSelectorSchema, DomainParam, SelectorParam } from "./schemas";

const tags = ["DKIM"];

const overview = createRoute({
  method: "get",
  path: "/domains/{domain}/dkim",
  tags,
  operationId: "getDkimOverview",
  description: "The domain's DKIM selector inventory: status, health, key type and size, age, provider, delegation, rotations and evidence from DMARC reports.",
  security: BEARER,
  summary: "DKIM selector inventory, signers from DMARC reports and findings",
  request: { params: DomainParam, query: DaysQuery },
  responses: { 200: jsonContent(dataOf(DkimOverviewSchema), "The inventory."), ...errorResponses(...AUTH_ERRORS, 404, 422) },
});

const add = createRoute({
  method: "post",
  path: "/domains/{domain}/dkim/selectors",
  tags,
  operationId: "addDkimSelector",
  description:
    "Adds a selector by hand and looks it up at once with the same rules as a check (events and DKIM alert). 201 when added, 200 when it was already known.",
  security: BEARER,
  summary: "Add a selector by hand; it is looked up at once",
  middleware: [jsonBody()],
  request: {
    params: DomainParam,
    body: { required: true, content: { "application/json": { schema: z.object({ selector: z.string().min(1).max(253).openapi({ example: "s2048" }) }) } } },
  },
  responses: {
    201: jsonContent(dataOf(DkimSelectorSchema), "Added and looked up (status stays pending when DNS failed)."),
    200: jsonContent(dataOf(DkimSelectorSchema), "Already known; unchanged."),
    ...errorResponses(...AUTH_ERRORS, 400, 403, 404, 413, 415, 422),
  },
});

const one = createRoute({
  method: "get",
  path: "/domains/{domain}/dkim/selectors/{selector}",
  tags,
  operationId: "getDkimSelector",
  description: "One selector with its key history (every key seen, when, and why it was retired) and its DMARC report evidence.",
  security: BEARER,
  summary: "One selector with its key history and DMARC-report evidence",
  request: { params: SelectorParam, query: DaysQuery },
  responses: { 200: jsonContent(dataOf(DkimSelectorSchema), "The selector."), ...errorResponses(...AUTH_ERRORS, 404, 422) },
});

const remove = createRoute({
  method: "delete",
  path: "/domains/{domain}/dkim/selectors/{selector}",
  tags,
  operationId: "deleteDkimSelector",
  description: "Removes a manually added selector that is not published (pending, missing or invalid). Published or discovered selectors answer 409.",
  security: BEARER,
  summary: "Remove a manually added selector that is not published",
  request: { params: SelectorParam },
  responses: {
    204: { description: "Removed." },
    ...errorResponses(...AUTH_ERRORS, 403, 404, 409),
  },
});

export const domainDkimRoutes = () =>
  createRouter()
    .openapi(overview, async (c) => {
      const { domain } = c.req.valid("param");
      const { days } = c.req.valid("query");
      return c.json({ data: await getDkimOverview(c.get("services"), c.get("ctx"), domain, days) }, 200);
    })
    .openapi(add, async (c) => {
      const { domain } = c.req.valid("param");
      const { selector } = c.req.valid("json");
      const out = await addDkimSelector(c.get("services"), c.get("ctx"), domain, selector);
      return out.created ? c.json({ data: out.selector }, 201) : c.json({ data: out.selector }, 200);
    })
    .openapi(one, async (c) => {
      const { domain, selector } = c.req.valid("param");
      const { days } = c.req.valid("query");
      return c.json({ data: await getDkimSelector(c.get("services"), c.get("ctx"), domain, selector, days) }, 200);
    })
    .openapi(remove, async (c) => {
      const { domain, selector } = c.req.valid("param");
      await deleteDkimSelector(c.get("services"), c.get("ctx"), domain, selector);
      return c.body(null, 204);
    });
