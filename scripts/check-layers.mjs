// Layer rules in CI: dependency-cruiser checks the module rules of .dependency-cruiser.cjs (layers,
// module cycles), and this script adds what it cannot express: no import loop between FOLDERS of a
// layer (services/domains -> services/checks -> services/domains is a loop even when no single
// module cycle exists). Exits non-zero on any violation.
import { execFileSync } from "node:child_process";

const bin = new URL("../node_modules/.bin/depcruise", import.meta.url).pathname;
let out;
try {
  out = execFileSync(bin, ["src", "--config", ".dependency-cruiser.cjs", "--output-type", "json"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
} catch (error) {
  out = error.stdout;
  if (!out) throw error;
}
const result = JSON.parse(out);

const folderOf = (path) => {
  const m = /^src\/(core|services|routes|lib|queues|cron|email|middleware|pages|mcp|db|durable-objects)\/([^/.]+)(\/|\.ts$)/.exec(path);
  return m ? `src/${m[1]}/${m[2]}` : path;
};
const graph = new Map();
for (const mod of result.modules) {
  if (!mod.source.startsWith("src/")) continue;
  const from = folderOf(mod.source);
  const edges = graph.get(from) ?? new Set();
  for (const dep of mod.dependencies) {
    if (!dep.resolved.startsWith("src/")) continue;
    const to = folderOf(dep.resolved);
    if (to !== from) edges.add(to);
  }
  graph.set(from, edges);
}

// Tarjan's strongly connected components: any component of more than one folder is a loop.
let index = 0;
const idx = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const loops = [];
function connect(v) {
  idx.set(v, index);
  low.set(v, index++);
  stack.push(v);
  onStack.add(v);
  for (const w of graph.get(v) ?? []) {
    if (!idx.has(w)) {
      connect(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const comp = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      comp.push(w);
    } while (w !== v);
    if (comp.length > 1) loops.push(comp.sort());
  }
}
for (const v of graph.keys()) if (!idx.has(v)) connect(v);

const violations = result.summary.violations ?? [];
for (const v of violations) console.error(`${v.rule.severity} ${v.rule.name}: ${v.from} -> ${v.to}`);
for (const loop of loops) console.error(`error folder-cycle: ${loop.join(" <-> ")}`);
const errors = violations.filter((v) => v.rule.severity === "error").length + loops.length;
console.log(`layers: ${result.summary.totalCruised} modules, ${graph.size} folders, ${violations.length} rule violations, ${loops.length} folder loops`);
process.exit(errors > 0 ? 1 : 0);
