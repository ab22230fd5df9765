/* A table wider than its box scrolls sideways inside it (site.css, .table-wrap); this says
   so: a line above the table ("Scroll sideways ...") and the edge where columns are hidden
   faded (data-scrolls: right, left or both). Tables drawn later (a tournament's live
   standings) are seen too. Without it the tables still scroll; they only do not say so. */
(function () {
  "use strict";

  var CUE = "Scroll the table sideways for more columns \u2192";

  function cueOf(wrap) {
    var cue = wrap.previousElementSibling;
    if (!cue || !cue.classList.contains("scroll-cue")) {
      cue = document.createElement("p");
      cue.className = "scroll-cue";
      cue.textContent = CUE;
      wrap.parentNode.insertBefore(cue, wrap);
    }
    return cue;
  }

  function update(wrap) {
    var hidden = wrap.scrollWidth - wrap.clientWidth;
    var cue = cueOf(wrap);
    cue.hidden = hidden <= 1;
    if (hidden <= 1) { wrap.removeAttribute("data-scrolls"); return; }
    var left = wrap.scrollLeft > 1, right = wrap.scrollLeft < hidden - 1;
    wrap.setAttribute("data-scrolls", left && right ? "both" : left ? "left" : "right");
  }

  function watch(wrap) {
    if (wrap.hasAttribute("data-watched")) { update(wrap); return; }
    wrap.setAttribute("data-watched", "");
    wrap.addEventListener("scroll", function () { update(wrap); }, { passive: true });
    update(wrap);
  }

  function all() { document.querySelectorAll(".table-wrap").forEach(watch); }

  var pending = false;
  function soon() {
    if (pending) { return; }
    pending = true;
    window.requestAnimationFrame(function () { pending = false; all(); });
  }

  all();
  window.addEventListener("resize", soon);
  if (window.MutationObserver) {
    new MutationObserver(soon).observe(document.body, { childList: true, subtree: true });
  }
})();
