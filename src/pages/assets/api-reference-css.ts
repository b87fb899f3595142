// The API reference's stylesheet (/api/v1/docs), served as an asset like the dashboard's so that the
// page needs no inline style under the one CSP (docs/decisions.md D149).
export const API_REFERENCE_CSS = `body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1b1f24;background:#fff}
main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:1.6rem}h2{border-bottom:1px solid #d0d7de;padding-bottom:.3rem;margin-top:2.5rem}
.op{border:1px solid #d0d7de;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}
.method{display:inline-block;min-width:4.2rem;font-weight:700}.get{color:#0550ae}.post{color:#116329}.patch{color:#7d4e00}.delete{color:#a40e26}
table{border-collapse:collapse;width:100%;margin:.5rem 0;display:block;overflow-x:auto}th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
caption{text-align:left;font-weight:600}code{font-family:ui-monospace,monospace;font-size:.9em}.muted{color:#57606a}
nav ul{columns:2;padding-left:1.2rem}a{color:#0550ae}main{overflow-wrap:anywhere}
@media (max-width:40rem){nav ul{columns:1}.op{padding:.5rem}}`;
