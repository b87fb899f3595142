// Module resolution hook for register.mjs.
const STUB = new URL("./cloudflare-workers.mjs", import.meta.url).href;
const EMAIL_STUB = new URL("./cloudflare-email.mjs", import.meta.url).href;

export async function resolve(specifier, context, next) {
  if (specifier === "cloudflare:workers") return { url: STUB, shortCircuit: true };
  if (specifier === "cloudflare:email") return { url: EMAIL_STUB, shortCircuit: true };
  return next(specifier, context);
}
