// The DKIM posture part: its state comes from the caller's selector inventory (no lookup here), so it
// carries a weight and findings but no record view; selector changes are the inventory's own events. No I/O.
import { definePart } from "../part/types";

export const dkimPart = definePart({
  id: "dkim",
  label: "DKIM",
  weight: 15,
  recordEvent: false,
  // A null-MX domain sends no mail either (RFC 7505 §4), so a missing key is not_applicable there
  // (docs/scoring.md §2), like the receiving-side parts.
  inbound: { parkedRules: [] },
  removal: "High",
  recordChange: "Medium",
  run: async (ctx) => ctx.settings.dkim ?? null,
  scored: (d) => d?.status ?? null,
  findings: (d) => d?.findings ?? [],
  // The inventory keeps its own history; the stored snapshot gets the DKIM status from the check runner.
  snapshot: () => null,
  fieldSeverity: (field, before, after) => (field.startsWith("selector:") ? (after === null ? "Medium" : before === null ? "Info" : "Medium") : undefined),
});
