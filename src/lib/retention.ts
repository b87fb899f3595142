// How long history is kept (docs/decisions.md D15, docs/limits.md), shared by the services and the objects
// that purge it. No I/O.

/** A check and its diffs (in the domain's object), and a DKIM key after it was retired (D136, D139). */
export const HISTORY_DAYS = 400;
/** A check's full posture JSON; the newest posture is always kept (D136). */
export const POSTURE_DAYS = 30;
