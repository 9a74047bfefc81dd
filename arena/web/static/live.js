// Live regions: an element with data-live="URL" is replaced every data-every ms by the
// HTML fragment at URL (the server renders the same template as the page). A fragment
// without data-live (a finished tournament or match) ends the refreshing.
"use strict";
(function () {
  function schedule(element) {
    var every = parseInt(element.getAttribute("data-every") || "3000", 10);
    setTimeout(function () { refresh(element); }, every);
  }
  function refresh(element) {
    if (document.hidden) { schedule(element); return; }
    fetch(element.getAttribute("data-live"), { headers: { "Accept": "text/html" } })
      .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
      .then(function (html) {
        var holder = document.createElement("div");
        holder.innerHTML = html.trim();
        var fresh = holder.firstElementChild;
        if (!fresh) return;
        element.replaceWith(fresh);
        if (fresh.hasAttribute("data-live")) schedule(fresh);
      })
      .catch(function () { schedule(element); });
  }
  document.querySelectorAll("[data-live]").forEach(schedule);
})();
