// Realistic test mail for the DKIM benchmarks: varied prose with mixed line lengths, trailing
// whitespace and runs of spaces and tabs, folded headers, and a MIME multipart with a text part, an
// HTML part and base64 attachments (76-character lines, as MUAs write them). Deterministic: the
// same size and seed always give the same bytes, so both verifiers see identical input.

const WORDS = (
  "the quarterly report shows revenue growth across every region although shipping costs rose " +
  "sharply in march please find attached the updated forecast and the signed contract we should " +
  "meet on thursday to review the numbers before the board call regards from the finance team " +
  "invoice payment overdue reminder schedule delivery warehouse inventory customer support ticket"
).split(" ");

function prng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/** Prose lines of 0 to 140 characters: some empty, some with trailing spaces/tabs or inner runs of WSP. */
function prose(rand, bytes) {
  const lines = [];
  let size = 0;
  while (size < bytes) {
    const r = rand();
    let line = "";
    if (r < 0.08) line = "";
    else {
      const target = r < 0.3 ? 10 + Math.floor(rand() * 30) : 40 + Math.floor(rand() * 100);
      while (line.length < target) {
        const w = WORDS[Math.floor(rand() * WORDS.length)];
        const sep = rand() < 0.05 ? "  " : rand() < 0.02 ? "\t" : " ";
        line += line === "" ? w : sep + w;
      }
      if (rand() < 0.15) line += rand() < 0.5 ? "   " : " \t";
    }
    lines.push(line);
    size += line.length + 2;
  }
  return lines;
}

function base64Lines(rand, bytes) {
  const raw = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) raw[i] = Math.floor(rand() * 256);
  return raw.toString("base64").match(/.{1,76}/g);
}

/**
 * A message of about `bytes` octets (CRLF line ends). Small messages are plain text; from 8 KB up the
 * body is multipart/mixed with text, HTML and base64 parts (about a third prose, two thirds base64).
 */
export function realisticMessage(bytes, { domain = "bench.example", seed = 7 } = {}) {
  const rand = prng(seed + bytes);
  const head = [
    `From: "Alice Example" <alice@${domain}>`,
    "To: Bob <bob@example.net>,\r\n Carol <carol@example.org>,\r\n\tDave <dave@example.com>",
    "Subject: Quarterly numbers and the updated forecast for the regional\r\n teams, with attachments",
    "Date: Sun, 01 Mar 2026 11:59:00 +0000",
    `Message-ID: <20260301115900.4711.bench@${domain}>`,
    "MIME-Version: 1.0",
  ];
  if (bytes < 8 * 1024) {
    head.push("Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 7bit");
    const body = prose(rand, bytes - head.join("\r\n").length - 4);
    return `${head.join("\r\n")}\r\n\r\n${body.join("\r\n")}\r\n`;
  }
  const boundary = "----=_Part_4711_1234567890.1772366340000";
  head.push(`Content-Type: multipart/mixed;\r\n\tboundary="${boundary}"`);
  const textBytes = Math.floor(bytes / 4);
  const htmlBytes = Math.floor(bytes / 12);
  const attach = Math.floor(((bytes - textBytes - htmlBytes) * 3) / 4 / 2); // two attachments, base64 grows by 4/3
  const parts = [
    "This is a multi-part message in MIME format.",
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=utf-8",
    "Content-Transfer-Encoding: 7bit",
    "",
    ...prose(rand, textBytes),
    `--${boundary}`,
    "Content-Type: text/html; charset=utf-8",
    "Content-Transfer-Encoding: 7bit",
    "",
    "<html><body>",
    ...prose(rand, htmlBytes).map((l) => `<p>${l}</p>`),
    "</body></html>",
  ];
  for (const [name, type] of [
    ["forecast.pdf", "application/pdf"],
    ["numbers.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"],
  ]) {
    parts.push(
      `--${boundary}`,
      `Content-Type: ${type};\r\n name="${name}"`,
      "Content-Transfer-Encoding: base64",
      `Content-Disposition: attachment;\r\n filename="${name}"`,
      "",
      ...base64Lines(rand, attach),
    );
  }
  parts.push(`--${boundary}--`, "", "");
  return `${head.join("\r\n")}\r\n\r\n${parts.join("\r\n")}`;
}
