// The posture parts, in the order findings, views and fixes list them. The check runner, diff, scoring,
// fixes, the stored posture and the OpenAPI schemas of records all read this list (docs/architecture.md
// "Posture parts"): a new part is one module in its own folder and one line here.
import { bimiPart } from "../bimi/part";
import { danePart } from "../dane/part";
import { dmarcPart } from "../dmarc/part";
import { blacklistPart } from "../dnsbl/part";
import { mtaStsPart } from "../mta-sts/part";
import { mxPart } from "../mx/part";
import type { AnyPart, BaseView, Part, ResultOf } from "../part/types";
import { spfPart } from "../spf/part";
import { tlsRptPart } from "../tls-rpt/part";
import { dkimPart } from "./dkim-part";

export const PARTS = [spfPart, dmarcPart, mxPart, bimiPart, mtaStsPart, tlsRptPart, danePart, dkimPart, blacklistPart] as const;

type AnyOf = (typeof PARTS)[number];
export type PostureCategory = AnyOf["id"];
export const CATEGORIES: readonly PostureCategory[] = PARTS.map((p) => p.id);

type ViewOf<P> = P extends Part<string, infer _R, infer V> ? V : never;
/** Every part's complete result, by id (the SPF tree, the DMARC discovery, the MTA-STS policy, ...). */
export type PartResults = { [P in AnyOf as P["id"]]: ResultOf<P> };
/** The record views (records.<id>) of the parts that have one. */
export type RecordViews = { [P in AnyOf as ViewOf<P> extends BaseView ? P["id"] : never]: ViewOf<P> };

const byId = new Map<string, AnyPart>(PARTS.map((p) => [p.id, p]));
export const partOf = (id: PostureCategory): AnyPart => byId.get(id) as AnyPart;

/** The parts with a DNS record view of their own (records.<id> in every posture). */
export const RECORD_PARTS: readonly AnyPart[] = PARTS.filter((p) => p.view !== undefined);
