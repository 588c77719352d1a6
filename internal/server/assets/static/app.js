// Blackboard Sessions: live updates. The server's event stream (SSE) says
// "something changed"; every panel re-fetches itself through htmx
// (hx-trigger="bb:changed from:body"). EventSource reconnects on its own and
// resumes with Last-Event-ID, so nothing is missed across drops.
(function () {
  "use strict";
  var pending = null;
  var live = null;
  function changed() {
    if (pending) return;
    pending = setTimeout(function () {
      pending = null;
      if (window.htmx) htmx.trigger(document.body, "bb:changed");
    }, 80);
  }
  function setLive(state, text) {
    live = live || document.getElementById("live");
    if (!live) return;
    live.dataset.state = state;
    live.querySelector(".live-text").textContent = text;
  }
  function connect() {
    if (!window.EventSource) {
      setLive("off", "no live updates");
      return;
    }
    var es = new EventSource("/api/v1/events/stream");
    es.onopen = function () { setLive("on", "live"); changed(); };
    es.onmessage = changed;
    es.onerror = function () { setLive("off", "reconnecting"); };
  }
  document.addEventListener("DOMContentLoaded", function () {
    connect();
    document.body.addEventListener("htmx:afterRequest", function (e) {
      var el = e.detail.elt;
      if (e.detail.successful && el && el.classList && el.classList.contains("composer")) el.reset();
    });
    document.body.addEventListener("click", function (e) {
      var t = e.target;
      if (t && t.hasAttribute && t.hasAttribute("data-dismiss")) {
        var f = document.getElementById("flash");
        if (f) f.innerHTML = "";
      }
    });
    // Ctrl/Cmd+Enter posts.
    document.body.addEventListener("keydown", function (e) {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && e.target && e.target.id === "content") {
        e.preventDefault();
        var form = e.target.form;
        if (form && form.requestSubmit) form.requestSubmit();
      }
    });
  });
})();
