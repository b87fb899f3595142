/// <reference types="vite/client" />
// Runs the suite's files in a few groups instead of one pool runner each (docs/testing.md "Time"):
// starting a runner (a fresh isolate that loads the Worker's whole module graph) costs about 2 s per
// file, more than most files' tests. Each file is imported inside its own describe block, so its
// top-level hooks stay scoped to its own tests; storage is shared within a group as it already was
// within a file (names in tests are unique for that reason).
import { describe } from "vitest";
import { SOLO_FILES } from "./solo";

const files = import.meta.glob(["../**/*.test.ts", "../../src/**/*.test.ts", "!../node/**", "!./**"]);

const alone = new Set(SOLO_FILES.map((p) => p.replace(/^test\//, "")));
const relative = (path: string) => path.replace(/^(\.\.\/)+/, "").replace(/^test\//, "");

/** Files are dealt round-robin in path order, so each group takes some of every folder. */
export function runGroup(index: number, count: number): void {
  const known = new Set(Object.keys(files).map(relative));
  const missing = [...alone].filter((f) => !known.has(f));
  // A solo file that was renamed would otherwise run nowhere.
  if (missing.length > 0) throw new Error(`test/groups/solo.ts names files that do not exist: ${missing.join(", ")}`);
  Object.keys(files)
    .filter((path) => !alone.has(relative(path)))
    .sort()
    .forEach((path, i) => {
      if (i % count !== index) return;
      const load = files[path];
      if (load) describe(path.replace(/^(\.\.\/)+/, ""), async () => void (await load()));
    });
}
