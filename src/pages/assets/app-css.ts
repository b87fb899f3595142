// The dashboard's one stylesheet, served at /assets/app.css (src/pages/assets/serve.ts). Kept as a
// module so the Worker needs no asset pipeline or build step.
export const APP_CSS = `
:root{--bg:#f6f7f9;--panel:#fff;--ink:#1b1f24;--muted:#5b6571;--line:#d9dee4;--brand:#1d4ed8;--brand-ink:#fff;
--ok:#166534;--ok-bg:#dcfce7;--warn:#854d0e;--warn-bg:#fef9c3;--bad:#991b1b;--bad-bg:#fee2e2;--info-bg:#e0e7ff;--radius:8px;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--ink);background:var(--bg)}
*{box-sizing:border-box}body{margin:0;line-height:1.5;font-size:16px}
a{color:var(--brand)}a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible,summary:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:var(--panel);padding:.5rem 1rem;z-index:10}.skip:focus{left:.5rem}
header.top{background:#0f172a;color:#e2e8f0;display:flex;flex-wrap:wrap;align-items:center;gap:.75rem 1.25rem;padding:.6rem 1.25rem}
header.top a{color:#e2e8f0;text-decoration:none}header.top .brand{font-weight:700;font-size:1.05rem;color:#fff}
header.top nav ul{display:flex;flex-wrap:wrap;gap:.25rem .9rem;list-style:none;margin:0;padding:0}
header.top nav a[aria-current=page]{color:#fff;text-decoration:underline;text-underline-offset:4px}
header.top .who{margin-left:auto;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem}
header.top select,header.top button{font:inherit;font-size:.9rem}header.top select{width:auto;max-width:16rem}
main{max-width:1100px;margin:0 auto;padding:1.25rem}
h1{font-size:1.6rem;margin:.25rem 0 1rem}h2{font-size:1.2rem;margin:1.5rem 0 .6rem}
.panel{background:var(--panel);border:1px solid var(--line);border-radius:var(--radius);padding:1rem 1.25rem;margin:0 0 1rem}
.narrow{max-width:460px;margin:3rem auto}
label{display:block;font-weight:600;margin:.6rem 0 .25rem}
input[type=text],input[type=email],input[type=url],input[type=number],input[type=password],select,textarea{width:100%;font:inherit;padding:.5rem .6rem;border:1px solid #8a94a0;border-radius:6px;background:#fff;color:var(--ink)}
textarea{min-height:8rem;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem}
fieldset{border:1px solid var(--line);border-radius:6px;padding:.5rem .9rem .75rem;margin:.75rem 0 1rem}fieldset label{font-weight:400}legend{font-weight:600;padding:0 .3rem}
.row{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end}.row>*{flex:1 1 12rem}
button,.button{display:inline-block;font:inherit;font-weight:600;padding:.5rem .9rem;border-radius:6px;border:1px solid var(--brand);background:var(--brand);color:var(--brand-ink);cursor:pointer;text-decoration:none;min-height:2.5rem}
button.secondary,.button.secondary{background:#fff;color:var(--brand)}button.danger{background:#b91c1c;border-color:#b91c1c}
button.link{background:none;border:none;color:inherit;text-decoration:underline;padding:0;min-height:auto;font-weight:400}
form.inline{display:inline}.inline-label{display:inline;margin:0 .35rem 0 0;font-weight:400;font-size:.85rem}
table{width:100%;border-collapse:collapse;font-size:.95rem}th,td{text-align:left;padding:.5rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.85rem;color:var(--muted);font-weight:600}
.table-wrap{overflow-x:auto}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.88rem}
pre{background:#0f172a;color:#e2e8f0;padding:.75rem;border-radius:6px;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.muted{color:var(--muted)}.small{font-size:.85rem}
.notice{border-radius:6px;padding:.6rem .9rem;margin:0 0 1rem;border:1px solid}
.notice.ok{background:var(--ok-bg);color:var(--ok);border-color:#86efac}.notice.bad{background:var(--bad-bg);color:var(--bad);border-color:#fca5a5}
.notice.info{background:var(--info-bg);border-color:#a5b4fc}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:999px;font-size:.8rem;font-weight:600;background:#e5e7eb;color:#1f2937}
.badge.ok{background:var(--ok-bg);color:var(--ok)}.badge.warn{background:var(--warn-bg);color:var(--warn)}.badge.bad{background:var(--bad-bg);color:var(--bad)}
.grade{display:inline-flex;align-items:center;justify-content:center;width:2.2rem;height:2.2rem;border-radius:6px;font-weight:800;color:#fff;background:#6b7280}
.grade.A{background:#15803d}.grade.B{background:#4d7c0f}.grade.C{background:#a16207}.grade.D{background:#c2410c}.grade.F{background:#b91c1c}
.secret{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}.secret code{background:#fff7ed;border:1px dashed #fb923c;padding:.35rem .5rem;border-radius:6px;word-break:break-all}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));gap:1rem}
.stat{font-size:1.6rem;font-weight:700}
.chart{margin:0 0 1rem}.chart svg{width:100%;height:200px;display:block;background:#fff;border:1px solid var(--line);border-radius:6px}
.chart .grid{stroke:#e5e7eb;stroke-width:1}.chart .tick{font-size:11px;fill:#4b5563}.chart .line{fill:none;stroke:var(--brand);stroke-width:2}.chart .dot{fill:var(--brand)}
.chart .bar.pass{fill:#16a34a}.chart .bar.fail{fill:#dc2626}.chart .bar.neutral{fill:#6b7280}.chart figcaption{font-size:.9rem;color:var(--muted);margin:.35rem 0}
.legend{display:inline-block;margin-left:.6rem}.legend::before{content:"";display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;border-radius:2px;vertical-align:-1px;background:#6b7280}.legend.pass::before{background:#16a34a}.legend.fail::before{background:#dc2626}
.title-row{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.75rem}.title-row h1{margin:.25rem 0}
.copyable{display:flex;gap:.5rem;align-items:flex-start;margin:.25rem 0}.copyable code{flex:1 1 auto;min-width:0;background:#f1f5f9;border:1px solid var(--line);padding:.3rem .5rem;border-radius:6px;word-break:break-all;white-space:pre-wrap}
button.small-button{min-height:2.25rem;padding:.3rem .7rem;font-size:.85rem;flex:0 0 auto}
ul.plain{list-style:none;margin:0;padding:0}.wrap{word-break:break-all}h1,h2,h3{overflow-wrap:anywhere}a.button{overflow-wrap:anywhere;max-width:100%}
dl.fields{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;margin:.5rem 0}dl.fields dt{font-weight:600;color:var(--muted)}dl.fields dd{margin:0;min-width:0}
dl.fields.compact{font-size:.9rem;gap:.2rem .8rem}.pairs{display:inline}.pair{display:inline-block;margin-right:.75rem}
.parts{display:grid;gap:1rem}.part{border:1px solid var(--line);border-radius:6px;padding:.75rem 1rem}.part h3{margin:0 0 .5rem;font-size:1.05rem}
ul.findings{margin:.5rem 0 0;padding-left:1.1rem}ul.findings li{margin:.35rem 0}.fix{margin:.25rem 0 0}
ol.fix-list{padding-left:1.2rem}ol.fix-list li{margin:0 0 1rem}
ol.timeline{list-style:none;margin:0;padding:0;border-left:3px solid var(--line)}ol.timeline li{padding:.4rem 0 .6rem .9rem}
.pager{display:flex;gap:1rem;align-items:center;margin-top:.75rem}
.tabs{display:flex;gap:.25rem;flex-wrap:wrap;margin:0 0 1rem;border-bottom:1px solid var(--line)}.tabs a{padding:.45rem .9rem;border:1px solid transparent;border-bottom:none;border-radius:6px 6px 0 0;text-decoration:none}.tabs a[aria-current=page]{border-color:var(--line);background:var(--panel);font-weight:600}
.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end;margin:0 0 .75rem}.filters>div{flex:0 1 12rem}
pre.payload{color:#111827;white-space:pre-wrap;word-break:break-all;max-height:28rem;overflow:auto;background:#f8fafc;border:1px solid var(--line);border-radius:6px;padding:.6rem}
.checks{display:grid;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));gap:.25rem .75rem;border:none;padding:0;margin:0 0 .75rem}.checks label{display:flex;gap:.4rem;align-items:center;font-weight:400}
.break,.change strong{overflow-wrap:anywhere}
.stat-row{display:flex;flex-wrap:wrap;gap:1rem}.stat-row>div{flex:1 1 9rem}.stat-row strong{display:block;font-size:1.4rem}
.danger-zone{border-color:#fca5a5}.narrow-left{max-width:560px}
.result-list{display:grid;gap:1rem}
.stat-row strong.small-stat{font-size:1rem;padding:.3rem 0}
.alert-guide{margin:.25rem 0}.alert-guide .badge{margin-right:.25rem}ul.alert-latest li{margin:0 0 .9rem}
@media (max-width:640px){dl.fields{grid-template-columns:1fr}dl.fields dt{margin-top:.3rem}}
.chart .dots{fill:none;stroke:var(--brand);stroke-width:7;stroke-linecap:round}.chart .plot{display:grid;grid-template-columns:auto minmax(0,1fr);column-gap:.4rem}
.chart .y-axis{display:flex;flex-direction:column;justify-content:space-between;align-items:flex-end;height:200px;font-size:.75rem;line-height:16px;color:#4b5563}
.chart .x-axis{grid-column:2;display:flex;justify-content:space-between;gap:.5rem;font-size:.75rem;color:#4b5563;padding-top:.2rem}
button:disabled,button.pending{background:#f3f4f6;color:#374151;border:1px dashed #6b7280;cursor:not-allowed}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
details.part>summary{cursor:pointer;padding:.1rem 0}details.part .part-name{font-weight:600}details.part[open]>summary{margin-bottom:.5rem}
details.more>summary{cursor:pointer;margin:.5rem 0}ol.timeline .change-values{margin:.25rem 0 0}
.domain-stats{align-items:flex-start}.domain-stats span{display:block}
fieldset.events{min-width:0}.event-groups{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(19rem,100%),1fr));gap:.75rem}.event-groups fieldset{margin:0;min-width:0}
.events label{display:flex;gap:.45rem;align-items:flex-start;margin:.3rem 0}.events label input{margin-top:.3rem}.events code{font-size:.75rem;color:var(--muted)}
.field-error{color:var(--bad);font-weight:600;margin:.25rem 0}input[aria-invalid=true]{border-color:var(--bad)}
@media (max-width:600px){fieldset.events,.event-groups fieldset{padding:.4rem .6rem .6rem}table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.stack,table.stack tbody,table.stack tr{display:block;width:100%}table.stack tr{border:1px solid var(--line);border-radius:6px;margin:0 0 .75rem;padding:.3rem .6rem}
table.stack td{display:block;position:relative;border:none;padding:.3rem 0 .3rem 40%;min-height:1.8rem;overflow-wrap:anywhere}
table.stack td[data-label]::before{content:attr(data-label);position:absolute;left:0;top:.35rem;width:37%;font:600 .85rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--muted)}table.stack td:not([data-label]){padding-left:0}}
.logo-preview{display:flex;flex-wrap:wrap;gap:1.5rem;align-items:flex-end}.logo-preview figure{margin:0;text-align:center}.logo-preview img{display:block;width:40px;height:40px;background:#fff;border:1px solid var(--line);object-fit:contain}.logo-preview img.large{width:96px;height:96px}.logo-preview img.circle{border-radius:50%}.logo-preview img.square{border-radius:18%}
footer{max-width:1100px;margin:2rem auto;padding:0 1.25rem;color:var(--muted);font-size:.85rem}
@media (max-width:640px){main{padding:.75rem}header.top{padding:.6rem .75rem}header.top .who{margin-left:0;width:100%}th,td{padding:.4rem .3rem}h1{font-size:1.35rem}}
`;
