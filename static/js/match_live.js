/* A queued or running match's page follows it: the match's status is polled from the API and
   the page reloads once it changes (then it shows the result and the replay). No
   dependencies; without it the page still says what to do (reload). */
(function () {
  "use strict";

  var POLL_MS = 3000;
  var node = document.getElementById("match-live");
  if (!node) { return; }
  var api = node.getAttribute("data-api"), shown = node.getAttribute("data-status");

  function poll() {
    fetch(api, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (match) {
        if (match && match.status !== shown) {
          window.location.reload();
          return;
        }
        var status = document.getElementById("match-status");
        if (status && match) { status.textContent = match.status; }
        window.setTimeout(poll, POLL_MS);
      })
      .catch(function () { window.setTimeout(poll, POLL_MS * 2); });
  }

  window.setTimeout(poll, POLL_MS);
}());
