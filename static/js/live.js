/* Live updates by polling the API: a running tournament's progress and standings, and an
   uploaded version's check. Plain fetch, no dependencies; pages work without it. */
(function () {
  "use strict";

  var POLL_MS = 3000;

  function text(id, value) {
    var node = document.getElementById(id);
    if (node) { node.textContent = value; }
  }

  function getJSON(url) {
    return fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) {
        return response.json().then(function (body) {
          if (!response.ok) { throw new Error(body.detail || "the server answered " + response.status); }
          return body;
        });
      });
  }

  /* --- A tournament's progress bar and standings ------------------------------------------ */

  function refreshBody(box) {
    /* The crosstable, standings and bracket as the server draws them now. */
    return fetch(box.getAttribute("data-page") + "?part=live", { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) { throw new Error("the server answered " + response.status); }
        return response.text();
      })
      .then(function (html) { document.getElementById("t-body").innerHTML = html; });
  }

  function watchTournament(box) {
    var url = box.getAttribute("data-poll") || box.getAttribute("data-url");
    var lastStatus = box.getAttribute("data-status");
    if (lastStatus !== "running" && lastStatus !== "open") { return; }
    var timer = setInterval(function () {
      getJSON(url).then(function (t) {
        var bar = document.getElementById("t-progress");
        bar.max = t.progress.total;
        bar.value = t.progress.done;
        text("t-count", t.progress.done + " of " + t.progress.total + " matches played");
        text("t-status", t.status);
        document.getElementById("t-status").className = "status status-" + t.status;
        var changed = String(t.progress.done) !== box.getAttribute("data-done") ||
          t.status !== box.getAttribute("data-status");
        box.setAttribute("data-done", String(t.progress.done));
        box.setAttribute("data-status", t.status);
        if (t.status !== "open") {  // entry closed: no Enter or Cancel any more
          ["entry", "cancel-form"].forEach(function (id) {
            var node = document.getElementById(id);
            if (node) { node.style.display = "none"; }
          });
        }
        if (t.status !== "running" && t.status !== "open") { clearInterval(timer); text("t-live", ""); }
        if (changed) { return refreshBody(box); }
      }).catch(function (error) { text("t-live", "live updates paused: " + error.message); });
    }, POLL_MS);
  }

  /* --- An upload and its check ------------------------------------------------------------- */

  // The API's status values, in the bot page's words (a person reads these).
  var STATUS_WORDS = { pending: "being checked", checking: "being checked", active: "checked",
                       rejected: "rejected" };

  function showVerdict(panel, v) {
    panel.hidden = false;
    panel.setAttribute("data-status", v.status);
    text("u-status", STATUS_WORDS[v.status] || v.status);
    document.getElementById("u-status").className = "status status-" + v.status;
    text("u-version", "version " + v.number + " (" + v.filename + ")");
    var steps = { pending: 1, checking: 2, active: 3, rejected: 3 };
    document.getElementById("u-progress").value = steps[v.status] || 0;
    var summary = v.check_summary, detail = "";
    if (v.status === "pending") { detail = "Waiting for a worker to run the check match\u2026"; }
    if (v.status === "checking") { detail = "Playing a short sandboxed match against builtin:random\u2026"; }
    if (v.status === "active") {
      // As the bot page says it (ladder.selectors.bot_ladder_wait): the ladder takes a new
      // version at its next scheduling round, not at once.
      detail = "Passed: it played without a fault" + (summary ? " (" + summary.words +
        " in " + summary.seconds + " s)" : "") + ". Version " + v.number + " plays from now on: it " +
        "joins the ladder at its next scheduling round (every 10 s); the bot's page says when its " +
        "first rated match is queued.";
    }
    if (v.status === "rejected") { detail = "Rejected: " + v.reason; }
    text("u-detail", detail);
    if (v.check_stderr) {
      document.getElementById("u-stderr").hidden = false;
      text("u-stderr-text", v.check_stderr);
    }
    return v.status === "active" || v.status === "rejected";
  }

  function pollVersion(panel, id) {
    getJSON("/api/v1/versions/" + id + "/").then(function (v) {
      if (!showVerdict(panel, v)) { setTimeout(function () { pollVersion(panel, id); }, 1000); }
    }).catch(function (error) {
      text("u-detail", "Could not follow the check: " + error.message + " (reload the bot page)");
    });
  }

  function watchUpload(form) {
    var input = form.querySelector("input[type=file]"), zone = document.getElementById("drop-zone");
    var panel = document.getElementById("upload-progress");
    var chosen = function () { text("drop-name", input.files.length ? input.files[0].name : "no file chosen"); };
    input.addEventListener("change", chosen);
    chosen();  // a file chosen before this deferred script ran (or kept by the browser) shows too
    ["dragenter", "dragover"].forEach(function (kind) {
      zone.addEventListener(kind, function (e) { e.preventDefault(); zone.classList.add("dragging"); });
    });
    zone.addEventListener("dragleave", function () { zone.classList.remove("dragging"); });
    zone.addEventListener("drop", function (e) {
      e.preventDefault();
      zone.classList.remove("dragging");
      if (e.dataTransfer.files.length) { input.files = e.dataTransfer.files; chosen(); }
    });
    form.addEventListener("submit", function (e) {
      if (!input.files.length || !window.fetch) { return; } // the plain form post still works
      e.preventDefault();
      var data = new FormData();
      data.append("file", input.files[0]);
      var token = form.querySelector("input[name=csrfmiddlewaretoken]").value;
      form.querySelector("button[type=submit]").disabled = true;
      panel.hidden = false;
      text("u-detail", "Uploading " + input.files[0].name + "\u2026");
      fetch(form.getAttribute("data-api"), {
        method: "POST", body: data, credentials: "same-origin",
        headers: { "X-CSRFToken": token, Accept: "application/json" },
      }).then(function (response) {
        return response.json().then(function (body) {
          if (!response.ok) {
            var refused = new Error(body.detail || "the server answered " + response.status);
            refused.existing = body.code === "duplicate" ? body.existing_version : null;
            throw refused;
          }
          return body;
        });
      }).then(function (v) {
        showVerdict(panel, v);
        pollVersion(panel, v.id);
      }).catch(function (error) {
        form.querySelector("button[type=submit]").disabled = false;
        text("u-status", "refused");
        document.getElementById("u-status").className = "status status-rejected";
        text("u-detail", error.message);
        if (error.existing) {  /* identical bytes: link the version that has them */
          var link = document.createElement("a");
          link.href = form.getAttribute("data-bot-page") + "#v" + error.existing.number;
          link.id = "u-existing";
          link.textContent = "see version " + error.existing.number;
          var detail = document.getElementById("u-detail");
          detail.appendChild(document.createTextNode(" \u00b7 "));
          detail.appendChild(link);
        }
      });
    });
  }

  var box = document.getElementById("progress");
  if (box) { watchTournament(box); }
  var form = document.getElementById("upload-form");
  if (form) { watchUpload(form); }
})();
