// createApp(): the Hono application, its error model, the OpenAPI document and the API reference.
import { HTTPException } from "hono/http-exception";
import { createRouter, type Api } from "./app-router";
import { ApiError, internalError } from "./lib/errors";
import { errorResponse } from "./middleware/error-response";
import { authenticate } from "./middleware/auth";
import { requestId } from "./middleware/request-id";
import { adminGate, adminRoutes } from "./routes/admin";
import { registerEventWebhooks } from "./routes/webhooks/event-docs";
import { openApiDocuments } from "./openapi-documents";
import { type ReferenceDocument, renderApiReference } from "./pages/api-reference";
import { ingestRoutes } from "./routes/ingest";
import { publicBimiRoutes } from "./routes/public-bimi";
import { mountApiRoutes } from "./routes";
import { pageNotFound, pageRoutes } from "./pages";
import { createServices } from "./services";

const MACHINE_PREFIXES = ["/api/", "/admin", "/mcp", "/oauth/", "/.well-known/", "/assets/"];
const wantsPage = (path: string, accept: string | undefined) => (accept ?? "").includes("text/html") && !MACHINE_PREFIXES.some((p) => path.startsWith(p));

export function createApp(): Api {
  const app = createRouter();
  app.use("*", requestId);
  app.use("*", async (c, next) => {
    c.set("services", createServices(c.env));
    await next();
  });

  // Team data, tokens and secrets (a new webhook secret, a generated private key, an issued token) must
  // never sit in a shared or browser cache: every API and operator answer is no-store. The public
  // documents may be cached briefly.
  app.use("*", async (c, next) => {
    await next();
    const p = c.req.path;
    const publicDoc = p === "/api/v1/openapi.json" || p === "/api/v1/docs";
    if (p.startsWith("/api/") || p.startsWith("/admin")) c.res.headers.set("Cache-Control", publicDoc ? "public, max-age=300" : "no-store");
  });

  const v1 = createRouter();
  v1.use("*", async (c, next) => {
    const p = c.req.path;
    if (p === "/api/v1/openapi.json" || p === "/api/v1/docs") return next();
    return authenticate(c, next);
  });
  mountApiRoutes(v1);

  // Served from one build per isolate (src/openapi-documents.ts), before the routers that would claim the paths.
  app.get("/api/v1/openapi.json", (c) => c.json(openApiDocuments(app, c.get("services").config.siteUrl).team));
  app.get("/admin/openapi.json", adminGate, (c) => c.json(openApiDocuments(app, c.get("services").config.siteUrl).operator));
  app.route("/api/v1", v1);
  app.route("/admin", adminRoutes());
  app.route("/api/webhooks", ingestRoutes());
  // Hosted BIMI logos and certificates for l= and a=: public, no session or token (issue 32 §2).
  app.route("/", publicBimiRoutes());

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "A team token (eam_...) created through the admin API or the dashboard.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "dmarcSignature", {
    type: "apiKey",
    in: "header",
    name: "X-Signature",
    description: "sha256=<hex HMAC-SHA256 of the raw request body>, keyed with DMARC_INGEST_SECRET.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "adminToken", {
    type: "http",
    scheme: "bearer",
    description: "The operator's ADMIN_TOKEN secret. Every /admin path is a 404 while it is unset.",
  });
  registerEventWebhooks(app.openAPIRegistry);
  app.get("/api/v1/docs", (c) => c.html(renderApiReference(openApiDocuments(app, c.get("services").config.siteUrl).team as ReferenceDocument)));
  // The dashboard (people in a browser) at the site root, on the same services as the API.
  app.route("/", pageRoutes());

  // A browser asking for a page that does not exist gets a page; API clients and agents get the envelope.
  app.notFound((c) => (wantsPage(c.req.path, c.req.header("accept")) ? pageNotFound(c) : errorResponse(c, new ApiError(404, "not_found", "Route not found."))));
  app.onError((error, c) => {
    if (error instanceof ApiError) return errorResponse(c, error);
    if (error instanceof HTTPException && error.status < 500) {
      const status = error.status === 413 ? 413 : 400;
      return errorResponse(c, new ApiError(status, status === 413 ? "payload_too_large" : "bad_request", error.message || "Bad request."));
    }
    console.error(
      JSON.stringify({ level: "error", requestId: c.get("requestId"), error: String(error), stack: error instanceof Error ? error.stack : undefined }),
    );
    return errorResponse(c, internalError());
  });
  return app;
}
