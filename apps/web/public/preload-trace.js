/* global document, location */
// On a trace page (/traces/{traceId}), ask for the trace while the dashboard's scripts load,
// as index.html does for the stats: the page's fetch then takes the answer already under way
// (same URL, same credentials). A file, not an inline script: the CSP allows 'self' only.
(function () {
  var m = /^\/traces\/([0-9a-fA-F]{32})\/?$/.exec(location.pathname);
  if (!m) return;
  var link = document.createElement('link');
  link.rel = 'preload';
  link.as = 'fetch';
  link.crossOrigin = 'anonymous';
  link.href = '/api/v1/traces/' + m[1];
  document.head.appendChild(link);
})();
