// Input schemas of the stateless DKIM tools (verify, generate, lookup), shared by every face that calls them. No I/O.
import { z } from "@hono/zod-openapi";

export const VerifyBody = z
  .object({
    message: z
      .string()
      .min(1)
      .openapi({ description: "The raw RFC 5322 message, headers and body, CRLF or LF line ends; at most 1 MB (1,048,576 bytes in UTF-8)." }),
  })
  .openapi("DkimVerifyRequest", {
    example: { message: "DKIM-Signature: v=1; a=ed25519-sha256; ...\r\nFrom: Joe SixPack <joe@football.example.com>\r\n...\r\n\r\nHi.\r\n" },
  });

export const KEY_ALGORITHMS = ["rsa-2048", "rsa-1024", "rsa-4096", "ed25519"] as const;

export const GenerateBody = z
  .object({
    domain: z.string().min(1).max(300),
    selector: z.string().min(1).max(253),
    algorithm: z.enum(KEY_ALGORITHMS).default("rsa-2048"),
  })
  .openapi("DkimGenerateRequest", { example: { domain: "example.com", selector: "mail2026", algorithm: "ed25519" } });

export const LookupQuery = z.object({
  domain: z
    .string()
    .min(1)
    .max(300)
    .openapi({ param: { name: "domain", in: "query" }, example: "example.com" }),
  selector: z
    .string()
    .max(253)
    .optional()
    .openapi({
      param: {
        name: "selector",
        in: "query",
        description: "One selector. May be combined with selectors: the two are merged (at most 20 distinct names in all).",
      },
      example: "s1",
    }),
  selectors: z
    .string()
    .max(6000)
    .optional()
    .openapi({
      param: {
        name: "selectors",
        in: "query",
        description:
          "Comma-separated selectors, up to 20. Omit both selector and selectors to scan the common selectors of major providers (those suggested by the domain's MX and SPF first).",
      },
      example: "s1,s2,google",
    }),
});
