// The one commit path (docs/architecture.md "Writes"): the statements of a change and its outbox
// events land in ONE D1 batch (one transaction), and only after it commits are the events nudged
// onto the deliveries queue. Does I/O (D1, Queues).
import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import type { Services } from "../services";
import { sealAfterCommit } from "./audit/seal";
import { publishEvents } from "./events/emit";

export type Statement = BatchItem<"sqlite">;
type Statements = Readonly<[Statement, ...Statement[]]>;

/** Event ids to publish, or a function of the batch's results (e.g. only when a guarded update hit a row). */
export type Publish<T extends Statements> = readonly (string | null)[] | ((results: BatchResponse<T>) => readonly (string | null)[]);

/** A fixed list of statements: typed results, one per statement. */
export async function commit<T extends Statements>(svc: Services, statements: T, publish: Publish<T> = []): Promise<BatchResponse<T>> {
  const results = await svc.db.batch(statements);
  const ids = typeof publish === "function" ? publish(results) : publish;
  await publishEvents(
    svc,
    ids.filter((id): id is string => id !== null),
  );
  // A batch that wrote audit entries seals them now, so a reader sees them chained (docs/decisions.md D231).
  await sealAfterCommit(svc, statements);
  return results;
}

/** A list built at run time (possibly empty): results are untyped, and nothing is sent when there is nothing to write. */
export async function commitAll(svc: Services, statements: readonly Statement[], publish: readonly (string | null)[] = []): Promise<unknown[]> {
  const [first, ...rest] = statements;
  if (first === undefined) return [];
  return commit(svc, [first, ...rest], publish);
}
