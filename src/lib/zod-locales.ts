// zod's locale index as the Worker bundle sees it (wrangler.toml [alias], docs/decisions.md D58): English
// only. zod exports every locale through its `z` namespace, which @hono/zod-openapi passes around as a
// value, so the bundler cannot drop the other 40-odd locales (about 260 KB minified) that nothing here
// selects. The tests and Node scripts load zod unchanged; the messages are the same English ones.
export { default as en } from "zod/v4/locales/en.js";
