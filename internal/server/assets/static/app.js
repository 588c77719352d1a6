// Blackboard Sessions: live updates. The server's event stream (SSE) says
// "something changed"; every panel re-fetches itself through htmx
// (hx-trigger="bb:changed from:body"). EventSource reconnects on its own and
// resumes with Last-Event-ID, so nothing is missed across drops.
//
// The timeline lists newest first. A live refresh never moves what the
// reader looks at: when they have scrolled away from the top, the row at the
// top of their view stays where it was and a "N new" marker counts the rows
// that arrived above; clicking it (or scrolling to the top) shows them.
(function () {
  "use strict";
  var pending = null;
  var live = null;
  var unseen = 0; // rows that arrived above the reader's view
  var saved = null; // the reader's place, taken before a timeline swap
  var kept = null; // the place the last swap restored (reused until the reader scrolls)

  // A panel swaps itself out (outerHTML), so a refresh htmx queued behind
  // a request in flight belongs to the old element and is dropped with it.
  // Each panel's request remembers which change it answers; a change that
  // came in while it was in flight asks for one more refresh. (The new
  // element listens at once because the page sets htmx's settle delay to
  // 0: with the default 20 ms, a refresh fired between a slow swap and its
  // settle found no panel listening and was lost.)
  var changes = 0; // changes announced by the server so far
  var answering = {}; // panel id -> changes seen when its request left

  function changed() {
    changes++;
    refresh();
  }
  function refresh() {
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
    es.onmessage = function (e) {
      if (live) live.dataset.seq = e.lastEventId; // the newest event this page has heard of
      changed();
    };
    es.onerror = function () { setLive("off", "reconnecting"); };
  }

  function list() { return document.querySelector("#timeline ol.timeline"); }
  function rows(ol) { return ol ? Array.prototype.slice.call(ol.querySelectorAll(":scope > li[id]")) : []; }

  // place records the first row visible in the list and its offset.
  function place() {
    var ol = list();
    if (!ol) return null;
    var top = ol.getBoundingClientRect().top;
    var ids = {};
    var anchor = null, offset = 0;
    rows(ol).forEach(function (li) {
      ids[li.id] = true;
      if (!anchor && li.getBoundingClientRect().bottom > top + 1) {
        anchor = li.id;
        offset = li.getBoundingClientRect().top - top;
      }
    });
    // Several swaps in a row keep the first measure: re-measuring after
    // each one would add up rounding errors.
    if (kept && kept.scrollTop === ol.scrollTop && document.getElementById(kept.anchor)) {
      anchor = kept.anchor;
      offset = kept.offset;
    }
    // An answer being written survives the refresh.
    var drafts = [];
    document.querySelectorAll("#timeline details.answer[open]").forEach(function (d) {
      var f = d.querySelector("form"), ta = d.querySelector("textarea");
      drafts.push({ post: f.getAttribute("hx-post"), value: ta.value, focused: document.activeElement === ta });
    });
    return { scrollTop: ol.scrollTop, atTop: ol.scrollTop <= 4, anchor: anchor, offset: offset, ids: ids, drafts: drafts };
  }

  // restore puts the saved anchor row back where it was and counts the new
  // rows above it.
  function restore(p) {
    var ol = list();
    if (!ol || !p) return;
    (p.drafts || []).forEach(function (d) {
      var f = document.querySelector('#timeline form[hx-post="' + d.post + '"]');
      if (!f) return;
      f.closest("details").open = true;
      var ta = f.querySelector("textarea");
      ta.value = d.value;
      if (d.focused) ta.focus({ preventScroll: true });
    });
    kept = null;
    if (p.atTop) {
      ol.scrollTop = 0;
      unseen = 0;
      marker();
      return;
    }
    var li = p.anchor && document.getElementById(p.anchor);
    if (li && ol.contains(li)) {
      ol.scrollTop += li.getBoundingClientRect().top - ol.getBoundingClientRect().top - p.offset;
      var n = 0;
      for (var r = ol.firstElementChild; r && r !== li; r = r.nextElementSibling) {
        if (r.id && !p.ids[r.id]) n++;
      }
      unseen += n;
      kept = { anchor: p.anchor, offset: p.offset, scrollTop: ol.scrollTop };
    } else {
      ol.scrollTop = p.scrollTop;
    }
    marker();
  }

  function marker() {
    var b = document.querySelector("#timeline .new-marker");
    if (!b) return;
    b.hidden = unseen === 0;
    b.textContent = unseen + " new ↑";
  }

  function setParam(name, value) {
    var u = new URL(window.location.href);
    if (value) u.searchParams.set(name, value); else u.searchParams.delete(name);
    history.replaceState(history.state, "", u.pathname + u.search + u.hash);
  }

  function composerMode() {
    var to = document.getElementById("to");
    if (!to || !to.form) return;
    to.form.dataset.to = to.value ? "one" : "all";
  }

  document.addEventListener("DOMContentLoaded", function () {
    connect();
    composerMode();
    var body = document.body;
    body.addEventListener("htmx:beforeRequest", function (e) {
      var el = e.detail.elt;
      if (el && el.id && (el.getAttribute("hx-trigger") || "").indexOf("bb:changed from:body") === 0) answering[el.id] = changes;
    });
    // Both fire on the old element while it is still in the page.
    function answered(e) {
      var el = e.detail.elt;
      if (!el || !el.id || !(el.id in answering)) return;
      var asked = answering[el.id];
      delete answering[el.id];
      if (asked < changes) refresh();
    }
    body.addEventListener("htmx:beforeSwap", function (e) {
      answered(e);
      if (e.detail.target && e.detail.target.id === "timeline") saved = place();
    });
    body.addEventListener("htmx:responseError", answered);
    body.addEventListener("htmx:sendError", answered);
    body.addEventListener("htmx:afterSwap", function (e) {
      var t = e.detail.target;
      if (t && t.id === "timeline") {
        // The composer's own post returns the timeline: show it from the top.
        var own = e.detail.requestConfig && e.detail.requestConfig.verb === "post";
        restore(own ? { atTop: true } : saved);
        saved = null;
      }
      if (t && t.id === "conversation") { unseen = 0; composerMode(); }
      // A refreshed agents panel keeps the reader's filter.
      var hide = document.getElementById("hide-stale");
      if (hide) hide.checked = body.classList.contains("hide-stale");
    });
    body.addEventListener("htmx:afterRequest", function (e) {
      var el = e.detail.elt;
      if (e.detail.successful && el && el.classList && (el.classList.contains("composer") || el.classList.contains("answer-form"))) {
        el.reset();
        composerMode();
      }
    });
    // Scrolling back to the top shows the new rows.
    body.addEventListener("scroll", function (e) {
      var t = e.target;
      if (t && t.classList && t.classList.contains("timeline") && t.scrollTop <= 4 && unseen) {
        unseen = 0;
        marker();
      }
    }, true);
    body.addEventListener("change", function (e) {
      var t = e.target;
      if (t && t.id === "hide-stale") {
        body.classList.toggle("hide-stale", t.checked);
        setParam("hide", t.checked ? "stale" : "");
      }
      if (t && t.id === "to") composerMode();
    });
    body.addEventListener("click", function (e) {
      var t = e.target;
      if (!t || !t.closest) return;
      if (t.hasAttribute("data-dismiss")) {
        var f = document.getElementById("flash");
        if (f) f.innerHTML = "";
      }
      if (t.classList.contains("new-marker")) {
        var ol = list();
        if (ol) ol.scrollTop = 0; // instant: a smooth scroll can be cut short by a live redraw and leave the reader short of the top
        unseen = 0;
        marker();
      }
      var tab = t.closest("[data-tab-to]");
      if (tab) {
        var name = tab.getAttribute("data-tab-to");
        body.dataset.tab = name;
        document.querySelectorAll("[data-tab-to]").forEach(function (b) {
          if (b.getAttribute("data-tab-to") === name) b.setAttribute("aria-current", "page"); else b.removeAttribute("aria-current");
        });
        setParam("tab", name === "convo" ? "" : name);
        window.scrollTo(0, 0);
      }
      // On a phone, opening a session shows its conversation.
      if (t.closest(".card") && window.matchMedia("(max-width: 760px)").matches) {
        body.dataset.tab = "convo";
        document.querySelectorAll("[data-tab-to]").forEach(function (b) {
          if (b.getAttribute("data-tab-to") === "convo") b.setAttribute("aria-current", "page"); else b.removeAttribute("aria-current");
        });
      }
    });
    // Ctrl/Cmd+Enter sends.
    body.addEventListener("keydown", function (e) {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && e.target && e.target.tagName === "TEXTAREA") {
        e.preventDefault();
        var form = e.target.form;
        if (form && form.requestSubmit) form.requestSubmit();
      }
    });
  });
})();
