// The dashboard's only client script, served at /assets/app.js: copy buttons, confirmation before
// destructive submits, auto-submitting selects and self-refresh of pages that wait on a queued job.
// Everything works without it; it only saves clicks. No inline script anywhere (the CSP forbids it).
export const APP_JS = `
(function(){
  document.addEventListener("click", function(e){
    var b = e.target.closest("[data-copy]");
    if (!b) return;
    var text = b.getAttribute("data-copy");
    var done = function(){ var old = b.textContent; b.textContent = "Copied"; setTimeout(function(){ b.textContent = old; }, 1500); };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, function(){});
    else { var t = document.createElement("textarea"); t.value = text; document.body.appendChild(t); t.select(); try { document.execCommand("copy"); done(); } catch (x) {} t.remove(); }
  });
  document.addEventListener("submit", function(e){
    var f = e.target;
    var msg = f.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) e.preventDefault();
  });
  document.addEventListener("change", function(e){
    var s = e.target.closest("select[data-autosubmit]");
    if (s && s.form) s.form.requestSubmit ? s.form.requestSubmit() : s.form.submit();
  });
  var r = document.querySelector("[data-refresh-after]");
  if (r) setTimeout(function(){ location.reload(); }, Number(r.getAttribute("data-refresh-after")) * 1000);
})();
`;
