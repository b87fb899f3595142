// node --import ./scripts/node-stubs/register.mjs: resolves `cloudflare:workers` to the stand-in beside
// this file, so Node can load modules written for workerd (used only to export the OpenAPI documents).
import { register } from "node:module";

register(new URL("./hooks.mjs", import.meta.url));
