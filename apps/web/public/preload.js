/* global document, location */
// Every page starts from the store's statistics, a trace page (/traces/{traceId}) from its
// trace: ask for it while the dashboard's scripts load, so the page's fetch takes the answer
// already under way (same URL, same credentials). On a trace page the statistics wait for the
// dashboard to ask: at 10M spans they cost ~200 ms of the server's CPU, which the trace then
// does not share at the start. A file, not an inline script: the CSP allows 'self' only.
// The session check (components/SessionGate.tsx) comes first on every page and holds the page
// until it answers: asked here too, beside the scripts, not after them.
(function () {
  var m = /^\/traces\/([0-9a-fA-F]{32})\/?$/.exec(location.pathname);
  var preload = function (href) {
    var link = document.createElement('link');
    link.rel = 'preload';
    link.as = 'fetch';
    link.crossOrigin = 'anonymous';
    link.href = href;
    document.head.appendChild(link);
  };
  // The summary, as the trace page asks for it (src/api/endpoints.ts fetchTrace).
  preload(m ? '/api/v1/traces/' + m[1] + '?fields=summary' : '/api/v1/stats');
  preload('/api/v1/session');
})();
