#!/usr/bin/env node
// `npm run bench [name...]`: runs the benchmarks in bench/*.bench.mjs one after another and prints figures.
import { readdirSync } from "node:fs";

const wanted = process.argv.slice(2);
const files = readdirSync(new URL(".", import.meta.url))
  .filter((f) => f.endsWith(".bench.mjs"))
  .sort();
for (const file of files) {
  const name = file.replace(".bench.mjs", "");
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  console.log(`\n== ${name} ==`);
  const mod = await import(`./${file}`);
  await mod.default();
}
