// Auto-refresh: every data-refresh-ms milliseconds, fetch the page that
// is open again and swap in its live parts (the elements with data-live
// and an id). The page works without this script; it only saves pressing
// reload. Nothing from the response runs: parsed HTML is inert. While the
// keyboard focus is inside a live part, the refresh waits.
(function () {
  'use strict';
  var period = parseInt(document.body.getAttribute('data-refresh-ms'), 10);
  if (!(period > 0) || !window.fetch || !window.DOMParser) {
    return;
  }
  var badge = document.getElementById('live');
  var busy = false;

  function show(text, stale) {
    badge.textContent = text;
    badge.hidden = false;
    badge.classList.toggle('stale', stale);
  }

  // focusInLive reports whether the keyboard focus is on something the
  // refresh would replace: replacing it would throw the focus away.
  function focusInLive() {
    var el = document.activeElement;
    return !!(el && el !== document.body && el.closest && el.closest('[data-live]'));
  }

  function refresh() {
    if (busy || document.hidden || focusInLive()) {
      return;
    }
    busy = true;
    fetch(window.location.href, { headers: { Accept: 'text/html' }, cache: 'no-store', credentials: 'same-origin' })
      .then(function (resp) {
        if (!resp.ok) {
          throw new Error('the server answered ' + resp.status);
        }
        return resp.text();
      })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, 'text/html');
        document.querySelectorAll('[data-live][id]').forEach(function (el) {
          var next = fresh.getElementById(el.id);
          if (next) {
            el.replaceWith(document.importNode(next, true));
          }
        });
        document.title = fresh.title;
        show('Live · updated ' + new Date().toLocaleTimeString(), false);
      })
      .catch(function (err) {
        show('Not updated: ' + err.message, true);
      })
      .then(function () {
        busy = false;
      });
  }

  window.setInterval(refresh, period);
  document.addEventListener('visibilitychange', function () {
    if (!document.hidden) {
      refresh();
    }
  });
})();
