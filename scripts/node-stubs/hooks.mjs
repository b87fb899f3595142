// Module resolution hook for register.mjs.
const STUB = new URL("./cloudflare-workers.mjs", import.meta.url).href;

export async function resolve(specifier, context, next) {
  if (specifier === "cloudflare:workers") return { url: STUB, shortCircuit: true };
  return next(specifier, context);
}
