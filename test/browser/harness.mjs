// The browser suite's harness: an isolated `wrangler dev` (own port and state, DEV_OUTBOX on, DNS from
// a local DNS-over-HTTPS server), Debian's Chromium driven by playwright-core, sign-in through the
// dev outbox as a person would, screenshots at desktop and phone widths, and an axe-core check that
// fails on serious or critical violations. Loopback only. Used by every test/browser/*.browser.mjs.
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import AxeBuilder from "@axe-core/playwright";
import { chromium } from "playwright-core";
import { startDevServer } from "../../bench/lib/dev-server.mjs";
import { startDohServer } from "../../bench/lib/doh-server.mjs";

export const SCREENSHOTS = "test-output/screenshots";
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };

/** Starts everything a browser flow needs; `stop()` ends it all. */
export async function startStack({ port, zone = {}, vars = {} }) {
  const doh = await startDohServer({ zone, delayMs: 0 });
  const hooks = [];
  const receiver = createServer((req, res) => {
    const parts = [];
    req.on("data", (d) => parts.push(d));
    req.on("end", () => {
      hooks.push({ headers: req.headers, body: Buffer.concat(parts).toString("utf8") });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
  const server = await startDevServer({ port, vars: { DEV_OUTBOX: "true", DOH_RESOLVERS: doh.url, ...vars } });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // As root in CI, and with no network beyond loopback: no sandbox, no background connections.
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    url: server.url,
    server,
    doh,
    hooks,
    receiverUrl: `http://127.0.0.1:${receiver.address().port}/hook`,
    browser,
    /** A fresh browser profile (its own cookies), as a different person. */
    async person() {
      const context = await browser.newContext({ viewport: VIEWPORTS.desktop, baseURL: server.url });
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      page.on("pageerror", (e) => {
        throw new Error(`script error on ${page.url()}: ${e.message}`);
      });
      return { context, page };
    },
    async stop() {
      await browser.close().catch(() => undefined);
      await server.stop();
      await doh.stop();
      await new Promise((r) => receiver.close(r));
    },
  };
}

/** Signs in through the form and the link in the dev outbox, as a person reading their mail would. */
export async function signIn(page, email) {
  await page.goto("/sign-in");
  // Exact: the sign-in page also has "Work email address" (Sign in with SSO).
  await page.getByLabel("Email address", { exact: true }).fill(email);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await page.getByRole("heading", { name: "Check your email" }).waitFor();
  await openMailLink(page, email);
  await page.getByRole("button", { name: /^(Sign in|Accept and sign in)$/ }).click();
  await page.waitForURL((u) => !u.pathname.startsWith("/auth/"));
}

/** Adds `domain` on the form as a person would, publishes its ownership record in the local DNS and verifies
 *  it; returns the domain page's path. The page is left on the verified notice. */
export async function addVerifiedDomain(page, doh, domain) {
  await page.goto("/domains/new");
  await page.getByLabel("Domain name").fill(domain);
  await page.getByRole("button", { name: "Add domain" }).click();
  await page.getByText("Publish this TXT record").waitFor();
  const value = await page.locator("dd code").nth(2).textContent();
  doh.set(`_emailauth-verify.${domain}`, { TXT: [value] });
  await page.getByRole("button", { name: "Verify now" }).click();
  await page.getByText("Ownership verified.").waitFor();
  return new URL(page.url()).pathname.replace(/\/verify$/, "");
}

/** Opens the newest link mailed to `email` from the dev outbox. */
export async function openMailLink(page, email) {
  await page.goto("/dev/outbox");
  const mail = page.locator("article.mail", { has: page.locator(".mail-to", { hasText: email }) }).first();
  await mail.locator("a.mail-link").click();
}

/** Full-page screenshots at desktop and phone widths; returns their paths. */
export async function shoot(page, name) {
  const paths = [];
  for (const [label, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    const path = `${SCREENSHOTS}/${name}-${label}.png`;
    await page.screenshot({ path, fullPage: true });
    paths.push(path);
    // Nothing may overflow sideways at phone width (a page that scrolls horizontally is broken there).
    if (label === "phone") {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      if (overflow > 1) {
        // Name the innermost elements that stick out, so the fix is obvious from the failure alone.
        const culprits = await page.evaluate(() => {
          const width = document.documentElement.clientWidth;
          return [...document.querySelectorAll("body *")]
            .filter((el) => el.getBoundingClientRect().right > width + 1 && ![...el.children].some((c) => c.getBoundingClientRect().right > width + 1))
            .slice(0, 3)
            .map(
              (el) =>
                `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(" ").join(".")}` : ""} "${(el.textContent ?? "").trim().slice(0, 40)}"`,
            );
        });
        throw new Error(`${name}: the page is ${overflow}px wider than a phone screen: ${culprits.join("; ")}`);
      }
    }
  }
  await page.setViewportSize(VIEWPORTS.desktop);
  return paths;
}

/** axe-core on the current page: throws on any serious or critical violation, listing them. */
export async function axe(page, name) {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  if (bad.length > 0) {
    const lines = bad.map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} (${v.nodes
          .map((n) => n.target.join(" "))
          .slice(0, 3)
          .join(", ")})`,
    );
    throw new Error(`${name}: accessibility violations\n${lines.join("\n")}`);
  }
  return result.violations.length;
}

/** Screenshots and accessibility in one call, for every page a flow visits. */
export async function look(page, name) {
  await shoot(page, name);
  await axe(page, name);
}
