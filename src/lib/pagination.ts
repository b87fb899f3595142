// Pagination query schema and the list `meta` (docs/decisions.md D3: default 25, max 200, out of range is 422).
import { z } from "@hono/zod-openapi";

export const PaginationQuery = z.object({
  page: z.coerce.number().int().min(1).default(1).openapi({ description: "Page number, from 1.", example: 1 }),
  per_page: z.coerce.number().int().min(1).max(200).default(25).openapi({ description: "Items per page, 1 to 200.", example: 25 }),
});
export type PaginationQuery = z.infer<typeof PaginationQuery>;

export const PageMeta = z
  .object({
    current_page: z.number().int(),
    per_page: z.number().int(),
    total: z.number().int(),
    last_page: z.number().int(),
  })
  .openapi("PageMeta");
export type PageMeta = z.infer<typeof PageMeta>;

export const pageMeta = (q: PaginationQuery, total: number): PageMeta => ({
  current_page: q.page,
  per_page: q.per_page,
  total,
  last_page: Math.max(1, Math.ceil(total / q.per_page)),
});

export const pageOffset = (q: PaginationQuery) => (q.page - 1) * q.per_page;
