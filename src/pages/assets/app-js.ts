// The dashboard's only client script, served at /assets/app.js: copy buttons, confirmation before
// destructive submits, auto-submitting selects, self-refresh of pages that wait on a queued job, and
// column labels for tables shown as cards on a phone.
// Everything works without it; it only saves clicks. No inline script anywhere (the CSP forbids it).
export const APP_JS = `
(function(){
  document.addEventListener("click", function(e){
    var b = e.target.closest("[data-copy]");
    if (!b) return;
    var text = b.getAttribute("data-copy");
    var done = function(){
      // The button's name changes too (its aria-label wins over its text), and the live region announces it.
      var old = b.textContent, oldLabel = b.getAttribute("aria-label");
      b.textContent = "Copied";
      if (oldLabel !== null) b.setAttribute("aria-label", "Copied");
      var live = document.getElementById("live-status");
      if (live) { live.textContent = ""; setTimeout(function(){ live.textContent = "Copied"; }, 50); }
      setTimeout(function(){ b.textContent = old; if (oldLabel !== null) b.setAttribute("aria-label", oldLabel); }, 1500);
    };
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
  // data-refresh-to names the address to load instead (a one-time flag in the query is dropped).
  if (r) setTimeout(function(){ var to = r.getAttribute("data-refresh-to"); if (to) location.replace(to); else location.reload(); }, Number(r.getAttribute("data-refresh-after")) * 1000);
  // Tables that turn into cards on a phone label each cell with its column; cells the server labelled keep theirs.
  document.querySelectorAll("table.stack").forEach(function(t){
    var heads = Array.prototype.map.call(t.querySelectorAll("thead th"), function(h){ return h.textContent.trim(); });
    t.querySelectorAll("tbody tr").forEach(function(row){
      Array.prototype.forEach.call(row.children, function(cell, i){ if (!cell.hasAttribute("data-label") && heads[i]) cell.setAttribute("data-label", heads[i]); });
    });
  });
})();
`;
