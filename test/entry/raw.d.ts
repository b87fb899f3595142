// Vite's ?raw imports (a file's text): the entry tests read wrangler.toml with them.
declare module "*?raw" {
  const text: string;
  export default text;
}
