// Gives every response an X-Request-Id (the caller's, when it sent a sane one) for support and logs.
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../context";

const SANE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const incoming = c.req.header("x-request-id");
  const id = incoming && SANE_ID.test(incoming) ? incoming : crypto.randomUUID();
  c.set("requestId", id);
  c.header("X-Request-Id", id);
  await next();
  c.res.headers.set("X-Request-Id", id);
});
