// byomcp preload: a tiny classic script for the <head>, before any script that registers tools.
// It makes document.modelContext usable at once: registrations are queued until widget.js has
// loaded, then registered for real (see installModelContext in modelcontext.js). A page whose
// browser or other library already provides document.modelContext is left alone.
//
//   <script src="https://AGENT-HOST/byomcp/preload.js"></script>
(function () {
  'use strict';
  if (typeof document === 'undefined' || document.modelContext) return;
  document.modelContext = {
    __byomcpQueue: [],
    registerTool: function (tool, options) {
      this.__byomcpQueue.push([tool, options]);
      return Promise.resolve();
    },
  };
})();
