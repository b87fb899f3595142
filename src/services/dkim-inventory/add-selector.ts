// POST /domains/{domain}/dkim/selectors: adds a manual selector (pending) and looks it up at once
// with the same transition rules as a check (events, DKIM alert). I/O: D1, one DNS TXT query, fan-out nudge.
import { sql } from "drizzle-orm";
import { checkSelector, isValidSelector } from "../../core/dkim";
import { dkimSelectors } from "../../db/schema";
import { validationFailed } from "../../lib/errors";
import type { Services } from "../../services";
import { openAlertKeys, upsertAlerts } from "../alerts/raise";
import { getDomainInTeam } from "../domains/get-domain";
import { auditWhen } from "../audit-when";
import { commit, commitAll } from "../commit";
import { buildEvent } from "../events/emit";
import { selectorView, type SelectorView } from "./present";
import { findSelector, keyHistory } from "./queries";
import { planSelector } from "./transition";
import { type ServiceContext, requireWrite } from "../context";

export interface AddedSelector {
  created: boolean;
  selector: SelectorView;
}

export async function addDkimSelector(svc: Services, ctx: ServiceContext, domainId: number, input: string): Promise<AddedSelector> {
  requireWrite(ctx);
  const { teamId } = ctx;
  const domain = await getDomainInTeam(svc, teamId, domainId);
  const selector = input.trim().toLowerCase();
  // RFC 6376 §3.1: a selector is a sub-domain (dot-separated labels).
  if (!isValidSelector(selector)) throw validationFailed({ selector: ["Must be a DNS label sequence of letters, digits, '-' or '_' (RFC 6376 §3.1)."] });

  const view = async (): Promise<SelectorView> => {
    const row = await findSelector(svc.db, domain.id, selector);
    if (!row) throw new Error("selector row vanished after insert");
    const history = await keyHistory(svc.db, [row.id]);
    return selectorView(row, domain.name, svc.clock.now(), { history: history.get(row.id) });
  };

  const now = svc.clock.now();
  // The insert alone decides 201 vs 200, so two concurrent adds never both report "added".
  // Its audit entry in the same batch, written only when the insert added the row (a repeat adds nothing).
  const [inserted] = await commit(svc, [
    svc.db
      .insert(dkimSelectors)
      .values({ domainId: domain.id, selector, source: "manual", status: "pending", health: "warning" })
      .onConflictDoNothing()
      .returning({ id: dkimSelectors.id }),
    auditWhen(
      svc,
      ctx,
      {
        verb: "dkim_selector.add",
        target: { type: "dkim_selector", id: `${selector}._domainkey.${domain.name}` },
        summary: `selector ${selector} added to ${domain.name}`,
      },
      { when: sql`changes() > 0` },
    ),
  ]);
  if (inserted.length === 0) return { created: false, selector: await view() };

  const row = await findSelector(svc.db, domain.id, selector);
  const entry = await checkSelector(domain.name, selector, svc.createResolver());
  // A temperror plans nothing: the selector stays pending until the next check.
  const plan = planSelector({ db: svc.db, domain, selector, row, entry, now, source: "manual" });
  const built = plan.events.map((e) => buildEvent(svc.db, e, now));
  const alerts = plan.alert ? upsertAlerts(svc.db, [plan.alert], now, await openAlertKeys(svc.db, domain.teamId, domain.id)) : { statements: [], eventIds: [] };
  await commitAll(svc, [...plan.statements, ...built.map((b) => b.statement), ...alerts.statements], [...built.map((b) => b.id), ...alerts.eventIds]);
  return { created: true, selector: await view() };
}
